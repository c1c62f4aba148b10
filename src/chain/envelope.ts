import { CairnError } from '../errors/CairnError';
import { parseAmount } from '../primitives/amount';
import { canonicalJson } from '../primitives/canonical';
import { boundedMemo } from '../primitives/memo';
import { fromHex, isHex, toHex, type Hex } from '../primitives/hex';
import { parseAddress } from '../crypto/address';
import { senderMatchesKey, signingBytes, txId, txIdAndSigningBytes } from '../crypto/txSigning';
import { MLDSA44_PUB_BYTES, signHybrid, type HybridSignatures, type VerifyJob } from '../crypto/hybrid';
import type { HybridKeys } from '../crypto/keys';
import { MAX_DATA_BYTES } from '../protocol/params';
import type { Network } from '../protocol/network';
import type { Address, HybridTx, TxPayload, TxType } from '../protocol/types';
import { isImplemented, nestedOf } from '../modules/registry';
import { isRecord } from '../primitives/record';

/**
 * The hybrid transaction envelope (docs/PROTOCOL.md, "Transaction envelope").
 * Signing bytes = utf8(TX_DOMAIN) ‖ genesis hash ‖ RFC 8785 JSON of exactly the nine payload
 * fields; id = keccak256(utf8(TX_DOMAIN) ‖ the JSON). Signatures and keys are outside the
 * payload, so re-signing yields the same id; the genesis hash binds the signatures to one chain.
 */

const DEFAULT_FEE = '1000';
const EMPTY = new Uint8Array(0);

export { senderMatchesKey, signingBytes, txId, txIdAndSigningBytes };

/** Signing bytes computed at decode, reused for verification (the canonical encoding is not free). */
const signingBytesCache = new WeakMap<HybridTx, { genesisHash: Hex; msg: Uint8Array }>();
function signingBytesOf(tx: HybridTx, network: Network): Uint8Array {
  const c = signingBytesCache.get(tx);
  return c !== undefined && c.genesisHash === network.genesisHash ? c.msg : signingBytes(tx, network);
}

const lowerHex = (s: string): Hex => `0x${s.slice(2).toLowerCase()}`;

/**
 * Nesting bound for `data`: canonicalization is recursive and overflows the stack near
 * ~3,000 levels, and a transaction that cannot be hashed must never be admitted.
 */
export const MAX_DATA_DEPTH = 64;

/**
 * Checks that `data` is plain JSON whose numbers are safe integers (RFC 8785 number
 * formatting is where independent implementations disagree, and the protocol has no
 * floats), at most MAX_DATA_DEPTH deep and at most MAX_DATA_BYTES as canonical UTF-8.
 * Iterative, and bails out early on size, so hostile input costs little.
 */
function dataProblem(data: unknown): string | undefined {
  const tooBig = `data field exceeds ${MAX_DATA_BYTES} bytes`;
  const stack: [unknown, number][] = [[data, 0]];
  let lowerBound = 0; // bytes the canonical text certainly has (string contents and keys)
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (depth > MAX_DATA_DEPTH) return `data nesting exceeds ${MAX_DATA_DEPTH} levels`;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'string') {
      lowerBound += v.length + 2;
    } else if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) return 'data numbers must be safe integers';
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
    } else if (isRecord(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null)) {
      for (const [key, item] of Object.entries(v)) {
        lowerBound += key.length + 3;
        stack.push([item, depth + 1]);
      }
    } else {
      return 'data must be a JSON value';
    }
    if (lowerBound > MAX_DATA_BYTES) return tooBig;
  }
  if (Buffer.byteLength(canonicalJson(data), 'utf8') > MAX_DATA_BYTES) return tooBig;
  return undefined;
}

export interface TxFields {
  type: TxType;
  to?: Address | string | null;
  amount?: bigint | string;
  nonce: number;
  timestamp?: number;
  fee?: bigint | string;
  data?: unknown;
}

function amountText(v: bigint | string | undefined, fallback: string, field: string): string {
  if (v === undefined) return fallback;
  const text = typeof v === 'bigint' ? v.toString(10) : v;
  if (parseAmount(text) === undefined)
    throw new CairnError('INVALID_TX_FIELD', `${field} must be a non-negative integer`, { field });
  return text;
}

