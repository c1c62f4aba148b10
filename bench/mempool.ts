/**
 * What the mempool's bounds (issue 23 row 7) cost an honest user: TxPool.admit per transaction,
 * in this process (no HTTP, no signatures), at the default sizes (cap 5,000, 500 pending and 16
 * gapped per sender), for
 *   - honest traffic: 1,000 senders × 5 ready transactions (fills the pool);
 *   - deep senders: 10 senders × 500 ready (the per-sender cap: the gapped bookkeeping walks a sender's queue);
 *   - under the squat: the pool full of gapped transactions of 313 senders, 5,000 ready ones
 *     admitted, each evicting one;
 * and one expiry pass over a full pool (the mempool actor runs it every 1–60 s).
 * Target: under 25 µs per admission, 5 % of the node CPU an accepted transaction costs at admission
 * (466 µs: the admission row of bench/results.md, signatures and HTTP included). On the code before
 * the bounds (80 × 64 gapped took the whole pool) the same honest shapes measured 7–11 µs and
 * 49–57 µs (deep senders: the balance rule summed the sender's queue on every admission).
 *
 *   npx tsx bench/mempool.ts [--runs 5] [--results-dir DIR]
 */
import { parseArgs } from 'node:util';
import { TxPool, type SenderView } from '../src/mempool/pool';
import { MAX_FUTURE_NONCE_GAP, MEMPOOL_CAP_DEFAULT, MEMPOOL_LIFETIME_MS } from '../src/protocol/params';
import type { SignedTx } from '../src/protocol/types';
import { fmt, posInt, printTable } from './lib/harness';
import { spread, writeResults, type ResultRow } from './lib/results';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, 'results-dir': { type: 'string' } },
});
const RUNS = posInt(values.runs!, 'runs', 100);
const TARGET_US = 25;

const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`;
let seq = 0;
const tx = (from: `0x${string}`, nonce: number): SignedTx => ({
  chainId: 72020,
  type: 'TRANSFER',
  from,
  to: addr(1),
  amount: '1',
  nonce,
  timestamp: 1,
  fee: '0',
  data: null,
  id: `0x${(++seq).toString(16).padStart(64, '0')}`,
  publicKeys: { secp256k1: '0x', mldsa44: '0x' },
  signatures: { secp256k1: '0x', mldsa44: '0x' },
});
const view: SenderView = { nonce: 0, balance: 10n ** 20n, mldsaKeyHash: null };
const pool = () =>
  new TxPool({ cap: MEMPOOL_CAP_DEFAULT, lifetimeMs: MEMPOOL_LIFETIME_MS, maxNonceGap: MAX_FUTURE_NONCE_GAP });

/** µs per admitted transaction over `txs`, on `p`; throws if one is refused (the scenario is wrong). */
function admitAll(p: TxPool, txs: SignedTx[]): number {
  const t0 = performance.now();
  for (const t of txs) {
    const r = p.admit(t, view, null, 1000);
    if (r) throw new Error(`refused: ${r}`);
  }
  return ((performance.now() - t0) * 1000) / txs.length;
}

const scenarios: { name: string; run(): number }[] = [
  {
    name: 'honest: 1,000 senders × 5 ready',
    run: () => {
      const txs: SignedTx[] = [];
      for (let n = 0; n < 5; n++) for (let s = 0; s < 1000; s++) txs.push(tx(addr(0x10000 + s), n));
      return admitAll(pool(), txs);
    },
  },
  {
    name: 'deep senders: 10 × 500 ready',
    run: () => {
      const txs: SignedTx[] = [];
      for (let s = 0; s < 10; s++) for (let n = 0; n < 500; n++) txs.push(tx(addr(0x20000 + s), n));
      return admitAll(pool(), txs);
    },
  },
  {
    name: 'squat: full of gapped, each ready one evicts',
    run: () => {
      const p = pool();
      for (let s = 0; p.size < MEMPOOL_CAP_DEFAULT; s++)
        for (let n = 1; n <= 16 && p.size < MEMPOOL_CAP_DEFAULT; n++) p.admit(tx(addr(0x30000 + s), n), view, null, 0);
      const honest: SignedTx[] = [];
      for (let s = 0; s < MEMPOOL_CAP_DEFAULT; s++) honest.push(tx(addr(0x40000 + s), 0));
      const us = admitAll(p, honest);
      p.takeEvicted();
      return us;
    },
  },
  {
    name: 'expiry pass over 5,000 (per entry)',
    run: () => {
      const p = pool();
      for (let s = 0; p.size < MEMPOOL_CAP_DEFAULT; s++)
        for (let n = 0; n < 16; n++) p.admit(tx(addr(0x50000 + s), n % 2 ? n : n + 100), view, null, 0);
      const t0 = performance.now();
      p.expire(1);
      return ((performance.now() - t0) * 1000) / p.size;
    },
  },
];

for (const s of scenarios) s.run(); // warm-up
const rows: ResultRow[] = scenarios.map((s) => {
  const v = spread(Array.from({ length: RUNS }, () => s.run()));
  return {
    metric: `TxPool: ${s.name}`,
    unit: 'µs/tx',
    cairn: v,
    reference: null,
    target: `< ${TARGET_US} µs`,
    met: v.median < TARGET_US,
    note: 'in process, no HTTP or signatures; median of runs',
  };
});
printTable(
  `TxPool.admit, µs per transaction (median of ${RUNS}, min–max; target < ${TARGET_US} µs)`,
  rows.map((r) => [
    r.metric,
    `${fmt(r.cairn.median, 2)} (${fmt(r.cairn.min, 2)}–${fmt(r.cairn.max, 2)})${r.met ? '' : '  NOT MET'}`,
  ]),
);
writeResults('mempool', rows, values['results-dir']);
