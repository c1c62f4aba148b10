export { oracleRegister } from './oracle';
export { aiTask, aiResult, aiClaim, aiRefund } from './task';
export { aiCommit, aiReveal } from './quorum';
export { aiBid, aiAward } from './auction';
export { aiChallenge, aiVerdict } from './dispute';
export {
  taskDef,
  taskMachine,
  TASK_STATES,
  TASK_MODES,
  type TaskStatus,
  type TaskMode,
  type TaskContext,
} from './machine';
export { taskCommitment } from './commitment';
export { getOracle, getOracleList, type OracleRecord } from './oracles';
