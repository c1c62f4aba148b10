/**
 * The VM call pool (vm/callPool.ts) on real worker threads over an in-memory store: calls
 * read the state at the root they name, a call over its wall-clock budget is stopped (its
 * worker replaced, the next call served), a full queue refuses at once, and waiting calls
 * are served one client after another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { fromHex, type Hex } from '../../../src/primitives/hex';
import { newAccount } from '../../../src/protocol/accounts';
import type { Address } from '../../../src/protocol/types';
import { VmCallPool } from '../../../src/vm/callPool';
import type { VmMessage, VmOutcome } from '../../../src/vm/execute';
import { baseToWei } from '../../../src/vm/units';

const alice: Address = '0x00000000000000000000000000000000000a11ce';
const ctx = {
  height: 2,
  timestamp: 1_700_000_000_000,
  producer: '0x00000000000000000000000000000000000000cc' as Address,
};
const call = (input: Hex, gasLimit = 5_190_000n, from = alice): VmMessage => ({
  from,
  to: null,
  valueWei: 0n,
  input: fromHex(input),
  gasLimit,
  gasPrice: 0n,
});
const LOOP: Hex = '0x5b600056';
/** Init code returning the caller's balance (SELFBALANCE of the new contract is 0; BALANCE(CALLER) = 0x31 of 0x33). */
const CALLER_BALANCE: Hex = '0x333160005260206000f3';

let kv: MemoryKv;
let root: Hex;
let pool: VmCallPool;

beforeAll(async () => {
  kv = new MemoryKv();
  const s = await StateTrie.open(kv, null);
  await s.putAccount(alice, { ...newAccount(1), balance: 7n });
  const batch = kv.batch();
  root = await s.flush(batch);
  await kv.write(batch);
  s.settle();
  pool = await VmCallPool.start(kv, { workers: 1, timeoutMs: 1_500, maxQueue: 8 });
}, 60_000);
afterAll(async () => {
  await pool?.close();
});

describe('VmCallPool', () => {
  it('runs a call on the state at the root it names, read through the main thread', async () => {
    const out = await pool.call(root, call(CALLER_BALANCE), ctx);
    expect(out.status).toBe('success');
    expect(BigInt(out.returnData)).toBe(baseToWei(7n));
  });

  it('stops a call over its wall-clock budget with a clear error and serves the next one', async () => {
    const tight = await VmCallPool.start(kv, { workers: 1, timeoutMs: 25, maxQueue: 2 });
    try {
      // A 5,190,000-gas loop runs 55–150 ms here (35,000–90,000 gas/ms with the inline jump
      // loop, by the JIT's mood): never within 25 ms. (At 60 ms a fast process once finished it.)
      await expect(tight.call(root, call(LOOP), ctx)).rejects.toMatchObject({
        code: 'VM_CALL_TIMEOUT',
        message: 'execution aborted (timeout = 25 ms)',
      });
      expect(tight.stats()).toMatchObject({ timeouts: 1, crashes: 0 });
      // Replaced: a new worker starts and serves the next call. Its budget is lifted first: a
      // fresh worker at nice 10 beside CPU-bound neighbours cannot answer within 25 ms, and each
      // miss would restart it (two CPU burners kept it missing for 120 s). What is checked is
      // that the pool replaced the stopped worker and goes on serving, not the 25 ms budget.
      const end = Date.now() + 60_000;
      while (tight.stats().alive < 1) {
        if (Date.now() > end) throw new Error('no replacement worker within the deadline');
        await new Promise((r) => setTimeout(r, 20));
      }
      Object.assign(tight, { timeoutMs: 60_000 });
      const out: VmOutcome = await tight.call(root, call(CALLER_BALANCE), ctx);
      expect(out.status).toBe('success');
    } finally {
      await tight.close();
    }
  }, 130_000);

  it('a call made while the workers still start waits for ' +
    "them, not the busy wait (a node's first seconds)", async () => {
    // Each worker loads the whole VM: on a loaded machine that took longer than the 5 s busy
    // wait, and a node's first eth_call failed "all workers busy" (CI, issue 23's price test).
    const young = VmCallPool.create(kv, { workers: 1, timeoutMs: 300, maxQueue: 2 });
    try {
      expect(young.stats().alive).toBe(0); // nothing started yet: the call below waits for the start
      let out: VmOutcome | undefined;
      for (let tries = 0; !out; tries++) {
        out = await young.call(root, call(CALLER_BALANCE), ctx).catch((e) => {
          if (e.code !== 'VM_CALL_TIMEOUT' || tries >= 5) throw e; // a run starved past 300 ms on a busy machine
          return undefined;
        });
      }
      expect(out.status).toBe('success');
      expect(young.stats()).toMatchObject({ busy: 0 });
    } finally {
      await young.close();
    }
  }, 60_000);

  it('a call waits for the start at most startWaitMs, with an error that says so', async () => {
    const young = VmCallPool.create(kv, { workers: 1, timeoutMs: 1, startWaitMs: 1, maxQueue: 2 });
    try {
      await expect(young.call(root, call(CALLER_BALANCE), ctx)).rejects.toMatchObject({
        code: 'VM_CALL_BUSY',
        message: 'VM call not started within 1 ms (no VM call worker started): retry later',
      });
    } finally {
      await young.close();
    }
  });

  it('refuses at once beyond the queue, and serves waiting calls one client after another', async () => {
    // A budget no run here reaches, however busy the machine: this is about order only.
    const fair = await VmCallPool.start(kv, { workers: 1, timeoutMs: 120_000, maxQueue: 8 });
    try {
      const order: string[] = [];
      const job = (client: string, tag: string) =>
        fair.call(root, call(LOOP, 100_000n), ctx, client).then(
          () => order.push(tag),
          (e) => order.push(`${tag}:${e.code}`),
        );
      const running = job('a', 'a0'); // takes the worker
      const jobs = [job('a', 'a1'), job('a', 'a2'), job('a', 'a3')]; // a's share: maxQueue / 4 = 2 waiting
      jobs.push(job('b', 'b1'));
      await Promise.all([running, ...jobs]);
      expect(order[0]).toBe('a3:VM_CALL_BUSY'); // refused at once
      // b waited behind one of a's calls, not behind all of them.
      expect(order.slice(1)).toEqual(['a0', 'a1', 'b1', 'a2']);
    } finally {
      await fair.close();
    }
  }, 120_000);
});
