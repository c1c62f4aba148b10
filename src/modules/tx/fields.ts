import { FormatRegistry, Kind, Type, TypeRegistry } from '@sinclair/typebox';
import { MAX_TOKEN_AMOUNT, NAME_RE, SYMBOL_RE } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import { parseAddress } from '../../crypto/address';
import { parseAmount } from '../../primitives/amount';
import { isHex, type Hex } from '../../primitives/hex';
import { ASSET_ID_RE } from '../assets/common';
import type { Check, Field, OptionalField } from './entry';

/**
 * The field kinds of transaction data: each is one rule (TypeBox schemas, with the custom
 * formats below where JSON Schema cannot say it) that the node's validation and the SDK's
 * builder both check, with the node's reason and the SDK's message attached to each check.
 */

// Custom formats: registered once, under the cairn. prefix, before any entry compiles.
const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
/** Control characters (C0, DEL, C1) and lone surrogates (not encodable as UTF-8): the one text rule of names. */
export const BAD_TEXT = /[\p{Cc}\p{Cs}]/u;
const FORMATS: Record<string, (v: string) => boolean> = {
  'cairn.uint256': (v) => parseAmount(v, 78) !== undefined && BigInt(v) <= MAX_TOKEN_AMOUNT,
  'cairn.uint256-positive': (v) => v !== '0' && parseAmount(v, 78) !== undefined && BigInt(v) <= MAX_TOKEN_AMOUNT,
  'cairn.plain-text': (v) => !BAD_TEXT.test(v),
  'cairn.name-any-case': (v) => NAME_RE.test(v.toLowerCase()),
  'cairn.hex': (v) => isHex(v),
  'cairn.address': (v) => parseAddress(v) !== undefined,
};
for (const [name, check] of Object.entries(FORMATS)) FormatRegistry.Set(name, check);
/** A string of at most `max` UTF-8 bytes. */
export function utf8Max(max: number): string {
  const name = `cairn.utf8-max-${max}`;
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, (v) => utf8Bytes(v) <= max);
  return name;
}

// JSON Schema cannot check a record's keys by format: a custom kind does (compiled like the rest).
TypeRegistry.Set(
  'CairnAddressKeys',
  (_schema, value) =>
    value !== null && typeof value === 'object' && Object.keys(value).every((k) => parseAddress(k) !== undefined),
);
/** An object whose keys are all addresses (0x… or cairn1…). */
export const addressKeys = () => Type.Unsafe<Record<string, unknown>>({ [Kind]: 'CairnAddressKeys' });

/** The SDK's refusal of an address input (a data field or the envelope's `to`). */
export const ADDRESS_INPUT = (got: string): string => `must be an address (0x + 40 hex, or cairn1…), got ${got}`;

/** How an SDK input value prints in a message. */
export const show = (v: unknown): string =>
  typeof v === 'string' ? `"${v}"` : typeof v === 'bigint' ? `${v}n` : (JSON.stringify(v) ?? String(v));

/** One rule of a field kind: its schema, the node's reason and the SDK's message. */
export const check = (schema: Check['schema'], reason: string, sdk: Check['sdk']): Check => ({ schema, reason, sdk });
const same = <V>(v: unknown) => v as V;

/** A token or collection id: lower-case 0x + 40 hex (the SDK lower-cases its input first). */
export function assetIdField(what: 'token' | 'collection', doc: string): Field<Hex, string> {
  const sdk = (got: string) => `must be an asset id (0x + 40 hex), got ${got}`;
  return {
    checks: [
      check(Type.String({ pattern: ASSET_ID_RE.source }), `must be a ${what} id (0x + 40 lower-case hex digits)`, sdk),
    ],
    read: same<Hex>,
    input: { convert: (v) => (typeof v === 'string' ? v.toLowerCase() : null), refused: sdk },
    doc,
  };
}

/**
 * A token amount: an integer string 1..2^256 − 1 (0..2^256 − 1 with `allowZero`); the SDK also takes bigint and safe
 * integers.
 */
/** A token amount as the SDK takes it: integer string, bigint or safe integer. */
export type TokenAmount = bigint | string | number;

export function tokenAmountField(doc: string, allowZero = false): Field<bigint, TokenAmount> {
  const range = allowZero ? '0 to 2^256 - 1' : '1 to 2^256 - 1';
  return {
    checks: [
      check(
        Type.String({ format: allowZero ? 'cairn.uint256' : 'cairn.uint256-positive' }),
        `must be an integer string from ${allowZero ? 0 : 1} to 2^256 − 1`,
        (got) => `must be from ${range}, got ${got}`,
      ),
    ],
    read: (v) => BigInt(v as string),
    input: {
      convert: (v) =>
        typeof v === 'bigint'
          ? v.toString(10)
          : typeof v === 'number' && Number.isSafeInteger(v)
            ? String(v)
            : typeof v === 'string' && /^(0|[1-9][0-9]*)$/.test(v) && v.length <= 78
              ? v
              : undefined,
      refused: (got) => `must be an integer amount in the token's base units (${range}), got ${got}`,
    },
    doc,
  };
}

/**
 * An address in data: 0x + 40 hex in any letter case, read in the canonical lower case (the SDK also takes cairn1…).
 */
export function addressField(doc: string): Field<Address, string> {
  return {
    checks: [
      check(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }), 'must be a 0x address (40 hex digits)', ADDRESS_INPUT),
    ],
    read: (v) => `0x${(v as string).slice(2).toLowerCase()}`,
    input: { convert: (v) => (typeof v === 'string' ? parseAddress(v) : undefined), refused: ADDRESS_INPUT },
    doc,
  };
}

