import type { AccountState } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { canonicalBytes } from '../primitives/canonical';
import { isHex } from '../primitives/hex';

/** The stored form: RFC 8785 JSON with amounts as integer strings (JSON has no bigint). */
interface AccountJson {
  balance: string;
  staked: string;
  nonce: number;
  energy: string;
  energyHeight: number;
  feeExempt: boolean;
  isValidator: boolean;
  mldsaKeyHash: string | null;
  /** VM fields, present only when non-default so plain accounts keep their eight-field form. */
  codeHash?: string;
  weiRemainder?: string;
  /** Resource delegation and permission fields, present only when non-default (same reason). */
  delegatedIn?: string;
  delegatedOut?: string;
  permissioned?: true;
}

const FIELDS = ['balance', 'energy', 'energyHeight', 'feeExempt', 'isValidator', 'mldsaKeyHash', 'nonce', 'staked'];
const OPTIONAL = new Set(['codeHash', 'weiRemainder', 'delegatedIn', 'delegatedOut', 'permissioned']);
const UINT_RE = /^(0|[1-9][0-9]*)$/;

export const emptyAccount = (): AccountState => ({
  balance: 0n,
  staked: 0n,
  nonce: 0,
  energy: 0n,
  energyHeight: 0,
  feeExempt: false,
  isValidator: false,
  mldsaKeyHash: null,
  codeHash: null,
  weiRemainder: 0n,
  delegatedOut: 0n,
  delegatedIn: 0n,
  permissioned: false,
});

/** A JSON string of text that needs no escaping. Module-level: a closure made per call costs a defineProperty under tsx. */
const q = (v: string): string => `"${v}"`;

/**
 * RFC 8785 form of an account, written directly: keys in JCS (UTF-16) order, values that
 * never need escaping (digits, lower-case hex, booleans, null). Byte-identical to
 * canonicalBytes(json) (property-tested) at a fraction of the cost — every state read and
 * write of an account goes through here.
 */
export function encodeAccount(a: AccountState): Uint8Array {
  let s = `{"balance":${q(a.balance.toString())}`;
  if (a.codeHash) s += `,"codeHash":${q(a.codeHash)}`;
  if (a.delegatedIn) s += `,"delegatedIn":${q(a.delegatedIn.toString())}`;
  if (a.delegatedOut) s += `,"delegatedOut":${q(a.delegatedOut.toString())}`;
  s += `,"energy":${q(a.energy.toString())},"energyHeight":${a.energyHeight}`;
  s += `,"feeExempt":${a.feeExempt},"isValidator":${a.isValidator}`;
  s += `,"mldsaKeyHash":${a.mldsaKeyHash === null ? 'null' : q(a.mldsaKeyHash)},"nonce":${a.nonce}`;
  if (a.permissioned) s += ',"permissioned":true';
  s += `,"staked":${q(a.staked.toString())}`;
  if (a.weiRemainder) s += `,"weiRemainder":${q(a.weiRemainder.toString())}`;
  return Buffer.from(`${s}}`, 'latin1');
}

/** The generic canonical encoding the fast path must equal (tests compare the two). */
export function encodeAccountReference(a: AccountState): Uint8Array {
  const json: AccountJson = {
    balance: a.balance.toString(),
    staked: a.staked.toString(),
    nonce: a.nonce,
    energy: a.energy.toString(),
    energyHeight: a.energyHeight,
    feeExempt: a.feeExempt,
    isValidator: a.isValidator,
    mldsaKeyHash: a.mldsaKeyHash,
  };
  if (a.codeHash) json.codeHash = a.codeHash;
  if (a.weiRemainder) json.weiRemainder = a.weiRemainder.toString();
  if (a.delegatedIn) json.delegatedIn = a.delegatedIn.toString();
  if (a.delegatedOut) json.delegatedOut = a.delegatedOut.toString();
  if (a.permissioned) json.permissioned = true;
  return canonicalBytes(json);
}

/**
 * Strict decode: exactly the eight fields (and the optional ones, only when non-default), the right types, non-negative
 * integers, and bytes that are already canonical, so one account has exactly one stored form and therefore one state
 * root. The check is one match against the canonical layout itself (CANONICAL): ~1 µs where parsing, validating and
 * re-encoding took ~25; decodeAccountReference is that reference, and the two agree on every input (property-tested).
 */
export function decodeAccount(b: Uint8Array): AccountState {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  const hit = decoded.get(text);
  if (hit) return { ...hit }; // callers mutate what they get
  const a = decodeCanonical(text);
  if (decoded.size >= DECODED_MAX) decoded.delete(decoded.keys().next().value!);
  decoded.set(text, a);
  return { ...a };
}

/**
 * Recently decoded accounts by stored text: the same few accounts (sender, contract, recipients) are read several
 * times while a block executes. Same bytes, same account, so a hit skips the decode.
 */
const decoded = new Map<string, AccountState>();
const DECODED_MAX = 8_192;

