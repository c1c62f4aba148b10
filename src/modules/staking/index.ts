export { stake, unstake, registerCandidate, DEFAULT_COMMISSION_BPS } from './stake';
export { vote, setCommission, claimVoterReward } from './vote';
export { slashDoubleSign, slashedKey, SLASH_DOUBLE_SIGN_ENERGY, type SlashedRecord } from './slash';
export { elect, isEpochBoundary, standings, type Standing } from './election';
export { payBlockReward, claimableNow, commissionAt } from './rewards';
export { matureUnbonding, queueUnbonding, unbondingOf } from './unbonding';
export * from './records';
export {
  advanceSchedule,
  getSchedule,
  JOINING_ROUNDS,
  SCHEDULE_KEY,
  type Joining,
  type ScheduleRecord,
} from './schedule';
export { jailCandidate, unjailCandidate } from './jail';
