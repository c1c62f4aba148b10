import type { Server } from 'hyper-express';
import { notFound } from '../httpError';
import { addressParam, intParam, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';
import type { JsonText } from '../../api/headMemo';
import { andThen, type MaybePromise } from '../../primitives/maybe';
import type { AccountProofView, AddressTxsView, AnalysisView } from '../../views';

export function registerAccountRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  // An AccountView, sent as text serialized once per head (api/chainReader.ts accountJson).
  app.get('/address/:end', r((req): MaybePromise<JsonText> =>
    andThen(d.reader.accountJson(addressParam(req.path_parameters.end)), (a) => {
      if (!a) throw notFound('account not found: it has never received anything (treat as balance 0, nonce 0)');
      return a;
    })));

  app.get('/address/:end/txs', r(async (req): Promise<AddressTxsView> => {
    const addr = addressParam(req.path_parameters.end);
    const q = req.query_parameters;
    const size = pageSize(q);
    const before = intParam(q, 'before');
    return sized(size, { address: addr, ...(await d.reader.addressTxs(addr, size.limit, before)) });
  }));

  app.get('/address/:end/analysis', r(async (req): Promise<AnalysisView> => d.reader.analysis(addressParam(req.path_parameters.end))));

  app.get('/proof/:end', r(async (req): Promise<AccountProofView> => {
    const addr = addressParam(req.path_parameters.end);
    const height = intParam(req.query_parameters, 'height');
    const p = await d.reader.proof(addr, height);
    if (!p) throw notFound(`block not found: ${height}`);
    return p;
  }));
}
