import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ActorRef } from '../../../src/actors/actorRef';
import { standaloneConsensus } from '../../../src/actors/consensus/consensusActors';
import { mempoolBehavior } from '../../../src/actors/mempoolActor';
import { standaloneLifecycles } from '../../../src/actors/lifecycleActors';
import type {
  ConsensusMsg,
  ConsensusReplies,
  MempoolLookup,
  MempoolMsg,
  MempoolReplies,
} from '../../../src/actors/protocol';
import { ChainView } from '../../../src/api/chainView';
import { ChainReader } from '../../../src/api/chainReader';
import { HeadAccounts } from '../../../src/api/headAccounts';
import { pqKeyHashOf } from '../../../src/crypto/txSigning';
import { devAccounts, devGenesis } from '../../../src/chain/devnet';
import { signTx } from '../../../src/chain/envelope';
import { applyGenesis } from '../../../src/chain/genesis';
import type { HybridKeys } from '../../../src/crypto/keys';
import { TxPool } from '../../../src/mempool/pool';
import type { Head } from '../../../src/protocol/chain';
import { TREASURY_ADDRESS } from '../../../src/protocol/params';
import type { Hex } from '../../../src/primitives/hex';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { ChainStore } from '../../../src/storage/chainStore';
import { SigningGuard } from '../../../src/storage/signingGuard';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { scratchDirs } from '../../helpers/scratch';
import { realVerifier } from '../../helpers/verifier';

const scratch = scratchDirs();

const IDLE_MS = 1_000;
const log = pino({ level: 'silent' });

/** A chain at genesis in memory, the mempool and consensus actors over it, and a clock the test moves. */
async function world() {
  const dev = devGenesis(3);
  const [alice, bob] = devAccounts(3).map((a) => a.keys);
  const kv = new MemoryKv();
  const store = new ChainStore(kv);
  const state = await StateTrie.open(kv, null);
  const genesis = await applyGenesis(state, dev.spec);
  const batch = kv.batch();
  const stateRoot = await state.flush(batch);
  const head: Head = {
    height: 0,
    hash: genesis.header.hash,
    stateRoot,
    finalizedHeight: 0,
    timestamp: genesis.header.timestamp,
  };
  store.putBlock(batch, genesis, head, [...dev.spec.accounts.map((a) => a.address), TREASURY_ADDRESS]);
  await kv.write(batch);
  state.settle();
  const view = new ChainView(head, [dev.validator.address], await store.summariesDesc(0, 1));
  const clock = { now: genesis.header.timestamp + 10 };
  const heads: Head[] = [];
  view.onHead((h) => heads.push(h));

  const headAccounts = new HeadAccounts(kv, view);
  const pool = new TxPool({ cap: 100, lifetimeMs: 60_000, maxNonceGap: 4 });
  const mempool = new ActorRef<MempoolMsg, MempoolReplies>('mempool');
  const lifecycles = standaloneLifecycles({ store, finalizedHeight: () => view.head.finalizedHeight, log });
  mempool.attach(
    mempoolBehavior({
      pool,
      recent: new Map<Hex, MempoolLookup>(),
      readAccount: (a) => headAccounts.read(a),
      inChain: async (id) => (await store.txLocation(id)) !== undefined,
      now: () => clock.now,
      log,
      lifecycles,
    }),
  );
  const chain = new ActorRef<ConsensusMsg, ConsensusReplies>('chain');
  const guard = await SigningGuard.open(join(scratch('cairn-guard-'), 'signing-guard.json'));
  // One-millisecond slots: every tick of the fake clock is a new slot of the single validator.
  chain.attach(
    standaloneConsensus({
      kv,
      store,
      view,
      mempool,
      keys: dev.validator,
      network: DEV_NETWORK,
      idleBlockMs: IDLE_MS,
      slotMs: 1,
      verifier: realVerifier,
      guard,
      log,
      lifecycles,
    }),
  );

  let ts = clock.now;
  const transfer = (keys: HybridKeys, nonce: number, amount = 1_000n) =>
    signTx(keys, { type: 'TRANSFER', to: bob.address, amount, nonce, fee: 1_000_000n, timestamp: ++ts }, DEV_NETWORK);
  const admit = (tx: ReturnType<typeof transfer>) => mempool.ask({ type: 'admit', tx, keyHash: pqKeyHashOf(tx) });
  const tick = () => chain.ask({ type: 'slotTick', now: clock.now });
  const lifecycle = (id: Hex) => lifecycles.txs.ask({ type: 'get', id });
  return {
    kv,
    store,
    view,
    heads,
    clock,
    mempool,
    chain,
    alice,
    bob,
    transfer,
    admit,
    tick,
    pool,
    lifecycles,
    lifecycle,
  };
}

