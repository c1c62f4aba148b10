import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { AccountTokenView } from './assets';

/** GET /address/:end (docs/API.md "GET /address/:end"); amounts are integer strings in base units. */
export interface AccountView {
  address: Address; // 0x form
  native: string; // cairn1… form
  balance: string;
  staked: string;
  nonce: number;
  nextNonce: number;
  energy: number;
  /** The energy cap: 10,000 + 10 per coin of stake held (own − lent + borrowed). */
  maxEnergy: number;
  feeExempt: boolean;
  isValidator: boolean;
  /** Stake whose energy capacity this account lends (DELEGATE_RESOURCE) and borrows. */
  delegatedOut: string;
  delegatedIn: string;
  /** A multisig permission governs the account (PERMISSION_UPDATE). */
  permissioned: boolean;
  tokens: AccountTokenView[];
}

/** The account record as a proof proves it (integers as strings). */
export interface ProvedAccount {
  balance: string;
  staked: string;
  nonce: number;
  energy: string;
  energyHeight: number;
  feeExempt: boolean;
  isValidator: boolean;
  mldsaKeyHash: Hex | null;
  /** Present only when not the default, as in the stored form. */
  codeHash?: Hex;
  weiRemainder?: string;
  delegatedOut?: string;
  delegatedIn?: string;
  permissioned?: true;
}

/** GET /proof/:end. `account` is null when the proof shows the account does not exist. */
export interface AccountProofView {
  address: Address;
  native: string;
  height: number;
  blockHash: Hex;
  stateRoot: Hex;
  account: ProvedAccount | null;
  proof: Hex[];
}
