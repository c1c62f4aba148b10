import { LRUCache } from 'lru-cache';
import { JsonText } from '../../api/headMemo';
import type { Request } from 'hyper-express';
import type { SubmitOutcome } from '../../api/ports';
import type { SubmitVerdictView } from '../../views';
import { markOffence } from '../../web/guard';
import { badRequest, HttpError, notFound } from '../../web/httpError';
import { readJsonBody } from '../../web/body';
import { sized } from '../params';
import { BLOCK_BODY_BYTES, MAX_BODY_BYTES, type HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

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

/** POST /tx, /vm/tx, /blocks; GET /tx/:id, /txs, /mempool. */
export function txHandlers(d: HttpDeps): RouteHandlers<'postTx' | 'postVmTx' | 'postBlock' | 'tx' | 'txs' | 'mempool'> {
  // A finalized transaction's record never changes again (finality does not revert): serialized
  // once and kept (~10 KiB each with its hybrid keys and signatures: ≤ ~100 MiB).
  const finalTxs = new LRUCache<string, { text: JsonText; height: number }>({ max: 10_000 });
  let reverts = 0; // --dev reverts undo final blocks too
  return {
    postTx: async (_in, req) => verdictOf(req, await d.admission.submit(await readJsonBody(req, MAX_BODY_BYTES))),

    // A signed Ethereum transaction: {"raw": "0x…"} (or the hex string itself as JSON).
    postVmTx: async (_in, req) => {
      const body = await readJsonBody(req, MAX_BODY_BYTES);
      const raw = typeof body === 'string' ? body : (body as { raw?: unknown } | null)?.raw;
      if (typeof raw !== 'string') {
        markOffence(req, 'invalid_submission');
        throw badRequest('body must be {"raw": "0x…signed transaction"}');
      }
      return verdictOf(req, await d.admission.submitRaw(raw));
    },

    // A block gossiped by a peer: 400 {error} when malformed or invalid (nothing changes), else what became of it.
    postBlock: async (_in, req) => {
      if (!d.blocks) throw new HttpError(503, 'this node does not take blocks yet');
      const out = await d.blocks(await readJsonBody(req, BLOCK_BODY_BYTES));
      if (out.status === 400) {
        markOffence(req, 'invalid_submission');
        throw badRequest(out.body.error);
      }
      if (out.status === 503) throw new HttpError(503, out.body.error);
      return out.body;
    },

    tx: ({ params: { id } }) => {
      if ((d.dev?.reverts ?? 0) !== reverts) {
        reverts = d.dev!.reverts;
        finalTxs.clear();
      }
      const missing = () => {
        const pruned = d.reader.historyNote();
        return notFound(
          `transaction not known to this node (it may still be propagating${pruned ? `, or be older: ${pruned}` : ''})`,
        );
      };
      const cached = finalTxs.get(id);
      if (cached) {
        if (!d.reader.historyNote(cached.height)) return cached.text;
        finalTxs.delete(id); // its block's history was pruned since
        throw missing();
      }
      return d.reader.tx(id as `0x${string}`).then((t) => {
        if (!t) throw missing();
        if (t.status !== 'finalized' || t.blockHeight === undefined) return t;
        const text = JsonText.shared(JSON.stringify(t));
        finalTxs.set(id, { text, height: t.blockHeight });
        return text;
      });
    },
    txs: async ({ query: q }) => sized(q.limit, { txs: await d.reader.recentTxs(q.limit.limit) }),
    mempool: async ({ query: q }) => sized(q.limit, await d.reader.mempool(q.limit.limit)),
  };
}