/** Payload for `keys.address` on chain `chainId`. Throws CairnError on invalid fields (a caller bug). */
export function buildPayload(keys: HybridKeys, fields: TxFields, chainId: number): TxPayload {
  let to: Address | null = null;
  if (fields.to !== undefined && fields.to !== null) {
    const parsed = parseAddress(fields.to);
    if (!parsed) throw new CairnError('INVALID_TX_FIELD', 'invalid to address', { field: 'to' });
    to = parsed;
  }
  const timestamp = fields.timestamp ?? Date.now();
  if (!Number.isSafeInteger(fields.nonce) || fields.nonce < 0)
    throw new CairnError('INVALID_TX_FIELD', 'nonce must be a non-negative integer', { field: 'nonce' });
  if (!Number.isSafeInteger(timestamp) || timestamp <= 0)
    throw new CairnError('INVALID_TX_FIELD', 'timestamp must be a positive integer', { field: 'timestamp' });
  const data = fields.data === undefined ? null : fields.data;
  const problem = dataProblem(data);
  if (problem) throw new CairnError('INVALID_TX_FIELD', problem, { field: 'data' });
  return {
    chainId,
    type: fields.type,
    from: keys.address,
    to,
    amount: amountText(fields.amount, '0', 'amount'),
    nonce: fields.nonce,
    timestamp,
    fee: amountText(fields.fee, DEFAULT_FEE, 'fee'),
    data,
  };
}

/**
 * Signs `fields` for `network` (its chain id goes in the payload, its genesis hash in the
 * signing bytes). `sign` defaults to the deterministic reference signer; a bulk signer
 * (benchmark fixtures) may pass a faster one. The id covers the payload only, so it is the
 * same either way.
 */
export function signTx(
  keys: HybridKeys,
  fields: TxFields,
  network: Network,
  sign: (keys: HybridKeys, msg: Uint8Array) => HybridSignatures = signHybrid,
): HybridTx {
  const payload = buildPayload(keys, fields, network.chainId);
  const { id, msg } = txIdAndSigningBytes(payload, network);
  const sigs = sign(keys, msg);
  return {
    ...payload,
    id,
    publicKeys: { secp256k1: toHex(keys.secp256k1.publicKey), mldsa44: toHex(keys.mldsa44.publicKey) },
    signatures: { secp256k1: toHex(sigs.secp256k1), mldsa44: toHex(sigs.mldsa44) },
  };
}

/**
 * `signature: true`: the envelope carries an `id` that is not its payload's — the payload was
 * changed after signing (or the id edited). Submission refuses it as `invalid signature`
 * (docs/PROTOCOL.md "Admission (POST /tx)": a payload changed after signing), with `id` the id of the payload as
 * received.
 * Other failures are malformed input (400).
 */
export type DecodeResult =
  | { ok: true; tx: HybridTx }
  | { ok: false; error: string; signature?: never }
  | { ok: false; error: string; signature: true; id: Hex };

const ENVELOPE_KEYS = new Set([
  'id',
  'chainId',
  'type',
  'from',
  'to',
  'amount',
  'nonce',
  'timestamp',
  'fee',
  'data',
  'publicKeys',
  'signatures',
]);

/**
 * One string per public key: a sender's transactions share its keys' hex (2.6 KB for the ML-DSA
 * key) instead of each keeping the copy its JSON body was parsed into — most of a pending
 * transaction's memory after its signature. Same value either way.
 */
const keyStrings = new Map<string, Hex>();
const KEYS_KEPT = 20_000;
/** What keys are filed under: their first 32 bytes (hashing the whole 2,626 characters costs more than a check). */
const fingerprint = (hex: string) => hex.slice(2, 66);

/**
 * The interned lower-case hex of a key submitted exactly so before, if it was: only checked keys are entered, so a
 * hit skips the check (a sender's keys arrive with each of its transactions); the length tells the two kinds apart.
 */
function knownKey(v: unknown, hexLengths: readonly number[]): Hex | undefined {
  if (typeof v !== 'string' || !hexLengths.includes(v.length)) return undefined;
  const known = keyStrings.get(fingerprint(v));
  return known === v ? known : undefined;
}

function interned(submitted: string): Hex {
  const lower = lowerHex(submitted);
  const f = fingerprint(lower);
  const known = keyStrings.get(f);
  if (known === lower) return known;
  if (keyStrings.size >= KEYS_KEPT) keyStrings.clear();
  keyStrings.set(f, lower);
  return lower;
}