describe('mempool actor', () => {
  it(
    'admits by the head state, answers nextNonce, lookup, ' + 'list and stats, and refuses with the spec reasons',
    async () => {
      const w = await world();
      const t0 = w.transfer(w.alice, 0);
      const t1 = w.transfer(w.alice, 1);
      expect(await w.admit(t0)).toEqual({ accepted: true, id: t0.id });
      expect(await w.admit(t1)).toEqual({ accepted: true, id: t1.id });
      expect(await w.admit(w.transfer(w.alice, 1, 5n))).toMatchObject({
        accepted: false,
        reason: 'nonce already used',
      });
      expect(await w.admit(w.transfer(w.alice, 9))).toMatchObject({ accepted: false, reason: 'nonce too far ahead' });
      expect(await w.admit(t0)).toMatchObject({ accepted: false, reason: 'transaction already known' });
      expect(await w.mempool.ask({ type: 'nextNonce', address: w.alice.address, accountNonce: 0 })).toBe(2);
      const found = await w.mempool.ask({ type: 'lookup', id: t1.id });
      expect(found?.tx.id).toBe(t1.id);
      expect(found?.pending).toBe(true);
      expect((await w.lifecycle(t1.id))?.value).toBe('inMempool');
      expect(await w.mempool.ask({ type: 'lookup', id: `0x${'00'.repeat(32)}` })).toBeUndefined();
      const list = await w.mempool.ask({ type: 'list', limit: 10 });
      expect(list.size).toBe(2);
      expect(list.entries.map((e) => e.tx.id)).toEqual([t0.id, t1.id]);
      expect(await w.mempool.ask({ type: 'stats' })).toEqual({ size: 2, cap: 100, admitted: 2 });
      const c = await w.mempool.ask({ type: 'collectCandidates' });
      expect(c.queues.map((q) => q.map((t) => t.nonce))).toEqual([[0, 1]]);
    },
  );

  it('expires transactions past their lifetime and remembers why', async () => {
    const w = await world();
    const t = w.transfer(w.alice, 0);
    await w.admit(t);
    await w.mempool.ask({ type: 'expire', now: w.clock.now + 60_001 });
    const gone = await w.mempool.ask({ type: 'lookup', id: t.id });
    expect(gone?.pending).toBe(false);
    expect((await w.lifecycle(t.id))?.value).toBe('dropped');
    expect((await w.lifecycle(t.id))?.context.reason).toBe('mempool lifetime reached');
    expect((await w.mempool.ask({ type: 'stats' })).size).toBe(0);
  });
});

describe('consensus actor', () => {
  it(
    'produces a block from the pending transactions, ' + 'commits it, publishes the head and tells the mempool',
    async () => {
      const w = await world();
      const txs = [w.transfer(w.alice, 0), w.transfer(w.alice, 1), w.transfer(w.bob, 0)];
      for (const t of txs) await w.admit(t);
      await w.tick();
      expect(w.view.head.height).toBe(1);
      expect(w.heads.map((h) => h.height)).toEqual([1]);
      expect(Object.isFrozen(w.view.head)).toBe(true);
      const block = (await w.store.block(1))!;
      expect(block.txs.map((t) => t.id).sort()).toEqual(txs.map((t) => t.id).sort());
      expect(block.results.every((r) => r.status === 'success')).toBe(true);
      expect(block.header.stateRoot).toBe(w.view.head.stateRoot);
      expect((await w.store.head())?.hash).toBe(block.header.hash);
      expect(await w.store.txLocation(txs[2].id)).toBeDefined();
      // The mempool took blockCommitted before this question (mailbox order).
      expect((await w.mempool.ask({ type: 'stats' })).size).toBe(0);
      // Included transactions wait for finality: the next tick builds a block on top even with
      // nothing pending and the idle pace not due, and that block finalizes the first.
      expect(w.view.head.finalizedHeight).toBe(0);
      await w.tick();
      expect(w.view.head.height).toBe(2);
      expect(w.view.head.finalizedHeight).toBe(1);
      await w.tick();
      expect(w.view.head.height).toBe(2); // nothing pending, nothing awaiting finality, idle pace not due
    },
  );

  it(
    'keeps the idle pace: no block while nothing is pending and the pace is not due, ' + 'an empty block when it is',
    async () => {
      const w = await world();
      const started = w.view.head.timestamp + 5 * IDLE_MS; // the node starts on an old head
      w.clock.now = started;
      await w.tick();
      expect(w.view.head.height).toBe(0); // idle time counts from the start at the earliest
      w.clock.now = started + IDLE_MS - 1;
      await w.tick();
      expect(w.view.head.height).toBe(0);
      w.clock.now = started + IDLE_MS;
      await w.tick();
      expect(w.view.head.height).toBe(1);
      expect((await w.store.block(1))!.txs).toEqual([]);
      expect(w.view.head.timestamp).toBe(w.clock.now);
      // From then on the pace counts from the head.
      w.clock.now = w.view.head.timestamp + IDLE_MS - 1;
      await w.tick();
      expect(w.view.head.height).toBe(1);
      w.clock.now = w.view.head.timestamp + IDLE_MS;
      await w.tick();
      expect(w.view.head.height).toBe(2);
    },
  );

  it(
    'drops what can never be included, tells the mempool why, ' + 'and does not retry an unchanged barren pool',
    async () => {
      const w = await world();
      // Same secp256k1 key (same address), another ML-DSA key: the first transaction binds its
      // key, so the second can never be valid ('invalid signature'), though admission could not know.
      const other = devAccounts(3)[2].keys;
      const rogue: HybridKeys = { ...w.alice, mldsa44: other.mldsa44 };
      const good = w.transfer(w.alice, 0);
      const bad = w.transfer(rogue, 1);
      await w.admit(good);
      expect(await w.admit(bad)).toMatchObject({ accepted: true });
      await w.tick();
      const block = (await w.store.block(1))!;
      expect(block.txs.map((t) => t.id)).toEqual([good.id]);
      const dropped = await w.mempool.ask({ type: 'lookup', id: bad.id });
      expect(dropped?.pending).toBe(false);
      expect((await w.lifecycle(bad.id))?.value).toBe('dropped');
      expect((await w.lifecycle(bad.id))?.context.reason).toBe('invalid signature');

      // A transaction that cannot run yet (a nonce gap) leaves the pool barren: one try, then
      // no block until the pool changes or the idle pace is due.
      expect(await w.admit(w.transfer(w.bob, 2))).toMatchObject({ accepted: true });
      await w.tick();
      expect(w.view.head.height).toBe(2); // tried once: an empty block
      await w.tick();
      await w.tick();
      expect(w.view.head.height).toBe(2); // same pool version: not retried
      expect(await w.admit(w.transfer(w.bob, 0))).toMatchObject({ accepted: true });
      await w.tick();
      expect(w.view.head.height).toBe(3);
      expect((await w.store.block(3))!.txs.map((t) => t.nonce)).toEqual([0]);
    },
  );
});

