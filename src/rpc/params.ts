import type { Address } from '../protocol/types';
import { fromHex, type Hex } from '../primitives/hex';
import type { RpcCallMessage } from '../api/ports';
import { invalidParams } from './errors';

/**
 * Parameter validation for the JSON-RPC methods. Every failure is -32602 with a message in
 * geth's style ("invalid argument 1: ..."), so a client sees which parameter is wrong.
 *
 * Input rules (lenient where ethers/viem legitimately differ, strict on wrong types):
 * - addresses: `0x` + 40 hex digits, any case (EIP-55 checksum not enforced);
 * - hashes: `0x` + 64 hex digits, any case;
 * - quantities: `0x` + 1..64 hex digits; leading zeros are tolerated on input (answers never
 *   carry them); decimal strings, JSON numbers and the empty `0x` are refused;
 * - data: `0x` + an even number of hex digits (`0x` = empty);
 * - block tags: a quantity height, `latest`, `earliest`, `pending`, `safe`, `finalized`, or an
 *   EIP-1898 object `{blockNumber}` / `{blockHash}`.
 */

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const HASH_RE = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY_RE = /^0x[0-9a-fA-F]{1,64}$/;
const DATA_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

export const describe = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'string'
        ? `string "${v.length > 24 ? `${v.slice(0, 24)}…` : v}"`
        : typeof v;

const arg = (i: number, m: string) => invalidParams(`invalid argument ${i}: ${m}`);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the number of positional params: optional trailing params may be omitted, extras are refused. */
export function checkArity(params: unknown[], min: number, max: number): void {
  if (params.length > max) {
    throw invalidParams(
      max === 0
        ? `too many arguments: this method takes no params, got ${params.length}`
        : `too many arguments, want at most ${max}, got ${params.length}`,
    );
  }
  if (params.length < min) throw invalidParams(`missing value for required argument ${params.length}`);
}

export function address(v: unknown, i: number, what = 'address'): Address {
  if (typeof v !== 'string' || !ADDRESS_RE.test(v))
    throw arg(i, `${what} must be 0x followed by 40 hex digits, got ${describe(v)}`);
  return `0x${v.slice(2).toLowerCase()}`;
}

export function hash(v: unknown, i: number, what = 'hash'): Hex {
  if (typeof v !== 'string' || !HASH_RE.test(v))
    throw arg(i, `${what} must be 0x followed by 64 hex digits, got ${describe(v)}`);
  return `0x${v.slice(2).toLowerCase()}`;
}

export function quantity(v: unknown, i: number, what = 'quantity'): bigint {
  if (typeof v !== 'string' || !QUANTITY_RE.test(v))
    throw arg(i, `${what} must be a hex quantity (0x followed by 1 to 64 hex digits), got ${describe(v)}`);
  return BigInt(v);
}

export function data(v: unknown, i: number, what = 'data'): Hex {
  if (typeof v !== 'string' || !DATA_RE.test(v))
    throw arg(i, `${what} must be 0x followed by an even number of hex digits, got ${describe(v)}`);
  return `0x${v.slice(2).toLowerCase()}`;
}

export function bool(v: unknown, i: number, what = 'flag'): boolean {
  if (typeof v !== 'boolean') throw arg(i, `${what} must be a boolean, got ${describe(v)}`);
  return v;
}

export type BlockSpec =
  | { tag: 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized' }
  | { number: bigint }
  | { hash: Hex; requireCanonical: boolean };

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);

/** A block parameter; `undefined` (omitted) or `null` means `latest`. */
export function blockSpec(v: unknown, i: number): BlockSpec {
  if (v === undefined || v === null) return { tag: 'latest' };
  if (typeof v === 'string') {
    if (TAGS.has(v)) return { tag: v as 'latest' };
    if (QUANTITY_RE.test(v)) return { number: BigInt(v) };
    throw arg(i, `block must be a hex height or one of latest, earliest, pending, safe, finalized, got ${describe(v)}`);
  }
  if (isPlainObject(v)) {
    // EIP-1898
    const hasNumber = Object.hasOwn(v, 'blockNumber');
    const hasHash = Object.hasOwn(v, 'blockHash');
    if (hasNumber === hasHash) throw arg(i, 'block object must have exactly one of blockNumber and blockHash');
    if (hasNumber) return blockSpec(v.blockNumber, i);
    const rc = v.requireCanonical;
    if (rc !== undefined && typeof rc !== 'boolean') throw arg(i, 'requireCanonical must be a boolean');
    return { hash: hash(v.blockHash, i, 'blockHash'), requireCanonical: rc === true };
  }
  throw arg(i, `block must be a hex height, a tag or an EIP-1898 object, got ${describe(v)}`);
}

/**
 * The call object of eth_call / eth_estimateGas. Known fields are type-checked; unknown
 * fields are ignored (clients add their own). `data` and `input` are aliases; both given
 * and different is refused, as geth does. EIP-1559 fees stand in for gasPrice when it is absent.
 */