const SECP_HEX = [2 + 33 * 2, 2 + 65 * 2];
const MLDSA_HEX = [2 + MLDSA44_PUB_BYTES * 2];

function publicKeysOf(v: unknown): HybridTx['publicKeys'] | string {
  if (!isRecord(v)) return 'missing field: publicKeys';
  for (const k of Object.keys(v)) if (k !== 'secp256k1' && k !== 'mldsa44') return `unknown field: publicKeys.${k}`;
  const { secp256k1, mldsa44 } = v;
  let secp = knownKey(secp256k1, SECP_HEX);
  if (secp === undefined) {
    if (!(isHex(secp256k1, 33) || isHex(secp256k1, 65)))
      return 'publicKeys.secp256k1 must be 0x hex of a 33- or 65-byte key';
    secp = interned(secp256k1);
  }
  let pq = knownKey(mldsa44, MLDSA_HEX);
  if (pq === undefined) {
    if (!isHex(mldsa44, MLDSA44_PUB_BYTES))
      return `publicKeys.mldsa44 must be 0x hex of a ${MLDSA44_PUB_BYTES}-byte key`;
    pq = interned(mldsa44);
  }
  return { secp256k1: secp, mldsa44: pq };
}

/**
 * A missing or malformed signature is not a structural error: it fails verification. An
 * unknown key is (like one in publicKeys): the envelope stored and relayed is exactly the
 * one checked, with nothing dropped on the way.
 */
function signaturesOf(v: unknown): HybridTx['signatures'] | string {
  if (!isRecord(v)) return heldAsBytes(EMPTY, EMPTY);
  // Held as bytes already (a block read from a binary sync page or the store): the same object, no hex made.
  if (settledBytes.has(v as HybridTx['signatures'])) return v as HybridTx['signatures'];
  for (const k of Object.keys(v)) if (k !== 'secp256k1' && k !== 'mldsa44') return `unknown field: signatures.${k}`;
  return heldAsBytes(hexBytes(v.secp256k1), hexBytes(v.mldsa44));
}

/**
 * 0x hex (either case) of whole bytes as bytes in an array of their own (a slice of Node's shared pool would keep
 * 8 KB alive); anything else as no bytes ('0x'). Decoding is the check: Node's hex decoder stops at the first
 * character that is not a hex digit.
 */
function hexBytes(s: unknown): Uint8Array {
  if (typeof s !== 'string' || s.length % 2 !== 0 || s.charCodeAt(0) !== 48 || s.charCodeAt(1) !== 120) return EMPTY;
  const out = new Uint8Array((s.length - 2) / 2);
  return Buffer.from(out.buffer).write(s.slice(2), 'hex') === out.length ? out : EMPTY;
}

/**
 * Signatures held as bytes behind getters that give their lower-case hex: JSON, the block encoding and every reader
 * see the same fields, while a transaction holds its 2,420-byte ML-DSA signature once instead of 4,842 characters of
 * hex (most of a pending transaction's memory), and the verifier and the block codec take the bytes as they are.
 */
export function heldAsBytes(secp: Uint8Array, mldsa: Uint8Array): HybridTx['signatures'] {
  const sigs = {
    get secp256k1(): Hex {
      return toHex(secp);
    },
    get mldsa44(): Hex {
      return toHex(mldsa);
    },
  };
  settledBytes.set(sigs, { secp256k1: secp, mldsa44: mldsa });
  return sigs;
}

/**
 * Strict structural decoding of a submitted envelope (a parsed JSON body) for `network`.
 * Errors are short sentences for the 400 answer. Signatures are not checked here: a missing
 * or malformed one decodes as '0x' so verification fails with exactly `invalid signature`
 * (as does a transaction signed for another network with this chain id), and so does an
 * `id` that is not the payload's (`signature: true`, see DecodeResult).
 * Addresses may be 0x or cairn1…; the result is always lower-case 0x with the recomputed id.
 */
