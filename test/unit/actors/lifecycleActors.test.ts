import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { standaloneLifecycles } from '../../../src/actors/lifecycleActors';
import { txLifecycleTable } from '../../../src/actors/txLifecycleActor';
import { blockLifecycleTable } from '../../../src/actors/blockLifecycleActor';
import { receivedBlock } from '../../../src/machines/blockLifecycle';
import type { TxLifecycleEvent } from '../../../src/machines/txLifecycle';
import type { Hex } from '../../../src/primitives/hex';

const log = pino({ level: 'silent' });
const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => id(from + i));

/** What a store recorded: inclusions and undos per transaction, and the chain's blocks by hash. */
function fakeStore() {
  const events = new Map<Hex, TxLifecycleEvent[]>();
  const heights = new Map<Hex, number>();
  return {
    events,
    heights,
    txLifecycleEvents: async (tx: Hex) => events.get(tx) ?? [],
    txLocation: async () => undefined,
    summary: async () => undefined,
    heightOfHash: async (h: Hex) => heights.get(h),
  };
}

function world() {
  const store = fakeStore();
  const head = { finalizedHeight: 0 };
  const a = standaloneLifecycles({ store: store as never, finalizedHeight: () => head.finalizedHeight, log });
  const tx = async (k: Hex) => (await a.txs.ask({ type: 'get', id: k }))?.value;
  return { store, head, a, tx };
}

describe('lifecycle table', () => {
  it(
    'keys stepped together share one snapshot; ' +
      'finality moves each group once; finished keys leave or stay as kept',
    () => {
      const t = txLifecycleTable();
      const block = ids(0, 500);
      t.apply(block, { type: 'INCLUDED', height: 7, blockHash: id(7) });
      expect(new Set(block.map((k) => t.get(k))).size).toBe(1);
      expect(t.counts()).toEqual({ included: 500 });
      t.apply(ids(1_000, 3), { type: 'ADMITTED' });
      expect(t.counts()).toEqual({ included: 500, inMempool: 3 });
      // Below the block: nothing moves. At it: the whole group is final, and leaves (the store answers it).
      expect(t.broadcast({ type: 'FINALIZED', finalizedHeight: 6 })).toBe(0);
      expect(t.broadcast({ type: 'FINALIZED', finalizedHeight: 7 })).toBe(500);
      expect(t.get(id(0))).toBeUndefined();
      expect(t.counts()).toEqual({ inMempool: 3 });
      // A drop is kept (nothing else remembers it), with its reason.
      t.apply([id(1_000)], { type: 'DROPPED', reason: 'mempool lifetime reached' });
      expect(t.get(id(1_000))?.context.reason).toBe('mempool lifetime reached');
      expect(t.size).toEqual({ open: 2, finished: 1 });
    },
  );

  it('holds a bounded number of finished instances (a flood of forged blocks costs bounded memory)', () => {
    const t = blockLifecycleTable();
    for (let i = 0; i < 3_000; i++) {
      t.set(id(i), receivedBlock(i));
      t.apply([id(i)], { type: 'REJECTED', reason: 'invalid block signature' });
    }
    expect(t.size).toEqual({ open: 0, finished: 1_024 });
    expect(t.get(id(0))).toBeUndefined();
    expect(t.get(id(2_999))?.value).toBe('rejected');
  });
});

