import type { Address } from '../protocol/types';

/**
 * The finality rule (docs/PROTOCOL.md "Consensus: slots, fork choice, import"): a block is
 * final once ⌊2n/3⌋+1 distinct members of the set that counts (n members) have produced
 * above it. The staking module keeps each member's last produced height in the schedule
 * record and applies this rule at the end of every block; nothing else decides finality.
 */

/** ⌊2n/3⌋+1 distinct members must have produced above a block for it to be final. */
export const finalityThreshold = (n: number): number => Math.floor((2 * n) / 3) + 1;

/** Final height under `members` given their last produced heights; never below `previous`. */
export function finalizedFrom(members: readonly Address[], lastProduced: Readonly<Record<Address, number>>, previous: number): number {
  const need = finalityThreshold(members.length);
  const heights = members.map((a) => lastProduced[a] ?? 0).sort((x, y) => y - x);
  const h = heights[need - 1] ?? 0;
  return Math.max(previous, h - 1);
}
