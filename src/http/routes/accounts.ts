import { andThen } from '../../primitives/maybe';
import { notFound } from '../../web/httpError';
import { sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

/** GET /address/:end[/txs|/analysis], /proof/:end. */
export const accountHandlers = (d: HttpDeps): RouteHandlers<'account' | 'addressTxs' | 'analysis' | 'proof'> => ({
  // An AccountView, sent as text serialized once per head (api/chainReader.ts accountJson).
  account: ({ params }) =>
    andThen(d.reader.accountJson(params.end), (a) => {
      if (!a) throw notFound('account not found: it has never received anything (treat as balance 0, nonce 0)');
      return a;
    }),
  addressTxs: async ({ params: { end }, query: q }) =>
    sized(q.limit, { address: end, ...(await d.reader.addressTxs(end, q.limit.limit, q.before)) }),
  analysis: ({ params }) => d.reader.analysis(params.end),
  proof: async ({ params, query }) => {
    const pruned = query.height === undefined ? undefined : d.reader.stateNote(query.height);
    if (pruned) throw notFound(`state at height ${query.height} is pruned: ${pruned}`);
    const p = await d.reader.proof(params.end, query.height);
    if (!p) throw notFound(`block not found: ${query.height}`);
    return p;
  },
});
