import type { Address, SignedTx } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { ASSET_ID_RE, tokenAmount } from '../assets/common';
import { refuse } from '../assets/define';

/** Field readers for the FT20 specs' `parse`: each returns the typed value or refuses with a clear reason. */
export const field = {
  token(tx: SignedTx, d: Record<string, unknown>): Hex {
    const v = d.token;
    if (typeof v !== 'string' || !ASSET_ID_RE.test(v)) refuse(`${tx.type} data.token must be a token id (0x + 40 lower-case hex digits)`);
    return v as Hex;
  },
  /** An integer string 1..2^256 − 1 (0..2^256 − 1 with `allowZero`). */
  amount(tx: SignedTx, d: Record<string, unknown>, key = 'amount', allowZero = false): bigint {
    const n = tokenAmount(d[key], allowZero);
    if (n === undefined) refuse(`${tx.type} data.${key} must be an integer string from ${allowZero ? 0 : 1} to 2^256 − 1`);
    return n;
  },
  /** A 0x address in any letter case, returned in the canonical lower-case form. */
  address(tx: SignedTx, d: Record<string, unknown>, key: string): Address {
    const v = d[key];
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) refuse(`${tx.type} data.${key} must be a 0x address (40 hex digits)`);
    return `0x${v.slice(2).toLowerCase()}`;
  },
  boolean(tx: SignedTx, d: Record<string, unknown>, key: string, fallback?: boolean): boolean {
    const v = key in d ? d[key] : fallback;
    if (typeof v !== 'boolean') refuse(`${tx.type} data.${key} must be a boolean`);
    return v;
  },
};
