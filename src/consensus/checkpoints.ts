import type { Hex } from '../primitives/hex';
import type { Address } from '../protocol/types';
import { finalityThreshold } from './finality';

/**
 * Finality by checkpoints (docs/PROTOCOL.md "Finality"): Casper FFG with the blocks as the
 * votes. The chain is cut into epochs of `length` blocks (the size of the set in force, so
 * every member has one slot per epoch); an epoch's **checkpoint** is its first block. Each
 * block is its producer's vote for the link `source → target`: the target is the checkpoint
 * of the block's epoch, the source the last checkpoint justified before that epoch began — so
 * all the votes of one epoch on one chain name the same link. A checkpoint is **justified**
 * once ⌊2n/3⌋+1 distinct counting members have voted in its epoch on this chain; the source
 * of that link is **final** when it is the checkpoint of the epoch just before.
 *
 * Safety does not rest on this chain's arithmetic alone but on what honest validators never
 * sign (storage/signingGuard.ts): two votes for different checkpoints of one epoch, or a vote
 * whose source is older than one they already used. Given that, two conflicting checkpoints
 * can both be final only if more than a third of the members broke one of these rules
 * (Buterin & Griffith, "Casper the Friendly Finality Gadget", 2017, theorem 1).
 *
 * Everything here is a pure function of block heights, producers and the set: it runs in
 * block execution (the schedule) and over headers (fork choice) alike.
 */

/** A checkpoint: an epoch's number and the height of its first block. */
export interface Checkpoint {
  epoch: number;
  height: number;
}

/** The checkpoint record kept in the schedule (modules/staking/schedule.ts). */
export interface Epochs {
  /** Epoch numbering: the epoch of height h is `base.epoch + ⌊(h − base.height) / length⌋`. */
  base: Checkpoint;
  length: number;
  /** The epoch of the last block and its checkpoint. */
  current: Checkpoint;
  /** The link's source for every vote of `current`: the last checkpoint justified before it. */
  source: Checkpoint;
  /** Counting members that produced in `current` on this chain. */
  votes: Address[];
  /** The last justified checkpoint. */
  justified: Checkpoint;
}

/** A finality vote as signed: its target checkpoint (epoch, block hash) and the newest source epoch used so far. */
export interface SignedVote {
  target: { epoch: number; hash: Hex };
  source: number;
}

/** A vote about to be signed; the target's hash is absent when the target is the block being signed. */
export interface NextVote {
  target: { epoch: number; hash?: Hex };
  source: number;
}

/**
 * Why an honest validator whose last vote was `last` must not cast `next`, or undefined: a
 * second checkpoint of one epoch (a double vote), an earlier epoch, or an older source than
 * it used (its votes are in epoch order, so an older source would surround an earlier vote).
 */
export function voteRefusal(last: SignedVote | undefined, next: NextVote): string | undefined {
  if (!last) return undefined;
  const e = next.target.epoch;
  if (e < last.target.epoch) return `already voted in epoch ${last.target.epoch}, after epoch ${e}`;
  if (e === last.target.epoch && next.target.hash !== last.target.hash)
    return `already voted for another checkpoint of epoch ${e} (${last.target.hash})`;
  if (next.source < last.source)
    return `already voted from a checkpoint of epoch ${last.source}; a vote from epoch ${next.source} would surround it`;
  return undefined;
}

/** The vote to remember after signing `next` whose target's hash is now known (`hash`). */
export function signedVote(last: SignedVote | undefined, next: NextVote, hash: Hex): SignedVote {
  return {
    target: { epoch: next.target.epoch, hash: next.target.hash ?? hash },
    source: Math.max(next.source, last?.source ?? next.source),
  };
}

/** What a block at `height` votes for: the link of its epoch, given the record after its parent. */
export interface Vote {
  source: Checkpoint;
  target: Checkpoint;
}

/**
 * The record as a block at `height` finds it: a first record (a chain from before checkpoints,
 * or genesis) starts at this block with the final height as the justified root; a change of
 * the set's size renumbers from this block, one epoch after the current (numbers only go up
 * along a chain); a block that begins an epoch opens it.
 */
function opened(e: Epochs | undefined, height: number, size: number, finalizedHeight: number): Epochs {
  const length = Math.max(1, size); // a state with no set yet (tools, tests) still numbers its epochs
  let x: Epochs = e ?? {
    base: { epoch: 1, height },
    length,
    current: { epoch: 0, height: finalizedHeight },
    source: { epoch: 0, height: finalizedHeight },
    votes: [],
    justified: { epoch: 0, height: finalizedHeight },
  };
  if (x.length !== length) x = { ...x, base: { epoch: x.current.epoch + 1, height }, length };
  const epoch = x.base.epoch + Math.floor((height - x.base.height) / x.length);
  if (epoch !== x.current.epoch) x = { ...x, current: { epoch, height }, source: x.justified, votes: [] };
  return x;
}

/** The vote a block at `height` casts on the chain whose record after its parent is `e`. */
export function voteAt(e: Epochs | undefined, height: number, length: number, finalizedHeight: number): Vote {
  const x = opened(e, height, length, finalizedHeight);
  return { source: x.source, target: x.current };
}

/**
 * The record after a block at `height` by `producer`: its vote counted (counting members
 * only; an abstaining block is no vote), the epoch's checkpoint justified at ⌊2n/3⌋+1 votes,
 * and `finalized` — the height of the checkpoint this block made final, when it did.
 */
export function epochStep(
  e: Epochs | undefined,
  block: { height: number; producer: Address; abstain?: boolean },
  counting: readonly Address[],
  length: number,
  finalizedHeight: number,
): { epochs: Epochs; finalized?: number } {
  let x = opened(e, block.height, length, finalizedHeight);
  // An abstaining block moves the epochs on like any other but is nobody's vote.
  if (!block.abstain && counting.includes(block.producer) && !x.votes.includes(block.producer))
    x = { ...x, votes: [...x.votes, block.producer] };
  if (x.justified.epoch >= x.current.epoch || x.votes.length < finalityThreshold(counting.length)) return { epochs: x };
  const finalized = x.source.epoch === x.current.epoch - 1 ? x.source.height : undefined;
  return { epochs: { ...x, justified: x.current }, finalized };
}
