/** Public SDK surface: a typed HTTP client plus the offline wallet primitives. */
export {
  CairnClient,
  type Account,
  type AccountProof,
  type BlockRecord,
  type ClientOptions,
  type NodeStatus,
  type SendAssetResult,
  type SendOptions,
  type SendResult,
  type SubmitVerdict,
  type TxRecord,
  type TxStatus,
  type WaitOptions,
  type WaitOutcome,
  type WaitResult,
  inBlock,
} from './client';
export { signTx, encodeTx, decodeEnvelope } from '../chain/envelope';
export type { Network } from '../protocol/network';
export { deriveKeys, generateSecret, type HybridKeys } from '../crypto/keys';
export { toNative, parseAddress } from '../crypto/address';
export { verifyAccountProof } from '../state/proof';
export type { SignedTx, Address } from '../protocol/types';
/** The transaction types the node implements (the registry's keys). */
export { TX_TYPES, type ImplementedTxType as TxType } from '../modules/registry';
export { taskCommitment } from '../modules/ai/commitment';
export {
  followBlocks,
  followAccount,
  followTasks,
  followProposals,
  followBridgeTransfers,
  fileCursor,
  retrying,
  type CursorStore,
  type FollowOptions,
  type Transition,
} from './follow';
export {
  inboundDigest,
  committeeDigest,
  signAsMember,
  memberOf,
  type InboundMessage,
  type CommitteeMessage,
  type MemberSignature,
} from '../modules/bridge/committee';
export type { CommitteeMember, CommitteeRecord } from '../protocol/bridge';
/** The bridge's JSON shapes (GET /bridge, /bridge/transfers, /bridge/transfers/:id). */
export type {
  BridgeView,
  BridgeTransferView,
  BridgeTransfersPage,
  BridgeTransition,
  PoolView,
  BreakerView,
  Direction,
  TransferStatus,
  Asset as BridgeAsset,
} from '../views';
export {
  buildAssetTx,
  buildTx,
  ECON_TX_TYPES,
  type EconTxType,
  type EconTxInput,
  type TxInput,
  type UnsignedTx,
  createdAssetId,
  assetId,
  isValidName,
  ASSET_TX_TYPES,
  TOKEN_TX_TYPES,
  NFT_TX_TYPES,
  NAME_TX_TYPES,
  type AssetTxInput,
  type AssetTxType,
  type UnsignedAssetTx,
  type TokenAmount,
  type Cursor,
  type HeightCursor,
  type PageOptions,
  type TokenView,
  type TokenList,
  type TokenHolder,
  type TokenHolders,
  type TokenTransfer,
  type TokenTransfers,
  type CollectionView,
  type CollectionDetail,
  type CollectionList,
  type NftItemView,
  type NameView,
  type NameEntry,
  type NameList,
} from './assets';
export { NAME_REGISTRATION_COST } from '../protocol/params';
