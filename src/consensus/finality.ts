import type { FinalityBehind } from '../protocol/chain';
import type { Address } from '../protocol/types';

/**
 * Who decides finality: ⌊2n/3⌋+1 distinct members of the set that counts (n members), voting
 * by producing in an epoch (consensus/checkpoints.ts). The staking module applies the rule at
 * the end of every block (modules/staking/schedule.ts); nothing else decides finality. A
 * member still joining the set in force (its first block not final yet) does not count.
 */

/** ⌊2n/3⌋+1 distinct members must vote for a checkpoint to justify it. */
export const finalityThreshold = (n: number): number => Math.floor((2 * n) / 3) + 1;

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
 * Whether finality is behind at `height` and why, or null. Up to two epochs and `need` blocks
 * above the final one are normal (a block waits for its epoch's checkpoint, then for the next
 * epoch's votes); more than that means members that count are not producing.
 */
export function finalityBehind(sch: FinalitySchedule, height: number): FinalityBehind | null {
  const counting = countingMembers(sch);
  const need = finalityThreshold(counting.length);
  const lag = height - sch.finalizedHeight;
  if (lag <= 2 * sch.active.length + need) return null;
  const next = sch.finalizedHeight + 1;
  const notProducing = counting
    .filter((a) => (sch.lastProduced[a] ?? 0) <= next)
    .map((address) => ({ address, lastProduced: sch.lastProduced[address] ?? null }));
  return { lag, need, counting: counting.length, notProducing, pending: Object.keys(sch.joining ?? {}) as Address[] };
}
