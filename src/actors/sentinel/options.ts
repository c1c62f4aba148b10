import { COIN } from '../../primitives/amount';

export interface SentinelOptions {
  /** Longest normal gap between two blocks (the node's idle pace), ms. */
  expectedBlockMs: number;
  /** A stall is `stallFactor` × the expected time without progress. */
  stallFactor: number;
  /** Blocks looked at for producer concentration and validator degradation. */
  window: number;
  /** One producer above this share of the window (with more than one active validator). */
  concentrationShare: number;
  /** An active validator below this fraction of its expected share of the window. */
  degradationFraction: number;
  /** Resident mempool at or above this fraction of its cap. */
  floodFraction: number;
  /** Admissions per second above `rateSpikeFactor` × the running baseline… */
  rateSpikeFactor: number;
  /** …and above this absolute rate (per second). */
  rateSpikeMin: number;
  /** A transaction (or VM inner transfer) moving at least this many base units. */
  largeTransfer: bigint;
  /** Heights around the head whose headers are kept for double-sign detection. */
  headerWindow: number;
  /** Most blocks read after one head event (a long gap is skipped, not replayed). */
  maxCatchUp: number;
}

export const defaultSentinelOptions: Readonly<SentinelOptions> = Object.freeze({
  expectedBlockMs: 5_000,
  stallFactor: 5,
  window: 64,
  concentrationShare: 0.5,
  degradationFraction: 0.5,
  floodFraction: 0.8,
  rateSpikeFactor: 10,
  rateSpikeMin: 100,
  largeTransfer: 1_000_000n * COIN,
  headerWindow: 256,
  maxCatchUp: 1_000,
});
