import { LRUCache } from 'lru-cache';
import { JsonText } from '../../api/headMemo';
import type { MaybePromise } from '../../primitives/maybe';
import type { Request, Server } from 'hyper-express';
import type { SubmitOutcome } from '../../api/ports';
import { markOffence } from '../guard';
import { badRequest, HttpError, notFound } from '../httpError';
import { readJsonBody } from '../json';
import { LONG_PAGE, pageSize, sized } from '../params';
import { BLOCK_BODY_BYTES, MAX_BODY_BYTES, type HttpDeps, type RouteWrap } from '../route';
import type { BlockIntakeView, MempoolView, SubmitVerdictView, TxList, TxRecord } from '../../views';

/**
 * 200 with the verdict; 400 for malformed input; 503 when verification is unavailable.
 * A 400 or an `invalid signature` refusal counts as an invalid submission for the guard.
 */
function verdictOf(req: Request, out: SubmitOutcome): SubmitVerdictView {
  if (out.kind === 'malformed') {
    markOffence(req, 'invalid_submission');
    throw badRequest(out.error, out.code);
  }
  if (out.kind === 'unavailable') throw new HttpError(503, out.error);
  if (out.badSignature) markOffence(req, 'invalid_submission');
  return out.verdict;
}

export function registerTxRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.post('/tx', r(async (req): Promise<SubmitVerdictView> => verdictOf(req, await d.admission.submit(await readJsonBody(req, MAX_BODY_BYTES)))));

  // A block gossiped by a peer: 400 {error} when malformed or invalid (nothing changes), else what became of it.
  app.post('/blocks', r(async (req): Promise<BlockIntakeView> => {
    if (!d.blocks) throw new HttpError(503, 'this node does not take blocks yet');
    const body = await readJsonBody(req, BLOCK_BODY_BYTES);
    const out = await d.blocks(body);
    if (out.status === 400) {
      markOffence(req, 'invalid_submission');
      throw badRequest(out.body.error);
    }
    if (out.status === 503) throw new HttpError(503, out.body.error);
    return out.body;
  }));

  // A signed Ethereum transaction: {"raw": "0x…"} (or the hex string itself as JSON).
  app.post('/vm/tx', r(async (req): Promise<SubmitVerdictView> => {
    const body = await readJsonBody(req, MAX_BODY_BYTES);
    const raw = typeof body === 'string' ? body : (body as { raw?: unknown } | null)?.raw;
    if (typeof raw !== 'string') {
      markOffence(req, 'invalid_submission');
      throw badRequest('body must be {"raw": "0x…signed transaction"}');
    }
    return verdictOf(req, await d.admission.submitRaw(raw));
  }));

  // A finalized transaction's record never changes again (finality does not revert): serialized
  // once and kept (~10 KiB each with its hybrid keys and signatures: ≤ ~100 MiB).
  const finalTxs = new LRUCache<string, JsonText>({ max: 10_000 });
  let reverts = 0; // --dev reverts undo final blocks too
  app.get('/tx/:id', r((req): MaybePromise<TxRecord | JsonText> => {
    const id = req.path_parameters.id.toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw badRequest('transaction id must be 0x followed by 64 hex digits');
    if ((d.dev?.reverts ?? 0) !== reverts) {
      reverts = d.dev!.reverts;
      finalTxs.clear();
    }
    return finalTxs.get(id) ?? d.reader.tx(id as `0x${string}`).then((t) => {
      if (!t) throw notFound('transaction not known to this node (it may still be propagating)');
      if (t.status !== 'finalized') return t;
      const text = JsonText.shared(JSON.stringify(t));
      finalTxs.set(id, text);
      return text;
    });
  }));

  app.get('/txs', r(async (req): Promise<TxList> => {
    const size = pageSize(req.query_parameters);
    return sized(size, { txs: await d.reader.recentTxs(size.limit) });
  }));

  app.get('/mempool', r(async (req): Promise<MempoolView> => {
    const size = pageSize(req.query_parameters, LONG_PAGE);
    return sized(size, await d.reader.mempool(size.limit));
  }));
}
