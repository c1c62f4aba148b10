export { bridgeOut, bridgeIn, bridgeSettle, requireCommittee, seenKey, NO_COMMITTEE } from './transfer';
export { bridgeCommitteeUpdate } from './rotate';
export {
  transferDef,
  transferMachine,
  TRANSFER_STATES,
  type TransferStatus,
  type TransferContext,
  type TransferEvent,
  type Direction,
} from './machine';
export {
  committeeDigest,
  inboundDigest,
  signAsMember,
  memberOf,
  quorumRefusal,
  INBOUND_TAG,
  COMMITTEE_TAG,
  type InboundMessage,
  type CommitteeMessage,
  type MemberSignature,
} from './committee';
export {
  getPool,
  getPoolAssets,
  getBreaker,
  available,
  windowOf,
  type Asset,
  type PoolRecord,
  type BreakerRecord,
} from './pool';
export { attestationOf } from './attestation';
export { quorumRefusalWith } from './committee';
export { BRIDGE } from './errors';
