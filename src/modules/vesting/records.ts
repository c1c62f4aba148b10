import type { ExecState } from '../../protocol/execState';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';

/**
 * Vesting schedules, one record each (amounts are integer strings):
 *   vest/<id> → VestingRecord   id = the VESTING_CREATE transaction id
 * A fully claimed schedule keeps its record (claimed = total): it stays readable as history
 * and a further claim is refused by name rather than as unknown.
 */
export interface VestingRecord {
  id: Hex;
  /** Who locked the coins. */
  from: Address;
  beneficiary: Address;
  /** Coins locked, held by VESTING_ESCROW_ADDRESS until claimed. */
  total: string;
  /** Coins paid out so far. */
  claimed: string;
  /** Inclusion height of the VESTING_CREATE. */
  start: number;
  /** Blocks after `start` before anything vests. */
  cliff: number;
  /** Blocks after `start` until everything has vested. */
  duration: number;
}

export const vestingKey = (id: Hex): string => recordKey('vesting', id);
export const getVesting = (s: ExecState, id: Hex): Promise<VestingRecord | undefined> =>
  s.getRecord<VestingRecord>(vestingKey(id));
export const putVesting = (s: ExecState, v: VestingRecord): Promise<void> => s.putRecord(vestingKey(v.id), v);

/** Height from which claims are possible. */
export const cliffHeight = (v: VestingRecord): number => v.start + v.cliff;

/**
 * Coins vested at `height`: 0 before the cliff, then total × min(height − start, duration) / duration, floored (all of
 * it at the end).
 */
export function vestedAt(v: VestingRecord, height: number): bigint {
  if (height < cliffHeight(v)) return 0n;
  const elapsed = BigInt(Math.min(height - v.start, v.duration));
  return (BigInt(v.total) * elapsed) / BigInt(v.duration);
}