export function decodeEnvelope(body: unknown, network: Network): DecodeResult {
  const fail = (error: string): DecodeResult => ({ ok: false, error });
  if (!isRecord(body)) return fail('transaction must be a JSON object');
  for (const k of Object.keys(body)) if (!ENVELOPE_KEYS.has(k)) return fail(`unknown field: ${k}`);

  for (const k of ['chainId', 'type', 'from', 'amount', 'nonce', 'timestamp', 'fee'] as const) {
    if (body[k] === undefined) return fail(`missing field: ${k}`);
  }
  if (body.chainId !== network.chainId) return fail('wrong chain id');
  if (!isImplemented(body.type)) return fail('unknown transaction type');
  const from = typeof body.from === 'string' ? parseAddress(body.from) : undefined;
  if (!from) return fail('invalid from address');
  let to: Address | null = null;
  if (body.to !== undefined && body.to !== null) {
    const parsed = typeof body.to === 'string' ? parseAddress(body.to) : undefined;
    if (!parsed) return fail('invalid to address');
    to = parsed;
  }
  if (parseAmount(body.amount) === undefined) return fail('amount must be a non-negative integer string');
  if (parseAmount(body.fee) === undefined) return fail('fee must be a non-negative integer string');
  const { nonce, timestamp } = body;
  if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce) || nonce < 0)
    return fail('nonce must be a non-negative integer');
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp <= 0)
    return fail('timestamp must be a positive integer');

  const data = body.data === undefined ? null : body.data;
  const problem = dataProblem(data);
  if (problem) return fail(problem);

  const publicKeys = publicKeysOf(body.publicKeys);
  if (typeof publicKeys === 'string') return fail(publicKeys);
  const signatures = signaturesOf(body.signatures);
  if (typeof signatures === 'string') return fail(signatures);

  const payload: TxPayload = {
    chainId: network.chainId,
    type: body.type as TxType,
    from,
    to,
    amount: body.amount as string,
    nonce,
    timestamp,
    fee: body.fee as string,
    data,
  };
  const { id, msg } = txIdAndSigningBytes(payload, network);
  if (body.id !== undefined && (typeof body.id !== 'string' || body.id.toLowerCase() !== id)) {
    return { ok: false, error: 'id does not match payload', signature: true, id };
  }
  const tx: HybridTx = { ...payload, id, publicKeys, signatures };
  signingBytesCache.set(tx, { genesisHash: network.genesisHash, msg });
  return { ok: true, tx };
}

/** A transaction received in a block, decoded, and whether the decoded form is exactly the one received. */
export interface ReceivedTx {
  decoded: DecodeResult;
  /**
   * Every field of the decoded transaction equals the received one (lower-case hex, 0x addresses, `data` and `to`
   * present): the decoded object — signatures as bytes, signing bytes known — can stand for it in the block.
   */
  same: boolean;
}

const received = new WeakMap<object, { network: Network; r: ReceivedTx }>();

/**
 * decodeEnvelope of a transaction received in a block, once per object: the sync's signature pre-check and the
 * import's checks read the same decode.
 */
export function decodeReceived(raw: object, network: Network): ReceivedTx {
  const known = received.get(raw);
  if (known !== undefined && known.network === network) return known.r;
  const decoded = decodeEnvelope(raw, network);
  const r = { decoded, same: decoded.ok && sameAsReceived(raw as HybridTx, decoded.tx) };
  received.set(raw, { network, r });
  return r;
}

/** decodeEnvelope's fields, in its order (a block's JSON keeps its transactions' key order). */
const DECODED_KEYS = 'chainId,type,from,to,amount,nonce,timestamp,fee,data,id,publicKeys,signatures';

function sameAsReceived(raw: HybridTx, tx: HybridTx): boolean {
  const sigs = signatureBytesOf(tx.signatures);
  // The bytes came from this hex, whole (or it was '0x'): it is their hex if it is lower-case 0x hex of that length.
  const lowerHexOf = (s: unknown, bytes: number) =>
    typeof s === 'string' && s.length === 2 + 2 * bytes && s.startsWith('0x') && s === s.toLowerCase();
  return (
    sigs !== undefined &&
    Object.keys(raw).join() === DECODED_KEYS &&
    raw.id === tx.id &&
    raw.from === tx.from &&
    raw.to === tx.to &&
    raw.data === tx.data &&
    raw.publicKeys.secp256k1 === tx.publicKeys.secp256k1 &&
    raw.publicKeys.mldsa44 === tx.publicKeys.mldsa44 &&
    (raw.signatures === tx.signatures ||
      (lowerHexOf(raw.signatures?.secp256k1, sigs.secp256k1.length) &&
        lowerHexOf(raw.signatures?.mldsa44, sigs.mldsa44.length)))
  );
}

