import type { Hex } from '../primitives/hex';
import type { ChainEvent } from './events';

import type { Address } from './address';

export type { Address };

/**
 * The catalogue of the protocol's 58 transaction types, by module: the
 * vocabulary every layer may name. Which of them the node implements is not decided here:
 * it is the keys of the registry (modules/registry.ts, `TX_TYPES`), so naming a type here
 * never makes it acceptable on the wire.
 */
export const TX_TYPE_CATALOGUE = [
  // native
  'TRANSFER',
  'STAKE',
  'UNSTAKE',
  'VM_TRANSFER',
  // consensus
  'VOTE',
  'SET_COMMISSION',
  'CLAIM_VOTER_REWARD',
  'SLASH_DOUBLE_SIGN',
  // resources
  'DELEGATE_RESOURCE',
  'UNDELEGATE_RESOURCE',
  // permissions
  'PERMISSION_UPDATE',
  'PERMISSION_PROPOSE',
  'PERMISSION_APPROVE',
  'PERMISSION_VETO',
  'MULTISIG_PROPOSE',
  'MULTISIG_APPROVE',
  // governance
  'GOV_PROPOSE',
  'GOV_VOTE',
  // vesting & relay
  'VESTING_CREATE',
  'VESTING_CLAIM',
  'META_TX',
  // FT20 tokens
  'TOKEN_CREATE',
  'TOKEN_TRANSFER',
  'TOKEN_APPROVE',
  'TOKEN_TRANSFER_FROM',
  'TOKEN_MINT',
  'TOKEN_BURN',
  'TOKEN_PAUSE',
  'TOKEN_UNPAUSE',
  'TOKEN_BLACKLIST',
  'TOKEN_FREEZE',
  'TOKEN_UNFREEZE',
  // NFT721
  'NFT_CREATE',
  'NFT_MINT',
  'NFT_TRANSFER',
  'NFT_APPROVE',
  'NFT_BURN',
  // name service
  'NAME_REGISTER',
  'NAME_UPDATE',
  'NAME_TRANSFER',
  'NAME_RELEASE',
  // AI layer
  'ORACLE_REGISTER',
  'AI_TASK',
  'AI_RESULT',
  'AI_REFUND',
  'AI_COMMIT',
  'AI_REVEAL',
  'AI_CLAIM',
  'AI_CHALLENGE',
  'AI_VERDICT',
  'AI_BID',
  'AI_AWARD',
  // bridge
  'BRIDGE_OUT',
  'BRIDGE_IN',
  'BRIDGE_SETTLE',
  'BRIDGE_COMMITTEE_UPDATE',
  // VM
  'VM_DEPLOY',
  'VM_CALL',
] as const;
/** A transaction type name of the protocol (implemented or not: see modules/registry.ts). */
export type TxType = (typeof TX_TYPE_CATALOGUE)[number];

/**
 * The signed part of a transaction. Canonical bytes = RFC 8785 JSON of exactly these
 * fields; id = keccak256(TX_DOMAIN || canonical bytes); the signatures cover TX_DOMAIN || genesis hash || canonical
 * bytes. See docs/PROTOCOL.md.
 */
export interface TxPayload {
  chainId: number; // the chain's (72020 on the development network)
  type: TxType;
  from: Address; // sender, derived from the secp256k1 key
  to: Address | null; // destination (null when the type has none)
  amount: string; // integer string, base units
  nonce: number;
  timestamp: number; // ms, > 0; consensus checks nothing else about it
  fee: string; // integer string: the most the sender lets the node burn
  data: unknown; // optional JSON value, canonical size <= MAX_DATA_BYTES; null when absent
}

/** The hybrid envelope as it travels on the wire (POST /tx) and is stored in blocks. */
export interface HybridTx extends TxPayload {
  envelope?: undefined;
  id: Hex; // redundant on the wire (recomputed and checked), always present in storage
  publicKeys: { secp256k1: Hex; mldsa44: Hex };
  signatures: { secp256k1: Hex; mldsa44: Hex };
}

