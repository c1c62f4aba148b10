import type { TxHandler } from '../protocol/handler';
import type { Address, HybridTx, SignedTx, TxType } from '../protocol/types';
import { nameRegister, nameRelease, nameTransfer, nameUpdate } from './names';
import { transfer } from './native/transfer';
import { claimVoterReward, setCommission, slashDoubleSign, stake, unstake, vote } from './staking';
import { govPropose, govVote } from './governance';
import { delegateResource, undelegateResource } from './resources';
import { vestingClaim, vestingCreate } from './vesting';
import {
  aiAward,
  aiBid,
  aiChallenge,
  aiClaim,
  aiCommit,
  aiRefund,
  aiResult,
  aiReveal,
  aiTask,
  aiVerdict,
  oracleRegister,
} from './ai';
import { bridgeCommitteeUpdate, bridgeIn, bridgeOut, bridgeSettle } from './bridge';
import { metaTx } from './relay';
import {
  multisigApprove,
  multisigPropose,
  permissionApprove,
  permissionPropose,
  permissionUpdate,
  permissionVeto,
} from './permissions';
import { nftApprove, nftBurn, nftCreate, nftMint, nftTransfer } from './nft';
import {
  tokenApprove,
  tokenBlacklist,
  tokenBurn,
  tokenCreate,
  tokenFreeze,
  tokenMint,
  tokenPause,
  tokenTransfer,
  tokenTransferFrom,
  tokenUnfreeze,
  tokenUnpause,
} from './tokens';
import type { AnyTxEntry } from './tx/entry';
import { bindInnerLookup } from './tx/inner';
import { vmCall, vmDeploy, vmTransfer } from './vm/vm';

/**
 * The registry: every implemented transaction type, one line each, in the order docs and
 * help list them. A type of the protocol's catalogue (protocol/types.ts) that is not here is
 * refused on the wire. Light by design: entries import no EVM, storage or node code (the VM
 * runs behind ExecContext.vm), so the SDK reads this file too.
 */
export const REGISTRY = {
  TRANSFER: transfer,
  STAKE: stake,
  UNSTAKE: unstake,
  VOTE: vote,
  SET_COMMISSION: setCommission,
  CLAIM_VOTER_REWARD: claimVoterReward,
  SLASH_DOUBLE_SIGN: slashDoubleSign,
  GOV_PROPOSE: govPropose,
  GOV_VOTE: govVote,
  DELEGATE_RESOURCE: delegateResource,
  UNDELEGATE_RESOURCE: undelegateResource,
  VESTING_CREATE: vestingCreate,
  VESTING_CLAIM: vestingClaim,
  PERMISSION_UPDATE: permissionUpdate,
  PERMISSION_PROPOSE: permissionPropose,
  PERMISSION_APPROVE: permissionApprove,
  PERMISSION_VETO: permissionVeto,
  MULTISIG_PROPOSE: multisigPropose,
  MULTISIG_APPROVE: multisigApprove,
  META_TX: metaTx,
  VM_DEPLOY: vmDeploy,
  VM_CALL: vmCall,
  VM_TRANSFER: vmTransfer,
  TOKEN_CREATE: tokenCreate,
  TOKEN_TRANSFER: tokenTransfer,
  TOKEN_APPROVE: tokenApprove,
  TOKEN_TRANSFER_FROM: tokenTransferFrom,
  TOKEN_MINT: tokenMint,
  TOKEN_BURN: tokenBurn,
  TOKEN_PAUSE: tokenPause,
  TOKEN_UNPAUSE: tokenUnpause,
  TOKEN_BLACKLIST: tokenBlacklist,
  TOKEN_FREEZE: tokenFreeze,
  TOKEN_UNFREEZE: tokenUnfreeze,
  NFT_CREATE: nftCreate,
  NFT_MINT: nftMint,
  NFT_TRANSFER: nftTransfer,
  NFT_APPROVE: nftApprove,
  NFT_BURN: nftBurn,
  NAME_REGISTER: nameRegister,
  NAME_UPDATE: nameUpdate,
  NAME_TRANSFER: nameTransfer,
  NAME_RELEASE: nameRelease,
  ORACLE_REGISTER: oracleRegister,
  AI_TASK: aiTask,
  AI_COMMIT: aiCommit,
  AI_REVEAL: aiReveal,
  AI_BID: aiBid,
  AI_AWARD: aiAward,
  AI_RESULT: aiResult,
  AI_CHALLENGE: aiChallenge,
  AI_VERDICT: aiVerdict,
  AI_CLAIM: aiClaim,
  AI_REFUND: aiRefund,
  BRIDGE_OUT: bridgeOut,
  BRIDGE_IN: bridgeIn,
  BRIDGE_SETTLE: bridgeSettle,
  BRIDGE_COMMITTEE_UPDATE: bridgeCommitteeUpdate,
} as const satisfies { [K in TxType]?: AnyTxEntry & { type: K } };

export type Registry = typeof REGISTRY;
/** A transaction type the node implements. */
export type ImplementedTxType = keyof Registry;

/** The implemented types, in registry order. */
export const TX_TYPES = Object.keys(REGISTRY) as ImplementedTxType[];

const IMPLEMENTED: ReadonlySet<string> = new Set(TX_TYPES);
export const isImplemented = (type: unknown): type is ImplementedTxType =>
  typeof type === 'string' && IMPLEMENTED.has(type);

/** Every entry, in registry order. */
export const ENTRIES: readonly AnyTxEntry[] = Object.values(REGISTRY);

export const entryOf = (type: TxType): AnyTxEntry | undefined => (isImplemented(type) ? REGISTRY[type] : undefined);

export const handlerFor = (type: TxType): TxHandler | undefined => entryOf(type)?.handler;

/** The accounts a transaction concerns: its sender, its `to`, and its type's other parties. */
export function partiesOf(tx: SignedTx): Address[] {
  const out = new Set<Address>([tx.from]);
  if (tx.to) out.add(tx.to);
  for (const a of entryOf(tx.type)?.parties?.(tx) ?? []) out.add(a);
  return [...out];
}
/** The signed envelopes a (validated) transaction carries, whose signatures are part of its own (META_TX's inner). */
export const nestedOf = (tx: SignedTx): HybridTx[] => entryOf(tx.type)?.nested?.(tx) ?? [];

bindInnerLookup((type) => handlerFor(type as TxType));
