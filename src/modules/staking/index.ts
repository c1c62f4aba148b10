export { stake, unstake, registerCandidate, DEFAULT_COMMISSION_BPS } from './stake';
export { vote, setCommission, claimVoterReward } from './vote';
export { elect, isEpochBoundary, standings, type Standing } from './election';
export { payBlockReward, claimableNow, commissionAt } from './rewards';
export { matureUnbonding, unbondingOf } from './unbonding';
export * from './records';