/**
 * A transaction born on the VM surface (POST /vm/tx, eth_sendRawTransaction): a signed
 * Ethereum transaction (legacy EIP-155, EIP-2930, EIP-1559) for the node's chain id (72020 on the development network).
 * `raw` is the
 * authority; every other field is derived from it at admission (and re-derived on import).
 * `amount` = value rounded up to base units and `fee` = gasLimit × gas price rounded up to
 * base units, so the admission balance rule is conservative; execution uses exact wei.
 * `timestamp` is the admission time (ordering only; not part of the hash).
 */
export interface EthTx extends TxPayload {
  envelope: 'eth';
  id: Hex; // keccak256(raw): the Ethereum transaction hash
  raw: Hex;
  gasLimit: string;
  gasPrice: string; // wei: gasPrice, or maxFeePerGas for EIP-1559
  valueWei: string;
  input: Hex;
  accessList?: { address: Address; storageKeys: Hex[] }[];
}

export type SignedTx = HybridTx | EthTx;

/** Account as stored in the state trie. Amounts are bigint. */
export interface AccountState {
  balance: bigint;
  staked: bigint;
  nonce: number;
  energy: bigint; // energy left at energyHeight
  energyHeight: number; // height at which `energy` was last written
  feeExempt: boolean;
  isValidator: boolean;
  mldsaKeyHash: Hex | null; // keccak256 of the bound ML-DSA-44 public key
  codeHash: Hex | null; // keccak256 of deployed VM code; null for a plain account
  weiRemainder: bigint; // VM sub-base-unit wei (< 10^12): wei balance = balance × 10^12 + weiRemainder
  /**
   * Stake whose energy capacity this account lends to others (DELEGATE_RESOURCE); it still counts for the owner's
   * votes.
   */
  delegatedOut: bigint;
  /** Stake whose energy capacity others lend to this account. */
  delegatedIn: bigint;
  /**
   * A multisig permission governs this account (PERMISSION_UPDATE): its key alone no longer sends the governed types.
   */
  permissioned: boolean;
}

export interface BlockHeader {
  height: number;
  parentHash: Hex;
  timestamp: number; // ms, producer's clock; consensus only requires > parent's
  producer: Address;
  txRoot: Hex;
  stateRoot: Hex;
  txCount: number;
  /**
   * Present (true) when the block is not its producer's finality vote (consensus/checkpoints.ts): it already voted
   * for another checkpoint of this epoch, on a branch that lost. Absent on every other block, so their bytes and
   * hashes are as before.
   */
  abstain?: true;
}

/** A validator's block-signing public keys (bound in state when it stands for election). */
export interface SigningKeys {
  secp256k1: Hex;
  mldsa44: Hex;
}

/** Headers carry the producer's signatures only: its keys are in state, not repeated per block. */
export interface SignedBlockHeader extends BlockHeader {
  hash: Hex; // keccak256(BLOCK_DOMAIN || canonical header)
  signatures: { secp256k1: Hex; mldsa44: Hex };
}

/** An EVM log as stored in a block's results (its position gives the log index). */
export interface LogEntry {
  address: Address;
  topics: Hex[];
  data: Hex;
}

/** Receipt fields of a transaction that ran the VM. */
export interface VmReceipt {
  gasUsed: string;
  logs: LogEntry[];
  contractAddress?: Address;
  returnData?: Hex; // revert data on failure, return data on success (capped)
  /** Value moved by inner calls (feeds the node-local /internal index). */
  internal?: { kind: string; from: Address; to: Address; amountWei: string }[];
}

/** Outcome of one transaction inside a block. */
export interface TxResult {
  status: 'success' | 'failed';
  error?: string; // reason when failed
  /** The refusal's code when failed (protocol/refusal.ts): what programs switch on. */
  code?: string;
  energyUsed: string;
  burned: string;
  vm?: VmReceipt;
  /** What a successful module transaction changed, for node-local indexes (protocol/events.ts). */
  events?: ChainEvent[];
}

export interface Block {
  header: SignedBlockHeader;
  txs: SignedTx[];
  results: TxResult[];
  /**
   * End-of-block events (the on-chain machines' DEADLINE transitions); omitted when empty, so such blocks encode as
   * before.
   */
  events?: ChainEvent[];
}
