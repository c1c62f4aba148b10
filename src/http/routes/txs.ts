import type { Server } from 'hyper-express';
import { badRequest, HttpError, notFound } from '../httpError';
import { parseJsonBody, readBody } from '../json';
import { limitParam } from '../params';
import type { SubmitOutcome } from '../../actors/admission';
import { MAX_BODY_BYTES, type HttpDeps, type RouteWrap } from '../server';

/** 200 with the verdict; 400 for malformed input; 503 when verification is unavailable. */
function verdictOf(out: SubmitOutcome) {
  if (out.kind === 'malformed') throw badRequest(out.error);
  if (out.kind === 'unavailable') throw new HttpError(503, out.error);
  return out.verdict;
}

export function registerTxRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.post('/tx', r(async (req, res) => {
    const body = parseJsonBody(await readBody(req, MAX_BODY_BYTES));
    return verdictOf(await d.admission.submit(body));
  }));

  // A signed Ethereum transaction: {"raw": "0x…"} (or the hex string itself as JSON).
  app.post('/vm/tx', r(async (req) => {
    const body = parseJsonBody(await readBody(req, MAX_BODY_BYTES));
    const raw = typeof body === 'string' ? body : (body as { raw?: unknown } | null)?.raw;
    if (typeof raw !== 'string') throw badRequest('body must be {"raw": "0x…signed transaction"}');
    return verdictOf(await d.admission.submitRaw(raw));
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
    return d.reader.mempool(limit);
  }));
}