/** A boolean; `fallback` makes it optional. */
export function booleanField(doc: string): Field<boolean>;
export function booleanField(doc: string, fallback: boolean): OptionalField<boolean>;
export function booleanField(doc: string, fallback?: boolean): Field<boolean> {
  return {
    checks: [check(Type.Boolean(), 'must be a boolean', (got) => `must be true or false, got ${got}`)],
    ...(fallback !== undefined ? { optional: true } : {}),
    read: (v) => (v === undefined ? fallback! : (v as boolean)),
    doc,
  };
}

/** An integer min..max (a JSON number; max defaults to the largest safe integer). */
export function integerField(reason: string, doc: string, min: number, max = Number.MAX_SAFE_INTEGER): Field<number> {
  return {
    checks: [
      check(
        Type.Integer({ minimum: min, maximum: max }),
        reason,
        (got) => `must be an integer from ${min} to ${max}, got ${got}`,
      ),
    ],
    read: same<number>,
    doc,
  };
}

/**
 * A token or collection display name: 1 to `maxBytes` UTF-8 bytes of text without control
 * characters or lone surrogates (BAD_TEXT) — one rule for every asset that has a display
 * name (tokens, collections), node and SDK alike. `shape` is the node's reason for a non-string, empty or long name;
 * `text` for a forbidden character (the same sentence for types that word both at once).
 */
export function assetNameField(maxBytes: number, reasons: { shape: string; text: string }, doc: string): Field<string> {
  return {
    checks: [
      check(Type.String({ minLength: 1 }), reasons.shape, (got) => `must be a non-empty string, got ${got}`),
      check(
        Type.String({ format: utf8Max(maxBytes) }),
        reasons.shape,
        () => `must be at most ${maxBytes} bytes of UTF-8`,
      ),
      check(Type.String({ format: 'cairn.plain-text' }), reasons.text, () => 'must not contain control characters'),
    ],
    read: same<string>,
    doc,
  };
}

/** A token or collection symbol: SYMBOL_RE (uniqueness is state: checked at execution). */
export function symbolField(reason: string, doc: string): Field<string> {
  const sdk = (got: string) =>
    `must be an upper-case letter then up to 11 upper-case letters or digits (e.g. "USDC"), got ${got}`;
  return { checks: [check(Type.String({ pattern: SYMBOL_RE.source }), reason, sdk)], read: same<string>, doc };
}

/** An optional text of at most `maxBytes` UTF-8 bytes, or null (absent reads as null; the SDK takes a string only). */
export function optionalTextField(maxBytes: number, doc: string): OptionalField<string | null, string> {
  return {
    checks: [
      check(
        Type.Union([Type.Null(), Type.String({ format: utf8Max(maxBytes) })]),
        `must be a string of at most ${maxBytes} UTF-8 bytes, or null`,
        () => `must be at most ${maxBytes} bytes of UTF-8`,
      ),
    ],
    optional: true,
    read: (v) => (v === undefined || v === null ? null : (v as string)),
    input: {
      convert: (v) => (typeof v === 'string' ? v : undefined),
      refused: (got) => `must be a string, got ${got}`,
    },
    doc,
  };
}

/** A name-service name: NAME_RE, with upper case refused by its own reason (names are never case-folded). */
export function nsNameField(doc: string): Field<string> {
  const sdk = (got: string) =>
    `must be 3 to 32 characters of a-z, 0-9 and '-', not starting or ending with '-', got ${got}`;
  return {
    checks: [
      check(
        Type.String({ format: 'cairn.name-any-case' }),
        'must be 3 to 32 characters of a-z, 0-9 and "-", not starting or ending with "-"',
        sdk,
      ),
      check(Type.String({ pattern: NAME_RE.source }), 'must be lower case (names are not case-folded)', sdk),
    ],
    read: same<string>,
    doc,
  };
}

/** 0x-prefixed hex of whole bytes. */
export function hexField(reason: string, doc: string): Field<Hex, string> {
  return {
    checks: [check(Type.String({ format: 'cairn.hex' }), reason, (got) => `${reason}, got ${got}`)],
    read: same<Hex>,
    doc,
  };
}

/**
 * The id of an earlier transaction that created something (a proposal, a schedule…): 0x + 64 hex, read in lower case.
 */
export function txIdField(what: string, creator: string, doc: string): Field<Hex, string> {
  const reason = `must be ${what} id (0x + 64 hex digits: the ${creator} transaction id)`;
  return {
    checks: [check(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }), reason, (got) => `${reason}, got ${got}`)],
    read: (v) => (v as string).toLowerCase() as Hex,
    input: {
      convert: (v) => (typeof v === 'string' ? v.toLowerCase() : undefined),
      refused: (got) => `${reason}, got ${got}`,
    },
    doc,
  };
}

/** The addresses (0x) among `o`'s `keys`, skipping what is absent or not an address: an entry's `parties`. */
export function addressesIn(o: unknown, keys: readonly string[]): Address[] {
  if (o === null || typeof o !== 'object') return [];
  const rec = o as Record<string, unknown>;
  return keys.flatMap((k) => {
    const a = typeof rec[k] === 'string' ? parseAddress(rec[k] as string) : undefined;
    return a ? [a] : [];
  });
}
