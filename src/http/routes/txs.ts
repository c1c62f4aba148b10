import type { Server } from 'hyper-express';
import { badRequest, HttpError, notFound } from '../httpError';
import { parseJsonBody } from '../json';
import { limitParam } from '../params';
import type { HttpDeps, RouteWrap } from '../server';

export function registerTxRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.post('/tx', r(async (req, res) => {
    const body = parseJsonBody(await req.text());
    const out = await d.submit(body);
    if (out.kind === 'malformed') throw badRequest(out.error);
    if (out.kind === 'unavailable') throw new HttpError(503, out.error);
    res.status(200);
    return out.verdict;
  }));

  app.get('/tx/:id', r(async (req) => {
    const id = req.path_parameters.id.toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw badRequest('transaction id must be 0x followed by 64 hex digits');
    const t = await d.reader.tx(id as `0x${string}`);
    if (!t) throw notFound('transaction not known to this node (it may still be propagating)');
    return t;
  }));

  app.get('/txs', r(async (req) => ({ txs: await d.reader.recentTxs(limitParam(req.query_parameters)) })));

  app.get('/mempool', r(async (req) => {
    const limit = limitParam(req.query_parameters, 1_000, 100);
    const txs = await d.reader.mempool(limit);
    return { count: txs.length, txs };
  }));
}
