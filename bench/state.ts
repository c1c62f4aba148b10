/**
 * State trie cost per block over RocksDB: blocks of 500 transfers (the applyTx pattern) on
 * a state of 100k existing accounts, on a fresh StateTrie per block as the chain actor
 * opens one. Reported per block: wall time (average and median), the process's CPU time
 * (all threads; on a shared machine the steadier number), and the parts: exec (gets and
 * puts, checkpoints), root (hashing), flush (encoding into the batch), write (RocksDB),
 * and store reads (node-cache misses).
 *
 *   warm — the store object stays open, so the shared node cache keeps what earlier blocks
 *          and the fill loaded;
 *   cold — the store is reopened before every block (an empty node cache, as after a restart).
 * Each with and without `prefetchAccounts(senders and recipients)` first.
 *
 *   npx tsx bench/state.ts [--accounts 100000] [--blocks 10] [--transfers 500]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AccountState, Address } from '../src/protocol/types';
import type { Hex } from '../src/primitives/hex';
import { emptyAccount } from '../src/state/account';
import type { KvBatch, KvRange, KvStore } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';
import { openStore } from '../src/storage/rocks';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '100000' },
    blocks: { type: 'string', default: '10' },
    transfers: { type: 'string', default: '500' },
  },
});
const ACCOUNTS = Number(values.accounts);
const BLOCKS = Number(values.blocks);
const TRANSFERS = Number(values.transfers);

const addr = (i: number): Address =>
  `0x${(BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(40, '0').slice(-40)}`;
const account = (i: number): AccountState => ({ ...emptyAccount(), balance: BigInt(i) * 1_000_000n + 7n });

/** The store, counting reads (each one is a node the shared cache did not have). */
class CountingKv implements KvStore {
  gets = 0;
  constructor(private readonly inner: KvStore) {}
  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.gets++;
    return this.inner.get(key);
  }
  batch(): KvBatch {
    return this.inner.batch();
  }
  write(b: KvBatch): Promise<void> {
    return this.inner.write(b);
  }
  iterate(opts: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.inner.iterate(opts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

interface Split {
  total: number;
  cpu: number;
  prefetch: number;
  exec: number;
  root: number;
  flush: number;
  write: number;
  reads: number;
  nodes: number;
}

/** One block: `TRANSFERS` transfers between `ids` pairs, applyTx's reads and writes in its order. */
async function block(
  kv: CountingKv,
  root: Hex,
  ids: number[],
  prefetch: boolean,
): Promise<{ root: Hex; split: Split }> {
  const reads0 = kv.gets;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const state = await StateTrie.open(kv, root);
  if (prefetch) await state.prefetchAccounts(ids.map(addr));
  const t1 = performance.now();
  for (let j = 0; j + 1 < ids.length; j += 2) {
    const [from, to] = [addr(ids[j]), addr(ids[j + 1])];
    const s = (await state.getAccount(from)) ?? account(ids[j]); // sender checks, nonce
    await state.putAccount(from, { ...s, nonce: s.nonce + 1 });
    state.checkpoint(); // the handler
    const s2 = (await state.getAccount(from)) as AccountState;
    await state.putAccount(from, { ...s2, balance: s2.balance - 1n });
    const r = (await state.getAccount(to)) ?? account(ids[j + 1]);
    await state.putAccount(to, { ...r, balance: r.balance + 1n });
    await state.commit();
    const s3 = (await state.getAccount(from)) as AccountState; // fee
    await state.putAccount(from, { ...s3, energyHeight: s3.energyHeight + 1 });
  }
  const t2 = performance.now();
  state.root();
  const t3 = performance.now();
  const batch = kv.batch();
  const next = await state.flush(batch);
  const t4 = performance.now();
  await kv.write(batch);
  state.settle();
  const t5 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  return {
    root: next,
    split: {
      total: t5 - t0,
      cpu: (cpu.user + cpu.system) / 1000,
      prefetch: t1 - t0,
      exec: t2 - t1,
      root: t3 - t2,
      flush: t4 - t3,
      write: t5 - t4,
      reads: kv.gets - reads0,
      nodes: batch.size,
    },
  };
}

/** 2 × TRANSFERS account ids, spread over existing accounts, 10% new ones. */
function pick(seed: number): number[] {
  let x = seed >>> 0 || 1;
  const out: number[] = [];
  for (let j = 0; j < 2 * TRANSFERS; j++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push(j % 10 === 9 ? ACCOUNTS + seed * 2 * TRANSFERS + j : x % ACCOUNTS);
  }
  return out;
}

function report(label: string, splits: Split[]): void {
  const avg = (k: keyof Split) => splits.reduce((a, s) => a + s[k], 0) / splits.length;
  const sorted = splits.map((s) => s.total).sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(1);
  console.log(
    `${label}: ${f(avg('total'))} ms per block ` +
      `(median ${f(sorted[sorted.length >> 1])}, cpu ${f(avg('cpu'))}) — prefetch ${f(avg('prefetch'))}, ` +
      `exec ${f(avg('exec'))}, ` +
      `root ${f(avg('root'))}, flush ${f(avg('flush'))}, write ${f(avg('write'))}; ${avg('reads').toFixed(0)} ` +
      `store reads, ${avg('nodes').toFixed(0)} nodes written`,
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-state-'));
  try {
    let kv = new CountingKv(await openStore(dir));
    let state = await StateTrie.open(kv, null);
    const t0 = performance.now();
    for (let i = 0; i < ACCOUNTS; i++) {
      await state.putAccount(addr(i), account(i));
      if ((i + 1) % 5_000 === 0 || i === ACCOUNTS - 1) {
        const batch = kv.batch();
        const root = await state.flush(batch);
        await kv.write(batch);
        state.settle();
        state = await StateTrie.open(kv, root);
      }
    }
    const fillMs = performance.now() - t0;
    console.log(
      `fill: ${ACCOUNTS} accounts in ${(fillMs / 1000).toFixed(1)} s ` +
        `(${((ACCOUNTS / fillMs) * 1000).toFixed(0)} accounts/s, blocks of 5,000)`,
    );
    let root = state.root();
    let seed = 1;

    for (const prefetch of [false, true]) {
      const splits: Split[] = [];
      for (let b = 0; b < BLOCKS; b++) {
        const r = await block(kv, root, pick(seed++), prefetch);
        root = r.root;
        splits.push(r.split);
      }
      report(`${TRANSFERS} transfers, warm${prefetch ? ', prefetchAccounts first' : ''}`, splits);
    }

    for (const prefetch of [false, true]) {
      const splits: Split[] = [];
      for (let b = 0; b < BLOCKS; b++) {
        await kv.close();
        kv = new CountingKv(await openStore(dir));
        const r = await block(kv, root, pick(seed++), prefetch);
        root = r.root;
        splits.push(r.split);
      }
      report(`${TRANSFERS} transfers, cold${prefetch ? ', prefetchAccounts first' : ''}`, splits);
    }

    const proofState = await StateTrie.open(kv, root);
    const p0 = performance.now();
    for (let i = 0; i < 1_000; i++) await proofState.getAccount(addr((i * 7919) % ACCOUNTS));
    const p1 = performance.now();
    for (let i = 0; i < 200; i++) await proofState.proveAccount(addr((i * 104729) % ACCOUNTS));
    const p2 = performance.now();
    console.log(
      `reads: ${(1_000 / ((p1 - p0) / 1000)).toFixed(0)} ` +
        `getAccount/s, ${(200 / ((p2 - p1) / 1000)).toFixed(0)} proveAccount/s`,
    );
    await kv.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
