import type { Hex } from '../primitives/hex';
import type { Address } from './types';

/** The chain's head pointer: the newest committed block and the finality reached with it. */
export interface Head {
  height: number;
  hash: Hex;
  stateRoot: Hex;
  finalizedHeight: number;
  timestamp: number;
}

/** What feeds and stats need of a block without reading it whole (stored per height). */
export interface BlockSummary {
  height: number;
  hash: Hex;
  timestamp: number;
  producer: Address;
  txCount: number;
  size: number;
  volume: string; // sum of transferred amounts, base units
}