/**
 * An admitted transaction, as the mempool keeps it: its signatures as bytes (heldAsBytes; a decoded envelope's are
 * already), and its signing bytes forgotten (verified already).
 */
export function settleAdmitted(tx: HybridTx): void {
  signingBytesCache.delete(tx);
  if (!settledBytes.has(tx.signatures))
    tx.signatures = heldAsBytes(hexBytes(tx.signatures.secp256k1), hexBytes(tx.signatures.mldsa44));
}

const settledBytes = new WeakMap<HybridTx['signatures'], { secp256k1: Uint8Array; mldsa44: Uint8Array }>();

/**
 * The bytes behind signatures held as bytes (a decoded or admitted transaction's), for readers that want bytes (the
 * verifier, the block codec): the same value as decoding the getters' hex, without making the hex. Undefined for
 * signatures held as hex strings (a transaction signed here, or built by hand).
 */
export const signatureBytesOf = (sigs: HybridTx['signatures']) => settledBytes.get(sigs);

/**
 * Bytes for the verifier or VerifyPool, for `network`. When `from` is not the key's address the job
 * carries empty signatures, so it fails like any bad signature (`invalid signature`)
 * and callers need no separate check. The ML-DSA key binding to the account is state
 * and is checked by admission/execution, not here.
 */
export function verifyJobOf(tx: HybridTx, network: Network): VerifyJob {
  const pubs = { secp256k1: keyBytes(tx.publicKeys.secp256k1), mldsa44: keyBytes(tx.publicKeys.mldsa44) };
  if (!senderMatchesKey(tx))
    return { msg: signingBytesOf(tx, network), pubs, sigs: { secp256k1: EMPTY, mldsa44: EMPTY } };
  return {
    msg: signingBytesOf(tx, network),
    pubs,
    sigs: signatureBytesOf(tx.signatures) ?? {
      secp256k1: fromHex(tx.signatures.secp256k1),
      mldsa44: fromHex(tx.signatures.mldsa44),
    },
  };
}

/** Public keys as bytes by their hex: a sender's keys come with each of its transactions (read only: shared). */
const keyBytes = boundedMemo(4_096, (hex: Hex): Uint8Array => fromHex(hex));

/**
 * Every signature check a (validated) hybrid transaction needs: its own, then those of the
 * envelopes it carries (META_TX's inner). It is valid only if all pass.
 */
export const verifyJobsOf = (tx: HybridTx, network: Network): VerifyJob[] => [
  verifyJobOf(tx, network),
  ...nestedOf(tx).map((inner) => verifyJobOf(inner, network)),
];

/** Verifies groups of jobs (each transaction's verifyJobsOf) in one batch: whether each group passed whole. */
export async function verifyGroups(
  verifyMany: (jobs: VerifyJob[]) => Promise<boolean[]>,
  groups: readonly VerifyJob[][],
): Promise<boolean[]> {
  const ok = await verifyMany(groups.flat());
  let k = 0;
  return groups.map((g) => ok.slice(k, (k += g.length)).every(Boolean));
}

/**
 * JSON text for the wire and storage: fixed key order (id first, then the payload
 * fields in signing order, keys, signatures) and `data` in canonical form, so the same
 * transaction always encodes to the same text on every node.
 */
export function encodeTx(tx: HybridTx): string {
  const s = JSON.stringify;
  return (
    `{"id":${s(tx.id)},"chainId":${s(tx.chainId)},"type":${s(tx.type)},"from":${s(tx.from)},"to":${s(tx.to ?? null)}` +
    `,"amount":${s(tx.amount)},"nonce":${s(tx.nonce)},"timestamp":${s(tx.timestamp)},"fee":${s(tx.fee)}` +
    `,"data":${canonicalJson(tx.data === undefined ? null : tx.data)}` +
    `,"publicKeys":{"secp256k1":${s(tx.publicKeys.secp256k1)},"mldsa44":${s(tx.publicKeys.mldsa44)}}` +
    `,"signatures":{"secp256k1":${s(tx.signatures.secp256k1)},"mldsa44":${s(tx.signatures.mldsa44)}}}`
  );
}
