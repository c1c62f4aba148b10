import type { Logger } from 'pino';
import { sealBlock } from '../../chain/block';
import { buildBlock } from '../../chain/buildBlock';
import { slotOf } from '../../consensus/slots';
import type { HybridKeys } from '../../crypto/keys';
import { likelyTxs, orderedCandidates } from '../../mempool/senderHeap';
import { partiesOf } from '../../modules/registry';
import { MAX_TXS_PER_BLOCK, TREASURY_ADDRESS } from '../../protocol/params';
import type { KvStore } from '../../state/kv';
import { StateTrie } from '../../state/stateTrie';
import type { SigningGuard } from '../../storage/signingGuard';
import type { Network } from '../../protocol/network';
import { behaviorOf, type Behavior } from '../actorRef';
import type { BlockSizer } from './blockSizer';
import type { ProducerMsg, ProducerReplies, LifecycleReports } from '../protocol';

export interface ProducerDeps {
  kv: KvStore;
  keys: HybridKeys;
  /** The chain this node runs (its genesis hash and chain id). */
  network: Network;
  slotMs: number;
  /** Double-sign protection: the last height, slot and finality vote this validator signed. */
  guard: Pick<SigningGuard, 'refusal' | 'voteRefusal' | 'record' | 'forgetAbove'>;
  log: Logger;
  /** The lifecycle actors: a block built here is reported `BUILT`. */
  lifecycles?: LifecycleReports;
  /** A block this validator did not make in its slot because of the double-sign protection, and why (simulator). */
  onUnsigned?: (height: number, reason: string) => void;
  /** How many transactions a block takes, from what blocks cost here (a node); none: MAX_TXS_PER_BLOCK. */
  sizer?: BlockSizer;
}

/** Yield between slices of the block so HTTP and verify-worker replies are not held up. */
const pause = () => new Promise<void>((r) => setImmediate(r));

/**
 * The producer: builds and signs a block on the parent the consensus actor names, in the
 * slot it decided is this validator's. It executes and hashes but writes nothing: the
 * consensus actor commits (the one writer), then tells it the block is signed for good, and
 * only then does the producer's double-sign record move (before the block leaves the node).
 */
export function producerBehavior(d: ProducerDeps): Behavior<ProducerMsg, ProducerReplies> {
  async function build(msg: Extract<ProducerMsg, { type: 'build' }>): Promise<ProducerReplies['build']> {
    const started = performance.now();
    const { parent, pending } = msg;
    const height = parent.height + 1;
    const producer = d.keys.address;
    const timestamp = Math.max(msg.now, parent.timestamp + 1);
    const slot = slotOf(timestamp, d.slotMs);
    const refused = d.guard.refusal(height, slot);
    if (refused) {
      d.log.warn({ height, slot, reason: refused }, 'not signing: double-sign protection');
      d.onUnsigned?.(height, refused);
      return null;
    }
    // A vote this validator must not cast (it voted for another checkpoint of this epoch, on a branch that lost):
    // the block abstains rather than not being made. Before, such a validator made no block for the rest of the
    // epoch; after a partition most of the set could be in that state, and an epoch counted in blocks then took
    // hundreds of slots to end (the simulator, seed 5073, 19 validators: nothing final in 180 slots).
    const voteRefused = d.guard.voteRefusal(msg.vote);
    if (voteRefused) d.log.info({ height, slot, reason: voteRefused }, 'block abstains: no finality vote');
    const state = await StateTrie.open(d.kv, parent.stateRoot);
    // Load the block's likely accounts level by level in batched reads before executing.
    const maxTxs = d.sizer?.maxTxs() ?? MAX_TXS_PER_BLOCK;
    const likely = likelyTxs(pending, maxTxs);
    // parties: a META_TX's user and recipient too
    await state.prefetchAccounts([producer, TREASURY_ADDRESS, ...likely.flatMap(partiesOf)]);
    const tPrefetched = performance.now();
    let tTxs = 0;
    const txsDone = () => void (tTxs = performance.now());
    const built = await buildBlock(state, orderedCandidates(pending), {
      height,
      timestamp,
      producer,
      network: d.network,
      maxTxs,
      nestedVerified: true,
      admitted: true,
      pause,
      txsDone,
      abstain: voteRefused !== undefined,
    });
    const tBuilt = performance.now();
    d.sizer?.observe(built.txs.length, tTxs - tPrefetched);
    const batch = d.kv.batch();
    const stateRoot = await state.flush(batch);
    const tFlushed = performance.now();
    const block = sealBlock(d.keys, {
      parent,
      timestamp,
      producer,
      stateRoot,
      txs: built.txs,
      results: built.results,
      events: built.events,
      abstain: voteRefused !== undefined,
    });
    d.lifecycles?.blocks.send({ type: 'step', hash: block.header.hash, height, event: { type: 'BUILT' } });
    return {
      block,
      state,
      batch,
      dropped: built.dropped,
      started,
      slot,
      considered: built.txs.length + built.dropped.length,
      // finish: the end-of-block work (machine ticks, rewards, unbonding, schedule, elections: finishBlock)
      phases: {
        prefetch: Math.round(tPrefetched - started),
        execute: Math.round(tTxs - tPrefetched),
        finish: Math.round(tBuilt - tTxs),
        trie: Math.round(tFlushed - tBuilt),
      },
    };
  }

  return behaviorOf<ProducerMsg, ProducerReplies>({
    build,
    // Durable before the block leaves the node (a block whose commit failed never left: it may be signed again).
    signed: (msg) => d.guard.record(msg.height, msg.slot, msg.vote),
    devForget: (msg) => d.guard.forgetAbove(msg.height, msg.slot),
  });
}