/** The API's reader over a test world (its view, or another one over the same world). */
const readerOf = (w: Awaited<ReturnType<typeof world>>, view = w.view) =>
  new ChainReader({ kv: w.kv, store: w.store, view, mempool: w.mempool, lifecycles: w.lifecycles });

describe('transaction lifecycle from recorded events', () => {
  it('/tx/:id reads included, then finalized, and undone after its block is taken back', async () => {
    const w = await world();
    const reader = readerOf(w);
    const t = w.transfer(w.alice, 0);
    await w.admit(t);
    expect(await reader.tx(t.id)).toMatchObject({ status: 'pending', lifecycle: 'inMempool' });
    await w.tick();
    expect(await reader.tx(t.id)).toMatchObject({ status: 'included', lifecycle: 'included', blockHeight: 1 });
    // A reorganization takes block 1 back before it is final.
    const batch = w.kv.batch();
    const restored = await w.store.undoBlock(batch, 1);
    await w.kv.write(batch);
    w.view.publish(restored);
    w.lifecycles.txs.send({ type: 'undone', ids: [t.id] }); // as the consensus actor does when it undoes a block
    expect(await reader.tx(t.id)).toMatchObject({ id: t.id, status: 'undone', lifecycle: 'undone' });
    expect(await w.store.txLocation(t.id)).toBeUndefined();
  });

  it('reports finalized once the finalized height reaches the block', async () => {
    const w = await world();
    const reader = readerOf(w);
    const t = w.transfer(w.alice, 0);
    await w.admit(t);
    await w.tick();
    await w.tick();
    expect(await reader.tx(t.id)).toMatchObject({ status: 'finalized', lifecycle: 'finalized' });
    expect((await reader.recentTxs(5))[0]).toMatchObject({ id: t.id, status: 'finalized' });
  });

  it('names no block for a transaction whose block is stored but whose head is not published yet', async () => {
    const w = await world();
    const genesis = w.view.head;
    // The reader's view still at genesis: the moment between the block's write and the head's publication.
    const lagging = Object.create(w.view, { head: { get: () => genesis } }) as typeof w.view;
    const stale = readerOf(w, lagging);
    const live = readerOf(w);
    const t = w.transfer(w.alice, 0);
    await w.admit(t);
    await w.tick();
    expect(await w.store.txLocation(t.id)).toEqual({ height: 1, index: 0 });
    // A client told "in block 1" would read block 1's state at a head that does not have it yet.
    expect((await stale.tx(t.id))?.blockHeight).toBeUndefined();
    expect(await live.tx(t.id)).toMatchObject({ status: 'included', blockHeight: 1 });
  });
});
