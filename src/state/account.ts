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

/**
 * RFC 8785 form of an account, written directly: keys in JCS (UTF-16) order, values that
 * never need escaping (digits, lower-case hex, booleans, null). Byte-identical to
 * canonicalBytes(json) (property-tested) at a fraction of the cost — every state read and
 * write of an account goes through here.
 */
export function encodeAccount(a: AccountState): Uint8Array {
  const q = (v: string) => `"${v}"`;
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
 * integers, and
 * bytes that are already canonical (re-encoding must reproduce them), so one account
 * has exactly one stored form and therefore one state root.
 */
export function decodeAccount(b: Uint8Array): AccountState {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
  const hit = decoded.get(text);
  if (hit) return { ...hit }; // callers mutate what they get
  const a = decodeChecked(b, text);
  if (decoded.size >= DECODED_MAX) decoded.delete(decoded.keys().next().value!);
  decoded.set(text, a);
  return { ...a };
}

/**
 * Recently decoded accounts by stored text. Decoding parses, validates and re-encodes (the
 * canonical check): ~25 µs, paid several times per transaction for the same few accounts
 * (sender, contract, recipients) while a block executes. Same bytes, same account, so a hit
 * skips all of it.
 */
const decoded = new Map<string, AccountState>();
const DECODED_MAX = 8_192;

function decodeChecked(b: Uint8Array, text: string): AccountState {
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
