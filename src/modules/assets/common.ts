import { MAX_TOKEN_AMOUNT } from '../../protocol/params';
import type { Address, SignedTx } from '../../protocol/types';
import { keccakHex } from '../../crypto/hash';
import { concatBytes, fromHex, utf8, type Hex } from '../../primitives/hex';
import { parseAmount } from '../../primitives/amount';
import { TxFailure } from '../../protocol/handler';

/** Domain tag for ids of assets (tokens, collections) born from a transaction. */
const ASSET_DOMAIN = 'CAIRN/ASSET/v1\n';

/**
 * Id of the asset a transaction creates: the last 20 bytes of keccak256(domain || tx id),
 * lower-case 0x hex. Deterministic, and unique because transaction ids are.
 */
export function assetId(txId: Hex): Hex {
  return `0x${keccakHex(concatBytes(utf8(ASSET_DOMAIN), fromHex(txId))).slice(26)}`;
}

/** Lower-case 0x + 40 hex: the shape of token and collection ids. */
export const ASSET_ID_RE = /^0x[0-9a-f]{40}$/;

/**
 * The `data` object of a module transaction, with exactly the allowed keys (`required` must
 * be present). Returns a refusal reason or the object.
 */
export function dataFields(tx: SignedTx, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> | string {
  const d = tx.data;
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return `${tx.type} needs a data object with ${required.join(', ')}`;
  const obj = d as Record<string, unknown>;
  for (const k of required) if (!(k in obj)) return `${tx.type} data.${k} is required`;
  for (const k of Object.keys(obj)) if (!required.includes(k) && !optional.includes(k)) return `${tx.type} data has unknown field "${k}"`;
  return obj;
}

/** Checks common to every module type: hybrid envelope only and no native amount (unless `allowAmount`). */
export function commonChecks(tx: SignedTx, allowAmount = false): string | undefined {
  if (tx.envelope === 'eth') return `${tx.type} is a hybrid-envelope type`;
  if (!allowAmount && tx.amount !== '0') return `${tx.type} moves no native coins: amount must be "0"`;
  return undefined;
}

/** A token amount: integer string, 0 < n ≤ 2^256 − 1 (or ≥ 0 when `allowZero`). */
export function tokenAmount(v: unknown, allowZero = false): bigint | undefined {
  const n = parseAmount(v, 78);
  if (n === undefined || n > MAX_TOKEN_AMOUNT || (!allowZero && n === 0n)) return undefined;
  return n;
}

/** Fails the transaction unless `who` is `expected` (owner checks). */
export function requireOwner(who: Address, expected: Address, what: string): void {
  if (who !== expected) throw new TxFailure(`only the owner of ${what} may do this`);
}

export const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');
