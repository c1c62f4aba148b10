/** Public SDK surface: a typed HTTP client plus the offline wallet primitives. */
export {
  CairnClient,
  type Account,
  type AccountProof,
  type BlockRecord,
  type ClientOptions,
  type NodeStatus,
  type SubmitVerdict,
  type TxRecord,
  type TxStatus,
  type WaitOptions,
  type WaitOutcome,
  type WaitResult,
} from './client';
export { signTx, encodeTx, decodeEnvelope } from '../chain/envelope';
export { deriveKeys, generateSecret, type HybridKeys } from '../crypto/keys';
export { toNative, parseAddress } from '../crypto/address';
export { verifyAccountProof } from '../state/proof';
export { TX_TYPES, type TxType, type SignedTx, type Address } from '../chain/types';