export function callObject(v: unknown, i: number): RpcCallMessage {
  if (!isPlainObject(v)) throw arg(i, `call object must be a JSON object, got ${describe(v)}`);
  const opt = <T>(key: string, parse: (x: unknown, i: number, what: string) => T): T | undefined =>
    v[key] === undefined || v[key] === null ? undefined : parse(v[key], i, key);
  const msg: RpcCallMessage = {};
  const from = opt('from', address);
  if (from !== undefined) msg.from = from;
  msg.to = opt('to', address) ?? null;
  const value = opt('value', quantity);
  if (value !== undefined) msg.valueWei = value;
  const gas = opt('gas', quantity);
  if (gas !== undefined) msg.gasLimit = gas;
  const gasPrice = opt('gasPrice', quantity);
  const maxFee = opt('maxFeePerGas', quantity);
  opt('maxPriorityFeePerGas', quantity);
  opt('nonce', quantity);
  opt('chainId', quantity);
  opt('type', quantity);
  if (v.accessList !== undefined && v.accessList !== null && !Array.isArray(v.accessList))
    throw arg(i, 'accessList must be an array');
  if (gasPrice !== undefined || maxFee !== undefined) msg.gasPrice = gasPrice ?? maxFee;
  const input = opt('input', data);
  const dataField = opt('data', data);
  if (input !== undefined && dataField !== undefined && input !== dataField) {
    throw arg(i, 'both "data" and "input" are set and not equal; use "input"');
  }
  const bytes = input ?? dataField;
  if (bytes !== undefined) msg.input = fromHex(bytes);
  return msg;
}

export interface LogFilterSpec {
  from: BlockSpec;
  to: BlockSpec;
  blockHash?: Hex;
  addresses: Address[];
  topics: (Hex[] | null)[];
}

/**
 * eth_getLogs filter: fromBlock/toBlock (default latest) or blockHash; address one or many; topics with null wildcards
 * and OR-arrays.
 */
export function logFilter(v: unknown, i: number): LogFilterSpec {
  if (!isPlainObject(v)) throw arg(i, `filter must be a JSON object, got ${describe(v)}`);
  const given = (k: string) => v[k] !== undefined && v[k] !== null;
  let blockHash: Hex | undefined;
  if (given('blockHash')) {
    if (given('fromBlock') || given('toBlock')) throw arg(i, 'blockHash cannot be combined with fromBlock/toBlock');
    blockHash = hash(v.blockHash, i, 'blockHash');
  }
  const from = blockSpec(v.fromBlock, i);
  const to = blockSpec(v.toBlock, i);
  if ('hash' in from || 'hash' in to) throw arg(i, 'fromBlock/toBlock must be a hex height or a tag');

  let addresses: Address[] = [];
  if (given('address')) {
    const a = v.address;
    if (typeof a === 'string') addresses = [address(a, i)];
    else if (Array.isArray(a)) addresses = [...new Set(a.map((x) => address(x, i)))];
    else throw arg(i, `address must be an address or an array of addresses, got ${describe(a)}`);
  }

  const topics: (Hex[] | null)[] = [];
  if (given('topics')) {
    if (!Array.isArray(v.topics)) throw arg(i, `topics must be an array, got ${describe(v.topics)}`);
    if (v.topics.length > 4) throw arg(i, `topics may have at most 4 positions, got ${v.topics.length}`);
    for (const t of v.topics) {
      if (t === null || t === undefined) topics.push(null);
      else if (typeof t === 'string') topics.push([hash(t, i, 'topic')]);
      else if (Array.isArray(t)) {
        // An OR-array that is empty or contains null matches anything at this position.
        if (t.length === 0 || t.some((x) => x === null)) topics.push(null);
        else topics.push([...new Set(t.map((x) => hash(x, i, 'topic')))]);
      } else throw arg(i, `each topic must be null, a 32-byte hash or an array of hashes, got ${describe(t)}`);
    }
    while (topics.length > 0 && topics[topics.length - 1] === null) topics.pop();
  }
  return { from, to, blockHash, addresses, topics };
}

/** eth_feeHistory blockCount: a hex quantity, or a non-negative JSON integer (geth accepts both). */
export function blockCount(v: unknown, i: number): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  const q = quantity(v, i, 'blockCount');
  return q > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(q);
}

/** eth_feeHistory rewardPercentiles: numbers in [0, 100], non-decreasing. */
export function percentiles(v: unknown, i: number, max: number): number[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw arg(i, `rewardPercentiles must be an array of numbers, got ${describe(v)}`);
  if (v.length > max) throw arg(i, `at most ${max} reward percentiles, got ${v.length}`);
  let prev = 0;
  for (const p of v) {
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 100)
      throw arg(i, `each reward percentile must be a number in [0, 100], got ${describe(p)}`);
    if (p < prev) throw arg(i, 'reward percentiles must be non-decreasing');
    prev = p;
  }
  return v as number[];
}
