import type { AccountState, Address } from './types';
import { RECORD_PREFIX } from './records';

/**
 * The slice of the authenticated state that execution uses. StateTrie implements it;
 * keeping execution against this port lets tests run it without storage.
 */
export interface ExecState {
  getAccount(addr: Address): Promise<AccountState | undefined>;
  putAccount(addr: Address, a: AccountState): Promise<void>;
  /** Removes an account (the VM's SELFDESTRUCT of a contract created in the same transaction). */
  deleteAccount(addr: Address): Promise<void>;
  getRecord<T>(key: string): Promise<T | undefined>;
  putRecord(key: string, value: unknown): Promise<void>;
  deleteRecord(key: string): Promise<void>;
  checkpoint(): void;
  commit(): Promise<void>;
  revert(): Promise<void>;
  root(): `0x${string}`;
}

/** Whole-chain counters kept in state so the state root covers them. */
export interface SupplyRecord {
  supply: string;
  minted: string;
  burned: string;
  staked: string;
}
export const SUPPLY_KEY = RECORD_PREFIX.supply;

export interface Supply {
  supply: bigint; // all coins in existence: liquid + staked
  minted: bigint;
  burned: bigint;
  staked: bigint;
}

export async function loadSupply(s: ExecState): Promise<Supply> {
  const r = await s.getRecord<SupplyRecord>(SUPPLY_KEY);
  const n = (v: string | undefined) => BigInt(v ?? '0');
  return { supply: n(r?.supply), minted: n(r?.minted), burned: n(r?.burned), staked: n(r?.staked) };
}

export async function saveSupply(s: ExecState, v: Supply): Promise<void> {
  const rec: SupplyRecord = {
    supply: v.supply.toString(),
    minted: v.minted.toString(),
    burned: v.burned.toString(),
    staked: v.staked.toString(),
  };
  await s.putRecord(SUPPLY_KEY, rec);
}
