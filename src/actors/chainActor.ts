import type { Logger } from 'pino';
import { signHeader, txRootOf } from '../chain/block';
import { buildBlock } from '../chain/buildBlock';
import { MAX_TXS_PER_BLOCK, TREASURY_ADDRESS } from '../protocol/params';
import type { Address, Block, SignedTx } from '../protocol/types';
import { finalizedHeightFrom } from '../consensus/finality';
import type { HybridKeys } from '../crypto/keys';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ChainStore, Head } from '../storage/chainStore';
import type { ActorRef, Behavior } from './actorRef';
import type { ChainView } from '../api/chainView';
import type { Candidates, ChainMsg, MempoolMsg, MempoolReplies } from './protocol';

export interface ChainDeps {
  kv: KvStore;
  store: ChainStore;
  view: ChainView;
  mempool: ActorRef<MempoolMsg, MempoolReplies>;
  keys: HybridKeys;
  idleBlockMs: number;
  log: Logger;
  /** Observes each block's build + commit time in seconds (metrics). */
  onBlockProduced?: (seconds: number) => void;
}

/**
 * Producer and single writer of the chain. On each slot tick it builds a block when
 * transactions are pending, when included transactions still wait for finality, or when
 * the idle pace is due; then commits the block with its state nodes, indexes and head in
 * one atomic batch, publishes the new head and tells the mempool.
 */
export function chainBehavior(d: ChainDeps): Behavior<ChainMsg> {
  // Producers of the newest blocks, newest first, for the finality rule.
  const producers: Address[] = d.view.recent.slice(-64).reverse().map((s) => s.producer);
  let lastTxHeight = [...d.view.recent].reverse().find((s) => s.txCount > 0)?.height ?? 0;
  // Pool version whose candidates all failed to get in: no use re-trying until it changes.
  let barrenVersion = -1;

  async function produce(pending: SignedTx[][], now: number): Promise<number> {
    const started = performance.now();
    const parent = d.view.head;
    const height = parent.height + 1;
    const state = await StateTrie.open(d.kv, parent.stateRoot);
    // Load the block's likely accounts level by level in batched reads before executing.
    const likely = pending.flatMap((q) => q.slice(0, 4)).slice(0, MAX_TXS_PER_BLOCK);
    await state.prefetchAccounts([d.keys.address, TREASURY_ADDRESS, ...likely.flatMap((t) => (t.to ? [t.from, t.to] : [t.from]))]);
    const timestamp = Math.max(now, parent.timestamp + 1);
    // Yield between slices of the block so HTTP and verify-worker replies are not held up.
    const pause = () => new Promise<void>((r) => setImmediate(r));
    const tPrefetched = performance.now();
    const built = await buildBlock(state, pending, { height, timestamp, producer: d.keys.address, maxTxs: MAX_TXS_PER_BLOCK, pause });
    const tBuilt = performance.now();
    const batch = d.kv.batch();
    const stateRoot = await state.flush(batch);
    const tFlushed = performance.now();
    const header = signHeader(d.keys, {
      height, parentHash: parent.hash, timestamp, producer: d.keys.address,
      txRoot: txRootOf(built.txs), stateRoot, txCount: built.txs.length,
    });
    const block: Block = { header, txs: built.txs, results: built.results };
    const finalizedHeight = finalizedHeightFrom(height, [d.keys.address, ...producers], d.view.validators.length, parent.finalizedHeight);
    const head: Head = { height, hash: header.hash, stateRoot, finalizedHeight, timestamp: header.timestamp };
    const touched = [d.keys.address, TREASURY_ADDRESS, ...built.txs.flatMap((t) => (t.to ? [t.from, t.to] : [t.from]))];
    for (const r of built.results) if (r.vm?.contractAddress) touched.push(r.vm.contractAddress);
    const summary = d.store.putBlock(batch, block, head, await d.store.unseen(touched), await d.store.counters());
    const tIndexed = performance.now();
    await d.kv.write(batch);
    const tWritten = performance.now();
    state.settle();
    producers.unshift(d.keys.address);
    producers.length = Math.min(producers.length, 64);
    if (built.txs.length > 0) lastTxHeight = height;
    d.onBlockProduced?.((performance.now() - started) / 1000);
    d.view.publish(head, summary);
    d.mempool.send({ type: 'blockCommitted', height, hash: header.hash, included: built.txs.map((t) => t.id), dropped: built.dropped });
    d.log.info(
      {
        height, hash: header.hash, txs: built.txs.length, dropped: built.dropped.length, finalizedHeight, ms: Math.round(performance.now() - started),
        // Where the time went: state prefetch, execution, trie hashing, header + indexes, disk write.
        phases: { prefetch: Math.round(tPrefetched - started), execute: Math.round(tBuilt - tPrefetched), trie: Math.round(tFlushed - tBuilt), index: Math.round(tIndexed - tFlushed), write: Math.round(tWritten - tIndexed) },
      },
      'block committed',
    );
    return built.txs.length + built.dropped.length;
  }

  return {
    async handle(msg) {
      switch (msg.type) {
        case 'slotTick': {
          const c = await d.mempool.ask({ type: 'collectCandidates' });
          const head = d.view.head;
          const worthTrying = c.queues.length > 0 && c.version !== barrenVersion;
          const awaitingFinality = lastTxHeight > head.finalizedHeight;
          const idleDue = msg.now - head.timestamp >= d.idleBlockMs;
          if (!worthTrying && !awaitingFinality && !idleDue) return undefined;
          const moved = await produce(c.queues, msg.now);
          barrenVersion = moved === 0 ? c.version : -1;
          return undefined;
        }
      }
    },
  };
}
