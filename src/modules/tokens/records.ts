import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { recordKey } from '../../protocol/records';

/**
 * FT20 state, as records in the authenticated state (covered by the state root). Amounts are
 * integer strings; a zero balance or allowance is deleted rather than stored.
 *   tok/<id>                        → TokenRecord
 *   toksym/<SYMBOL>                 → { id }          symbol uniqueness
 *   tokbal/<id>/<holder>            → "<balance>"
 *   tokalw/<id>/<owner>/<spender>   → "<allowance>"
 *   tokbl/<id>/<addr>               → true            blacklisted by the token owner
 *   tokfrz/<id>/<holder>            → { until }       holder's self-freeze, until a height
 */
export interface TokenRecord {
  id: Hex;
  name: string;
  symbol: string;
  decimals: number;
  owner: Address;
  mintable: boolean;
  paused: boolean;
  supply: string; // total supply: sum of all balances
  holders: number; // accounts holding a non-zero balance
  createdAt: number; // height
  createdBy: Hex; // id of the TOKEN_CREATE transaction
}

export const tokenKey = (id: Hex): string => recordKey('token', id);
export const symbolKey = (symbol: string): string => recordKey('tokenSymbol', symbol);
export const balanceKey = (id: Hex, holder: Address): string => recordKey('tokenBalance', id, holder);
export const allowanceKey = (id: Hex, owner: Address, spender: Address): string =>
  recordKey('tokenAllowance', id, owner, spender);
export const blacklistKey = (id: Hex, addr: Address): string => recordKey('tokenBlacklist', id, addr);
export const freezeKey = (id: Hex, holder: Address): string => recordKey('tokenFreeze', id, holder);

export const getToken = (s: ExecState, id: Hex): Promise<TokenRecord | undefined> =>
  s.getRecord<TokenRecord>(tokenKey(id));

export async function getTokenBalance(s: ExecState, id: Hex, holder: Address): Promise<bigint> {
  return BigInt((await s.getRecord<string>(balanceKey(id, holder))) ?? '0');
}

export async function getAllowance(s: ExecState, id: Hex, owner: Address, spender: Address): Promise<bigint> {
  return BigInt((await s.getRecord<string>(allowanceKey(id, owner, spender))) ?? '0');
}

/** tokfrz/<id>/<holder>: the holder cannot send the token while the height is below `until`. */
export interface FreezeRecord {
  until: number;
}

export const putToken = (s: ExecState, t: TokenRecord): Promise<void> => s.putRecord(tokenKey(t.id), t);

/** Writes a balance; a zero balance is deleted rather than stored. */
export async function setTokenBalance(s: ExecState, id: Hex, holder: Address, v: bigint): Promise<void> {
  if (v === 0n) await s.deleteRecord(balanceKey(id, holder));
  else await s.putRecord(balanceKey(id, holder), v.toString());
}

/** Writes an allowance; a zero allowance is deleted rather than stored. */
export async function setAllowance(s: ExecState, id: Hex, owner: Address, spender: Address, v: bigint): Promise<void> {
  if (v === 0n) await s.deleteRecord(allowanceKey(id, owner, spender));
  else await s.putRecord(allowanceKey(id, owner, spender), v.toString());
}

export async function isBlacklisted(s: ExecState, id: Hex, addr: Address): Promise<boolean> {
  return (await s.getRecord<boolean>(blacklistKey(id, addr))) === true;
}

export const getFreeze = (s: ExecState, id: Hex, holder: Address): Promise<FreezeRecord | undefined> =>
  s.getRecord<FreezeRecord>(freezeKey(id, holder));

/** Blacklists `addr` (stores true) or clears it (deletes the record). */
export async function setBlacklisted(s: ExecState, id: Hex, addr: Address, on: boolean): Promise<void> {
  if (on) await s.putRecord(blacklistKey(id, addr), true);
  else await s.deleteRecord(blacklistKey(id, addr));
}
