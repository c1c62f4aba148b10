import type { ExecState } from '../../chain/execState';
import type { Address } from '../../chain/types';
import type { Hex } from '../../primitives/hex';

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
  createdAt: number; // height
  createdBy: Hex; // id of the TOKEN_CREATE transaction
}

export const tokenKey = (id: Hex): string => `tok/${id}`;
export const symbolKey = (symbol: string): string => `toksym/${symbol}`;
export const balanceKey = (id: Hex, holder: Address): string => `tokbal/${id}/${holder}`;
export const allowanceKey = (id: Hex, owner: Address, spender: Address): string => `tokalw/${id}/${owner}/${spender}`;
export const blacklistKey = (id: Hex, addr: Address): string => `tokbl/${id}/${addr}`;
export const freezeKey = (id: Hex, holder: Address): string => `tokfrz/${id}/${holder}`;

export const getToken = (s: ExecState, id: Hex): Promise<TokenRecord | undefined> => s.getRecord<TokenRecord>(tokenKey(id));

export async function getTokenBalance(s: ExecState, id: Hex, holder: Address): Promise<bigint> {
  return BigInt((await s.getRecord<string>(balanceKey(id, holder))) ?? '0');
}

export async function getAllowance(s: ExecState, id: Hex, owner: Address, spender: Address): Promise<bigint> {
  return BigInt((await s.getRecord<string>(allowanceKey(id, owner, spender))) ?? '0');
}
