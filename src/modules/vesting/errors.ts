import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/** Why VESTING_CLAIM is refused (`id` is the schedule's VESTING_CREATE transaction id). */
export const VESTING = refusals('vesting', {
  VESTING_UNKNOWN: (m: { id: Hex }) => `unknown vesting ${m.id}`,
  VESTING_NOT_BENEFICIARY: (m: { id: Hex; beneficiary: Address; sender: Address }) =>
    `only the beneficiary ${m.beneficiary} can claim vesting ${m.id}`,
  VESTING_BEFORE_CLIFF: (m: { id: Hex; cliff: number; height: number }) =>
    `vesting ${m.id} has its cliff at height ${m.cliff}: nothing is claimable before it`,
  VESTING_FULLY_CLAIMED: (m: { id: Hex }) => `vesting ${m.id} is fully claimed`,
  /** Past the cliff, but nothing more has vested since the last claim. */
  VESTING_NOTHING_DUE: (m: { id: Hex; height: number }) => `nothing vested to claim yet for ${m.id}`,
});