const UINT = '(0|[1-9][0-9]*)';
const NONZERO = '([1-9][0-9]*)';
const HASH = '(0x[0-9a-f]{64})';
/**
 * encodeAccount's output and nothing else: JCS key order, every optional field only with a non-default value, integer
 * strings and numbers without sign, leading zeros, exponent or space, lower-case hashes. Bytes outside ASCII cannot
 * match (they decode to U+0080–U+00FF), so text and bytes correspond one to one.
 */
const CANONICAL = new RegExp(
  `^\\{"balance":"${UINT}"(?:,"codeHash":"${HASH}")?(?:,"delegatedIn":"${NONZERO}")?` +
    `(?:,"delegatedOut":"${NONZERO}")?,"energy":"${UINT}","energyHeight":${UINT},"feeExempt":(true|false)` +
    `,"isValidator":(true|false),"mldsaKeyHash":(?:null|"${HASH}"),"nonce":${UINT}(,"permissioned":true)?` +
    `,"staked":"${UINT}"(?:,"weiRemainder":"${NONZERO}")?\\}$`,
);

function decodeCanonical(text: string): AccountState {
  const m = CANONICAL.exec(text);
  if (!m) return decodeAccountReference(Buffer.from(text, 'latin1')); // throws with the reason
  const [, balance, codeHash, delegatedIn, delegatedOut, energy, energyHeight, feeExempt] = m;
  const [isValidator, mldsaKeyHash, nonce, permissioned, staked, weiRemainder] = m.slice(8);
  return {
    balance: BigInt(balance),
    staked: BigInt(staked),
    nonce: safe(nonce, 'nonce'),
    energy: BigInt(energy),
    energyHeight: safe(energyHeight, 'energyHeight'),
    feeExempt: feeExempt === 'true',
    isValidator: isValidator === 'true',
    mldsaKeyHash: (mldsaKeyHash ?? null) as AccountState['mldsaKeyHash'],
    codeHash: (codeHash ?? null) as AccountState['codeHash'],
    weiRemainder: weiRemainder === undefined ? 0n : BigInt(weiRemainder),
    delegatedOut: delegatedOut === undefined ? 0n : BigInt(delegatedOut),
    delegatedIn: delegatedIn === undefined ? 0n : BigInt(delegatedIn),
    permissioned: permissioned !== undefined,
  };
}

/** A JSON integer the layout matched; above 2^53 − 1 it is not one JSON readers agree on. */
function safe(digits: string, name: string): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) throw bad(`${name} is not a non-negative integer`);
  return n;
}

/**
 * The decode decodeAccount must equal (tests compare the two): parse, check every field's type, and require that
 * re-encoding reproduces the bytes.
 */
export function decodeAccountReference(b: Uint8Array): AccountState {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw bad('not JSON', e);
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw bad('not an object');
  const o = j as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => !OPTIONAL.has(k))
    .sort();
  if (keys.length !== FIELDS.length || keys.some((k, i) => k !== FIELDS[i]))
    throw bad(`fields ${Object.keys(o).join(',')}`);
  const a: AccountState = {
    balance: amount(o.balance, 'balance'),
    staked: amount(o.staked, 'staked'),
    nonce: count(o.nonce, 'nonce'),
    energy: amount(o.energy, 'energy'),
    energyHeight: count(o.energyHeight, 'energyHeight'),
    feeExempt: flag(o.feeExempt, 'feeExempt'),
    isValidator: flag(o.isValidator, 'isValidator'),
    mldsaKeyHash: keyHash(o.mldsaKeyHash),
    codeHash: o.codeHash === undefined ? null : keyHash(o.codeHash),
    weiRemainder: o.weiRemainder === undefined ? 0n : amount(o.weiRemainder, 'weiRemainder'),
    delegatedOut: o.delegatedOut === undefined ? 0n : amount(o.delegatedOut, 'delegatedOut'),
    delegatedIn: o.delegatedIn === undefined ? 0n : amount(o.delegatedIn, 'delegatedIn'),
    permissioned: o.permissioned === undefined ? false : flag(o.permissioned, 'permissioned'),
  };
  if (!Buffer.from(encodeAccount(a)).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength)))
    throw bad('not canonical');
  return a;
}

function amount(v: unknown, name: string): bigint {
  if (typeof v !== 'string' || !UINT_RE.test(v)) throw bad(`${name} is not an integer string`);
  return BigInt(v);
}

function count(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(`${name} is not a non-negative integer`);
  return v;
}

function flag(v: unknown, name: string): boolean {
  if (typeof v !== 'boolean') throw bad(`${name} is not a boolean`);
  return v;
}

function keyHash(v: unknown): AccountState['mldsaKeyHash'] {
  if (v === null) return null;
  if (!isHex(v, 32) || v !== v.toLowerCase()) throw bad('mldsaKeyHash is not lower-case 32-byte hex');
  return v;
}

const bad = (why: string, cause?: unknown) =>
  new CairnError('BAD_ACCOUNT', `invalid stored account: ${why}`, {}, { cause });
