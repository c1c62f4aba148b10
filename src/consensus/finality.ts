import type { FinalityBehind } from '../protocol/chain';
import type { Address } from '../protocol/types';

/**
 * The finality rule (docs/PROTOCOL.md "Consensus: slots, fork choice, import"): a block is
 * final once ⌊2n/3⌋+1 distinct members of the set that counts (n members) have produced
 * above it. The staking module keeps each member's last produced height in the schedule
 * record (modules/staking/schedule.ts) and applies this rule at the end of every block; nothing
 * else decides finality. A member still joining the set in force (its first block not final
 * yet) does not count.
 */

/** ⌊2n/3⌋+1 distinct members must have produced above a block for it to be final. */
export const finalityThreshold = (n: number): number => Math.floor((2 * n) / 3) + 1;

/** Final height under `members` given their last produced heights; never below `previous`. */
export function finalizedFrom(
  members: readonly Address[],
  lastProduced: Readonly<Record<Address, number>>,
  previous: number,
): number {
  const need = finalityThreshold(members.length);
  const heights = members.map((a) => lastProduced[a] ?? 0).sort((x, y) => y - x);
  const h = heights[need - 1] ?? 0;
  return Math.max(previous, h - 1);
}

/** The schedule's fields the finality rule reads (modules/staking/schedule.ts ScheduleRecord). */
export interface FinalitySchedule {
  /** The set in force. */
  active: readonly Address[];
  finalizedHeight: number;
  lastProduced: Readonly<Record<Address, number>>;
  /** Members of `active` that do not count yet. */
  joining?: Readonly<Record<Address, unknown>>;
}

/** The members of the set in force that count for finality: all but those still joining. */
export function countingMembers(sch: Pick<FinalitySchedule, 'active' | 'joining'>): Address[] {
  const j = sch.joining ?? {};
  return sch.active.filter((a) => !(a in j));
}

/**
 * Whether finality is behind at `height` and why, or null. With `need` members producing in
 * turn, about `need` blocks above the final one are normal (the newest blocks wait for the
 * producers on top of them); more than that means members that count are not producing.
 */
export function finalityBehind(sch: FinalitySchedule, height: number): FinalityBehind | null {
  const counting = countingMembers(sch);
  const need = finalityThreshold(counting.length);
  const lag = height - sch.finalizedHeight;
  if (lag <= need) return null;
  const next = sch.finalizedHeight + 1;
  const notProducing = counting
    .filter((a) => (sch.lastProduced[a] ?? 0) <= next)
    .map((address) => ({ address, lastProduced: sch.lastProduced[address] ?? null }));
  return { lag, need, counting: counting.length, notProducing, pending: Object.keys(sch.joining ?? {}) as Address[] };
}
