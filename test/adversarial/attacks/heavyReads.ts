/**
 * Issue 49 part 2, the expensive reads: one client that keeps within the request count reads
 * the heaviest answers the node has — JSON `/chain?limit=2000` pages over full blocks, and
 * JSON-RPC batches of 50 `eth_getBlockByNumber(…, true)` — so each of its requests costs the
 * node tens or hundreds of milliseconds where a plain read costs a fraction of one.
 *
 * `buildHeavyChain` sends `blocks` rounds of `txsPerBlock` hybrid-signed TRANSFERs (each
 * ~7 kB as JSON with its keys and signatures: a full block is ~3.5 MB), from development
 * accounts 0..txsPerBlock-1, one nonce each per block: the node needs `--dev-accounts ≥
 * txsPerBlock` and a fresh chain. `startHeavyReadFlood` reads them from one address, honouring
 * Retry-After (an attacker "at the limit" gets the most out of the node that way). Used by
 * test/adversarial/heavy-reads.test.ts and bench/attack.ts (`--only reads`).
 */
import { signTx } from '../../../src/chain/envelope';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import { fastHybridSigner } from '../../../bench/lib/sign';
import { CHAIN_PAGE_MEDIA } from '../../../src/protocol/peers';
import { ATTACKER, requestFrom, waitFor, type Target } from '../lib';
import { postAll } from './metaTx';

export interface HeavyChain {
  /**
   * Heights of the blocks that carry the transactions (at least 50 each), ascending: submission outpaces no slot, so
   * a round of `txsPerBlock` may land in two or three blocks.
   */
  heavy: number[];
  /** Transactions in those blocks. */
  txs: number;
}

/** Signs and submits `blocks × txsPerBlock` transfers from `from` (an exempt address) and waits until they are in. */
export async function buildHeavyChain(
  t: Target,
  o: { blocks: number; txsPerBlock?: number; from: string },
): Promise<HeavyChain> {
  const per = o.txsPerBlock ?? 500;
  const sign = await fastHybridSigner();
  const keys = Array.from({ length: per }, (_, i) => deriveKeys(devSecret(i)));
  const t0 = Date.now();
  // Nonce n of every sender before any sender's n+1: each round fills a block.
  const txs = [];
  for (let n = 0; n < o.blocks; n++)
    for (let i = 0; i < per; i++)
      txs.push(
        signTx(
          keys[i],
          { type: 'TRANSFER', to: keys[(i + 1) % per].address, amount: 1n, nonce: n, timestamp: t0 + n * per + i },
          t.network,
          sign,
        ),
      );
  for (let n = 0; n < o.blocks; n++) {
    // A burst of 500 on a busy machine may be turned away in part (503, the node sheds load: node/loadGauge.ts): sent
    // again, as a client honouring Retry-After does, until each is accepted.
    let left = txs.slice(n * per, (n + 1) * per);
    await waitFor(
      `heavy block ${n} accepted`,
      async () => {
        const sent = await postAll(t.url, left, { from: o.from, concurrency: 32 });
        const refused = [...sent.outcomes.keys()].filter((k) => k !== 'accepted' && k !== 'HTTP 503');
        if (refused.length > 0) throw new Error(`heavy chain: refused ${JSON.stringify([...sent.outcomes])}`);
        const accepted = new Set(sent.accepted);
        left = left.filter((tx) => !accepted.has(tx.id));
        return left.length === 0;
      },
      60_000,
      1_000,
    );
  }
  const last = txs[txs.length - 1];
  await waitFor(
    'the heavy blocks included',
    async () => {
      const r = await requestFrom(o.from, `${t.url}/tx/${last.id}`);
      return r.json?.blockHeight !== undefined;
    },
    120_000,
    200,
  );
  const head = (await requestFrom(o.from, `${t.url}/status`)).json.height as number;
  const summaries = (await requestFrom(o.from, `${t.url}/blocks?from=${head}&limit=${Math.min(head, 500)}`)).json
    .blocks as { height: number; txCount: number }[];
  const full = summaries.filter((s) => s.txCount >= 50).sort((a, b) => a.height - b.height);
  if (full.length === 0) throw new Error('heavy chain: no block carries 50 transactions');
  return { heavy: full.map((s) => s.height), txs: full.reduce((n, s) => n + s.txCount, 0) };
}