describe('transaction lifecycle actor', () => {
  it(
    'follows admission, inclusion, undo, ' + 'readmission and finality as the mempool and consensus report them',
    async () => {
      const w = world();
      const [t1, t2] = [id(1), id(2)];
      w.a.txs.send({ type: 'admitted', ids: [t1] });
      w.a.txs.send({ type: 'admitted', ids: [t2] });
      expect(await w.tx(t1)).toBe('inMempool');
      w.a.txs.send({ type: 'included', height: 1, hash: id(101), ids: [t1, t2] });
      expect(await w.tx(t1)).toBe('included');
      w.a.txs.send({ type: 'undone', ids: [t1, t2] });
      expect(await w.tx(t2)).toBe('undone');
      w.a.txs.send({ type: 'admitted', ids: [t1] });
      w.a.txs.send({ type: 'included', height: 2, hash: id(102), ids: [t1] });
      w.a.txs.send({ type: 'finalized', height: 2 });
      // Final: the table lets it go; the store's record answers (here: it says included at 2).
      w.store.events.set(t1, [{ type: 'INCLUDED', height: 2, blockHash: id(102) }]);
      w.head.finalizedHeight = 2;
      expect(await w.tx(t1)).toBe('finalized');
      expect(await w.tx(t2)).toBe('undone');
      expect(await w.a.txs.ask({ type: 'stats' })).toEqual({
        machine: 'txLifecycle',
        open: { undone: 1 },
        finished: 0,
      });
    },
  );

  it('an undo of an inclusion it no longer holds (after a restart) is read back from the store first', async () => {
    const w = world();
    const t = id(9);
    w.store.events.set(t, [{ type: 'INCLUDED', height: 4, blockHash: id(104) }]);
    w.a.txs.send({ type: 'undone', ids: [t] });
    expect(await w.tx(t)).toBe('undone');
    w.a.txs.send({ type: 'admitted', ids: [t] });
    expect(await w.tx(t)).toBe('inMempool');
  });

  it('keeps why a transaction was dropped, with its code', async () => {
    const w = world();
    w.a.txs.send({ type: 'admitted', ids: [id(3)] });
    w.a.txs.send({ type: 'dropped', drops: [{ id: id(3), reason: 'invalid signature', code: 'TX_BAD_SIGNATURE' }] });
    const s = await w.a.txs.ask({ type: 'get', id: id(3) });
    expect(s?.value).toBe('dropped');
    expect(s?.context).toMatchObject({ reason: 'invalid signature', code: 'TX_BAD_SIGNATURE' });
    expect(await w.a.txs.ask({ type: 'get', id: id(4) })).toBeUndefined();
  });

  it("a transaction this node's mempool dropped that a peer's block includes anyway is included, then final", async () => {
    const w = world();
    w.a.txs.send({ type: 'admitted', ids: [id(5)] });
    w.a.txs.send({
      type: 'dropped',
      drops: [{ id: id(5), reason: 'evicted from the full mempool', code: 'TX_EVICTED' }],
    });
    expect(await w.tx(id(5))).toBe('dropped');
    w.a.txs.send({ type: 'included', height: 9, hash: id(109), ids: [id(5)] });
    const s = await w.a.txs.ask({ type: 'get', id: id(5) });
    expect(s?.value).toBe('included');
    expect(s?.context).toMatchObject({ blockHeight: 9, reason: null });
    w.a.txs.send({ type: 'finalized', height: 9 });
    w.head.finalizedHeight = 9;
    expect(await w.tx(id(5))).not.toBe('dropped');
  });
});

describe('block lifecycle actor', () => {
  it(
    'follows the importer, the producer and consensus; ' +
      'explains blocks the chain does not hold; reads the chain back',
    async () => {
      const w = world();
      const step = (
        hash: Hex,
        height: number,
        event: Parameters<typeof w.a.blocks.send>[0] extends infer M
          ? M extends { type: 'step'; event: infer E }
            ? E
            : never
          : never,
      ) => w.a.blocks.send({ type: 'step', hash, height, event });
      const get = (hash: Hex) => w.a.blocks.ask({ type: 'get', hash });
      // A peer's block: verified, executed, committed, final.
      step(id(1), 1, { type: 'VERIFIED' });
      expect(await get(id(1))).toEqual({ state: 'verified', height: 1 });
      step(id(1), 1, { type: 'EXECUTED' });
      step(id(1), 1, { type: 'COMMITTED' });
      expect(await get(id(1))).toEqual({ state: 'committed', height: 1 });
      // This node's own: built, committed; then undone by a reorganization.
      step(id(2), 2, { type: 'BUILT' });
      step(id(2), 2, { type: 'COMMITTED' });
      step(id(2), 2, { type: 'UNDONE' });
      expect(await get(id(2))).toEqual({ state: 'undone', height: 2 });
      // A forged one: rejected with the reason; one whose parent is unknown: orphaned.
      step(id(3), 2, { type: 'REJECTED', reason: 'invalid block signature' });
      expect(await get(id(3))).toEqual({ state: 'rejected', height: 2, reason: 'invalid block signature' });
      step(id(4), 9, { type: 'ORPHANED' });
      expect((await get(id(4)))?.state).toBe('orphaned');
      w.a.blocks.send({ type: 'finalized', height: 1 });
      w.store.heights.set(id(1), 1);
      w.head.finalizedHeight = 1;
      expect(await get(id(1))).toEqual({ state: 'finalized', height: 1 });
      // A block of the stored chain it never met (a restart): committed or final by the finalized height.
      w.store.heights.set(id(5), 3);
      expect(await get(id(5))).toEqual({ state: 'committed', height: 3 });
      expect(await get(id(6))).toBeUndefined();
    },
  );
});
