/** The vesting entries. */
export { vestingClaim, vestingCreate } from './vesting';
export { getVesting, vestedAt, vestingKey, type VestingRecord } from './records';
