/**
 * State trie throughput over RocksDB: accounts/s for read+put+flush+write of blocks that
 * touch ~1,000 accounts (a block of 500 transfers) on a state with 100k existing accounts.
 *
 *   npx tsx bench/state.ts [--accounts 100000] [--blocks 20] [--touch 1000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AccountState, Address } from '../src/chain/types';
import type { Hex } from '../src/primitives/hex';
import { emptyAccount } from '../src/state/account';
import type { KvStore } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';
import { openStore } from '../src/storage/rocks';

const { values } = parseArgs({
  options: { accounts: { type: 'string', default: '100000' }, blocks: { type: 'string', default: '20' }, touch: { type: 'string', default: '1000' } },
});
const ACCOUNTS = Number(values.accounts);
const BLOCKS = Number(values.blocks);
const TOUCH = Number(values.touch);

const addr = (i: number): Address => `0x${(BigInt(i) * 0x9e3779b97f4a7c15n).toString(16).padStart(40, '0').slice(-40)}`;
const account = (i: number, nonce: number): AccountState => ({ ...emptyAccount(), balance: BigInt(i) * 1_000_000n + 7n, nonce });

interface Split {
  exec: number;
  flush: number;
  write: number;
  nodes: number;
}

/** One block: read and rewrite `touch` accounts (a fresh trie per block, as the chain actor does). */
async function block(kv: KvStore, root: Hex, ids: number[], nonce: number, prefetch: boolean): Promise<{ root: Hex; split: Split }> {
  const t0 = performance.now();
  const state = await StateTrie.open(kv, root);
  if (prefetch) await state.prefetchAccounts(ids.map(addr));
  for (const i of ids) {
    const a = (await state.getAccount(addr(i))) ?? account(i, 0);
    await state.putAccount(addr(i), { ...a, nonce, balance: a.balance + 1n });
  }
  const t1 = performance.now();
  const batch = kv.batch();
  const next = await state.flush(batch);
  const t2 = performance.now();
  await kv.write(batch);
  state.settle();
  const t3 = performance.now();
  return { root: next, split: { exec: t1 - t0, flush: t2 - t1, write: t3 - t2, nodes: batch.size } };
}

/** 500 transfers the way applyTx runs them: sender fee+nonce write, then debit and credit. */
async function transfers(kv: KvStore, root: Hex, ids: number[], nonce: number, prefetch: boolean): Promise<{ root: Hex; ms: number }> {
  const t0 = performance.now();
  const state = await StateTrie.open(kv, root);
  if (prefetch) await state.prefetchAccounts(ids.map(addr));
  for (let j = 0; j + 1 < ids.length; j += 2) {
    const [from, to] = [addr(ids[j]), addr(ids[j + 1])];
    const s = (await state.getAccount(from)) ?? account(ids[j], 0);
    await state.putAccount(from, { ...s, nonce });
    state.checkpoint();
    const s2 = (await state.getAccount(from)) as AccountState;
    await state.putAccount(from, { ...s2, balance: s2.balance - 1n });
    const r = (await state.getAccount(to)) ?? account(ids[j + 1], 0);
    await state.putAccount(to, { ...r, balance: r.balance + 1n });
    await state.commit();
  }
  const batch = kv.batch();
  const next = await state.flush(batch);
  await kv.write(batch);
  state.settle();
  return { root: next, ms: performance.now() - t0 };
}

function pick(n: number, seed: number): number[] {
  // Deterministic spread over existing accounts, 10% new ones.
  let x = seed >>> 0 || 1;
  const out: number[] = [];
  for (let j = 0; j < n; j++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push(j % 10 === 9 ? ACCOUNTS + seed * n + j : x % ACCOUNTS);
  }
  return out;
}

async function run(kv: KvStore, root: Hex, label: string, seed0: number, prefetch: boolean): Promise<Hex> {
  const total: Split = { exec: 0, flush: 0, write: 0, nodes: 0 };
  const t0 = performance.now();
  for (let b = 0; b < BLOCKS; b++) {
    const r = await block(kv, root, pick(TOUCH, seed0 + b), seed0 + b, prefetch);
    root = r.root;
    for (const k of ['exec', 'flush', 'write', 'nodes'] as const) total[k] += r.split[k];
  }
  const ms = performance.now() - t0;
  const per = (v: number) => (v / BLOCKS).toFixed(1);
  console.log(
    `${label}: ${((BLOCKS * TOUCH) / (ms / 1000)).toFixed(0)} accounts/s — per block of ${TOUCH}: ` +
      `${per(ms)} ms (get+put ${per(total.exec)}, flush ${per(total.flush)}, write ${per(total.write)}), ${per(total.nodes)} nodes written`,
  );
  return root;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-state-'));
  try {
    let kv = await openStore(dir);
    let state = await StateTrie.open(kv, null);
    const t0 = performance.now();
    for (let i = 0; i < ACCOUNTS; i++) {
      await state.putAccount(addr(i), account(i, 0));
      if ((i + 1) % 5_000 === 0 || i === ACCOUNTS - 1) {
        const batch = kv.batch();
        const root = await state.flush(batch);
        await kv.write(batch);
        state.settle();
        state = await StateTrie.open(kv, root);
      }
    }
    const fillMs = performance.now() - t0;
    console.log(`fill: ${ACCOUNTS} accounts in ${(fillMs / 1000).toFixed(1)} s (${((ACCOUNTS / fillMs) * 1000).toFixed(0)} accounts/s, blocks of 5,000)`);

    let root = await run(kv, state.root(), 'warm cache', 1, false);
    root = await run(kv, root, 'warm cache, prefetchAccounts first', 100, true);
    // Reopen: a new store object starts with an empty node cache, as after a restart.
    await kv.close();
    kv = await openStore(dir);
    root = await run(kv, root, 'cold cache (after reopen)', 1_000, false);

    for (const prefetch of [false, true]) {
      let ms = 0;
      for (let b = 0; b < BLOCKS; b++) {
        const seed = (prefetch ? 7_000 : 5_000) + b;
        const r = await transfers(kv, root, pick(TOUCH, seed), seed, prefetch);
        root = r.root;
        ms += r.ms;
      }
      console.log(`blocks of ${TOUCH / 2} transfers (applyTx pattern: 3 gets, 3 puts each)${prefetch ? ', prefetchAccounts first' : ''}: ${(ms / BLOCKS).toFixed(1)} ms per block`);
    }

    const proofState = await StateTrie.open(kv, root);
    const p0 = performance.now();
    for (let i = 0; i < 1_000; i++) await proofState.getAccount(addr((i * 7919) % ACCOUNTS));
    const p1 = performance.now();
    for (let i = 0; i < 200; i++) await proofState.proveAccount(addr((i * 104729) % ACCOUNTS));
    const p2 = performance.now();
    console.log(`reads: ${(1_000 / ((p1 - p0) / 1000)).toFixed(0)} getAccount/s, ${(200 / ((p2 - p1) / 1000)).toFixed(0)} proveAccount/s`);
    await kv.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
