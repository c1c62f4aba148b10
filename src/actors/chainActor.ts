import type { Logger } from 'pino';
import { sealBlock } from '../chain/block';
import { buildBlock } from '../chain/buildBlock';
import { orderedCandidates } from '../mempool/senderHeap';
import { MAX_TXS_PER_BLOCK, TREASURY_ADDRESS } from '../protocol/params';
import type { SignedTx } from '../protocol/types';
import type { HybridKeys } from '../crypto/keys';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ActorRef, Behavior } from './actorRef';
import { createBlockCommitter, type CommitDeps } from './commitBlock';
import type { ChainMsg, MempoolMsg, MempoolReplies } from './protocol';

export interface ChainDeps extends CommitDeps {
  kv: KvStore;
  mempool: ActorRef<MempoolMsg, MempoolReplies>;
  keys: HybridKeys;
  idleBlockMs: number;
  log: Logger;
  /** Observes each block's build + commit time in seconds (metrics). */
  onBlockProduced?: (seconds: number) => void;
}

/** Yield between slices of the block so HTTP and verify-worker replies are not held up. */
const pause = () => new Promise<void>((r) => setImmediate(r));

/**
 * Producer and single writer of the chain. On each slot tick it builds a block when
 * transactions are pending, when included transactions still wait for finality, or when
 * the idle pace is due: the body is built by chain/ (pure), sealed with this node's keys,
 * and committed by commitBlock (the one commit path block import will share).
 */
export function chainBehavior(d: ChainDeps): Behavior<ChainMsg> {
  const commitBlock = createBlockCommitter(d);
  let lastTxHeight = [...d.view.recent].reverse().find((s) => s.txCount > 0)?.height ?? 0;
  // Pool version whose candidates all failed to get in: no use re-trying until it changes.
  let barrenVersion = -1;

  async function produce(pending: SignedTx[][], now: number): Promise<number> {
    const started = performance.now();
    const parent = d.view.head;
    const height = parent.height + 1;
    const producer = d.keys.address;
    const state = await StateTrie.open(d.kv, parent.stateRoot);
    // Load the block's likely accounts level by level in batched reads before executing.
    const likely = pending.flatMap((q) => q.slice(0, 4)).slice(0, MAX_TXS_PER_BLOCK);
    await state.prefetchAccounts([producer, TREASURY_ADDRESS, ...likely.flatMap((t) => (t.to ? [t.from, t.to] : [t.from]))]);
    const timestamp = Math.max(now, parent.timestamp + 1);
    const tPrefetched = performance.now();
    let tTxs = 0;
    const txsDone = () => void (tTxs = performance.now());
    const built = await buildBlock(state, orderedCandidates(pending), { height, timestamp, producer, maxTxs: MAX_TXS_PER_BLOCK, pause, txsDone });
    const tBuilt = performance.now();
    const batch = d.kv.batch();
    const stateRoot = await state.flush(batch);
    const tFlushed = performance.now();
    const block = sealBlock(d.keys, { parent, timestamp, producer, stateRoot, txs: built.txs, results: built.results, events: built.events });
    await commitBlock({
      block, state, batch, dropped: built.dropped, started,
      // finish: the end-of-block work (machine ticks, rewards, unbonding, elections: finishBlock)
      phases: { prefetch: Math.round(tPrefetched - started), execute: Math.round(tTxs - tPrefetched), finish: Math.round(tBuilt - tTxs), trie: Math.round(tFlushed - tBuilt) },
    });
    if (built.txs.length > 0) lastTxHeight = height;
    d.onBlockProduced?.((performance.now() - started) / 1000);
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