export interface HeavyReadReport {
  pages: number;
  pageBytes: number;
  /** Blocks the JSON pages carried. */
  pageBlocks: number;
  batches: number;
  batchBytes: number;
  /** 429 answers (each followed by a wait of its Retry-After). */
  refused: number;
  errors: Record<string, number>;
}

export const blockBatch = (heights: readonly number[], first: number, size = 50) =>
  Array.from({ length: size }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'eth_getBlockByNumber',
    params: [`0x${heights[(first + i) % heights.length].toString(16)}`, true],
  }));

/**
 * From `from` (default ATTACKER): `pagesInFlight` loops reading JSON `/chain?from=h&limit=2000` from the heavy
 * heights, and `batchesInFlight` loops sending batches of 50 `eth_getBlockByNumber(h, true)`; a 429 pauses every
 * loop for its Retry-After.
 */
export function startHeavyReadFlood(
  t: Target,
  chain: HeavyChain,
  o: { from?: string; pagesInFlight?: number; batchesInFlight?: number; binary?: boolean } = {},
): { stop(): Promise<HeavyReadReport> } {
  const from = o.from ?? ATTACKER;
  const r: HeavyReadReport = {
    pages: 0,
    pageBytes: 0,
    pageBlocks: 0,
    batches: 0,
    batchBytes: 0,
    refused: 0,
    errors: {},
  };
  let running = true;
  let pausedUntil = 0;
  let turn = 0;
  const error = (k: string) => (r.errors[k] = (r.errors[k] ?? 0) + 1);
  const pause = async () => {
    while (running && Date.now() < pausedUntil) await new Promise((res) => setTimeout(res, 20));
  };
  const refusedFor = (retryAfter: string | string[] | undefined) => {
    r.refused++;
    pausedUntil = Math.max(pausedUntil, Date.now() + 1000 * Number(retryAfter ?? 1));
  };
  const pages = async () => {
    while (running) {
      await pause();
      if (!running) break;
      const h = chain.heavy[turn++ % chain.heavy.length];
      try {
        const a = await requestFrom(from, `${t.url}/chain?from=${h}&limit=2000`, {
          timeoutMs: 60_000,
          ...(o.binary ? { headers: { accept: CHAIN_PAGE_MEDIA } } : {}),
        });
        if (a.status === 429) refusedFor(a.headers['retry-after']);
        else if (a.status !== 200) error(`/chain ${a.status}`);
        else {
          r.pages++;
          r.pageBytes += Buffer.byteLength(a.text);
          r.pageBlocks += a.json?.blocks?.length ?? 0;
        }
      } catch (e) {
        error((e as Error).message.slice(0, 80));
      }
    }
  };
  const batches = async () => {
    while (running) {
      await pause();
      if (!running) break;
      try {
        const a = await requestFrom(from, t.rpcUrl, { body: blockBatch(chain.heavy, turn++), timeoutMs: 60_000 });
        if (a.status === 429) refusedFor(a.headers['retry-after']);
        else if (a.status !== 200 || !Array.isArray(a.json)) error(`batch ${a.status}`);
        else {
          r.batches++;
          r.batchBytes += Buffer.byteLength(a.text);
        }
      } catch (e) {
        error((e as Error).message.slice(0, 80));
      }
    }
  };
  const loops = [
    ...Array.from({ length: o.pagesInFlight ?? 1 }, pages),
    ...Array.from({ length: o.batchesInFlight ?? 8 }, batches),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return r;
    },
  };
}
