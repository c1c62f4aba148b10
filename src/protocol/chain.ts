import type { Hex } from '../primitives/hex';
import type { Address } from './types';

/** The chain's head pointer: the newest committed block and the finality reached with it. */
export interface Head {
  height: number;
  hash: Hex;
  stateRoot: Hex;
  finalizedHeight: number;
  timestamp: number;
  /** The height of the chain's last justified checkpoint (consensus/checkpoints.ts); absent in heads stored before. */
  justifiedHeight?: number;
}

/** What feeds and stats need of a block without reading it whole (stored per height). */
export interface BlockSummary {
  height: number;
  hash: Hex;
  /** The state root after the block (absent from summaries written before it was kept here). */
  stateRoot?: Hex;
  timestamp: number;
  producer: Address;
  txCount: number;
  size: number;
  volume: string; // sum of transferred amounts, base units
}

/** Why blocks above the final one are not final (consensus/finality.ts finalityBehind; GET /status). */
export interface FinalityBehind {
  /** Blocks above the final one (the head's height − finalizedHeight). */
  lag: number;
  /** Members that must vote (produce) in an epoch to justify its checkpoint (⌊2n/3⌋+1 of those that count). */
  need: number;
  /** Members that count for finality. */
  counting: number;
  /** Counting members with no block above the first block that is not final, and their last block. */
  notProducing: { address: Address; lastProduced: number | null }[];
  /** Members in force that do not count yet (pending until their first block is final). */
  pending: Address[];
}
