import { keccak256 } from '../crypto/hash';
import { heldAsBytes, signatureBytesOf } from './envelope';
import { pqKeyHashOf } from '../crypto/txSigning';
import { fromHex, toHex, type Hex } from '../primitives/hex';
import { boundedMemo } from '../primitives/memo';
import { TX_TYPE_CATALOGUE, type TxType } from '../protocol/types';
import type { Block, HybridTx, SignedBlockHeader, SignedTx, TxResult } from '../protocol/types';

/**
 * How a block is kept on disk, and sent to a syncing peer that asks (chain/chainPage.ts). The
 * API and gossip keep the JSON block; the store keeps the same block in binary, and each
 * transaction's two public keys (1,312 + 65 bytes, the same for every transaction of a sender)
 * as a 32-byte reference to a signer record stored once.
 * A block of 500 hybrid transfers: ~4.1 MB of JSON, ~1.32 MB stored.
 *
 * The first byte says the form: `{` is a JSON block line (stores written before this form, and
 * any block whose shape the layout below does not keep exactly, so decoding always gives back
 * the block that was encoded), COMPACT is this layout, written field by field into one buffer
 * (measured 10–20× faster than RLP through arrays, which allocated per field):
 *
 *   header  height, parentHash, timestamp, producer, txRoot, stateRoot, txCount, hash, secpSig, mldsaSig
 *   txs     count, then per tx a kind byte:
 *           HYBRID chainId, typeIndex, from, to?, amount, nonce, timestamp, fee, data, id, signerRef,
 *                  secpSig, mldsaSig
 *           JSON   the transaction's JSON (Ethereum envelopes: rare, kept whole)
 *   results count, then per result: success, energyUsed, burned, the other fields' JSON
 *   events  JSON of the end-of-block events
 *
 * Integers are LEB128, decimal amounts their big-endian bytes with a length, hashes and
 * addresses their 32 / 20 bytes, other hex a length and the bytes, JSON a length and UTF-8
 * (length 0: null or absent). `typeIndex` is the position in TX_TYPE_CATALOGUE (append-only:
 * stored blocks depend on it).
 *
 * The encoder also returns the byte length of the block's JSON line (the spec's `size`),
 * counted from the fields instead of serializing ~4 MB of JSON (property-tested against it).
 */
const COMPACT = 0x01;
const JSON_LINE = 0x7b; // '{'
const HYBRID = 0;
const JSON_TX = 1;

/** A signer record: the secp256k1 key's length (one byte), the key (33 or 65 bytes), then the ML-DSA-44 key. */
export interface SignerRecord {
  ref: Uint8Array;
  value: Uint8Array;
}

export interface EncodedBlock {
  bytes: Uint8Array;
  /** The signer records the block refers to (content-addressed: writing one again is harmless). */
  signers: SignerRecord[];
  /** Byte length of the block's JSON line: its `size`. */
  jsonSize: number;
}

const HEADER_KEYS = 'height,parentHash,timestamp,producer,txRoot,stateRoot,txCount,hash,signatures'.split(',');
const HYBRID_KEYS = 'chainId,type,from,to,amount,nonce,timestamp,fee,data,id,publicKeys,signatures'.split(',');
const SIG_KEYS = ['secp256k1', 'mldsa44'];
const TYPE_INDEX = new Map<string, number>(TX_TYPE_CATALOGUE.map((t, i) => [t, i]));
const CANONICAL_UINT = /^(0|[1-9][0-9]*)$/;
/**
 * Whether hex text has an upper-case letter (it would not come back byte for byte, so the block is kept as JSON).
 * Not /[A-F]/: V8 returns a string already in lower case from toLowerCase without copying it, 20 times faster over
 * a 4,842-character ML-DSA signature (0.8 against 15.9 µs), and the regex was 37 % of encoding a block.
 */
const hasUpper = (h: string): boolean => h !== h.toLowerCase();

/** Thrown inside the encoder when a block has a shape the layout does not keep exactly. */
class NotCompact extends Error {}

/** JSON text lengths of the fixed parts of a block line (keys, quotes, braces, commas). */
const JSON_FIXED = {
  // {"header":…,"txs":[…],"results":[…]} and ,"events":… when present
  block: '{"header":,"txs":[],"results":[]}'.length,
  events: ',"events":'.length,
  header:
    '{"height":,"parentHash":"","timestamp":,"producer":"","txRoot":"","stateRoot":"","txCount":,"hash":"",' +
    '"signatures":{"secp256k1":"","mldsa44":""}}',
  hybrid:
    '{"chainId":,"type":"","from":"","to":,"amount":"","nonce":,"timestamp":,"fee":"","data":,"id":"",' +
    '"publicKeys":{"secp256k1":"","mldsa44":""},"signatures":{"secp256k1":"","mldsa44":""}}',
  result: '{"status":"","energyUsed":"","burned":""}',
};
const HEADER_FIXED = JSON_FIXED.header.length;
const HYBRID_FIXED = JSON_FIXED.hybrid.length;
const RESULT_FIXED = JSON_FIXED.result.length;

/** One growing buffer, written field by field. */
export class Writer {
  buf: Buffer;
  at = 0;

  constructor(sizeHint: number) {
    this.buf = Buffer.allocUnsafe(sizeHint);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  u8(n: number): void {
    this.room(1);
    this.buf[this.at++] = n;
  }

  /** A non-negative safe integer, LEB128. */
  uint(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new NotCompact();
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
  }

  /** Lower-case 0x hex of exactly `size` bytes, no length. */
  fixedHex(h: string, size: number): void {
    if (typeof h !== 'string' || h.length !== 2 + size * 2 || hasUpper(h)) throw new NotCompact();
    this.room(size);
    if (this.buf.write(h.slice(2), this.at, size, 'hex') !== size) throw new NotCompact();
    this.at += size;
  }

  /** Lower-case 0x hex of any length, with its length. */
  hex(h: string): void {
    if (typeof h !== 'string' || h.length % 2 !== 0 || !h.startsWith('0x') || hasUpper(h)) throw new NotCompact();
    const size = (h.length - 2) / 2;
    this.uint(size);
    this.room(size);
    if (this.buf.write(h.slice(2), this.at, size, 'hex') !== size) throw new NotCompact();
    this.at += size;
  }

  /** A canonical decimal integer string as its big-endian bytes, with their length. */
  decimal(s: string): void {
    if (typeof s !== 'string' || !CANONICAL_UINT.test(s)) throw new NotCompact();
    if (s.length > 15) {
      const h = BigInt(s).toString(16);
      // Larger than any amount (the reader refuses it): such a block is kept as its JSON line.
      if (h.length > 2 * DECIMAL_BYTES) throw new NotCompact();
      this.hex(h.length % 2 ? `0x0${h}` : `0x${h}`);
      return;
    }
    // Below 10^15 (< 2^53): the number's bytes directly, most significant first — what the BigInt path writes.
    let n = Number(s);
    let size = 0;
    for (let m = n; m > 0; m = Math.floor(m / 256)) size++;
    this.uint(size);
    this.room(size);
    for (let i = size - 1; i >= 0; i--) {
      this.buf[this.at + i] = n % 256;
      n = Math.floor(n / 256);
    }
    this.at += size;
  }

  /** Text with its UTF-8 length (0: nothing); returns that length. */
  text(s: string | undefined): number {
    if (s === undefined) {
      this.uint(0);
      return 0;
    }
    const size = Buffer.byteLength(s);
    this.uint(size);
    this.room(size);
    this.buf.write(s, this.at, size, 'utf8');
    this.at += size;
    return size;
  }

  /** Bytes with their length: what hex() writes for their hex. */
  bytes(b: Uint8Array): void {
    this.uint(b.length);
    this.raw(b);
  }

  raw(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }
}

/** The bytes of the largest amount (parseAmount: at most 78 decimal digits, below 2^260). */
const DECIMAL_BYTES = 33;

/** Thrown when stored or received bytes are not a block of this layout (the message says where). */
export class MalformedBlock extends Error {}

/**
 * Reads the layout. Every read is bounds-checked and every count is bounded by the bytes left, so bytes from a peer (a
 * binary /chain page) that end early, or claim a billion transactions, fail at once instead of looping or allocating.
 */
export class Reader {
  at = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (n > this.buf.length - this.at) throw new MalformedBlock(`ends at byte ${this.buf.length}, ${n} more wanted`);
  }

  u8(): number {
    this.need(1);
    return this.buf[this.at++];
  }

  /** LEB128 of a safe integer: 8 bytes at most. */
  uint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      n += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(n)) break;
        return n;
      }
      scale *= 0x80;
    }
    throw new MalformedBlock(`integer at byte ${this.at} is not a safe integer`);
  }

  /** A count of items that each take at least one byte. */
  count(): number {
    const n = this.uint();
    this.need(n);
    return n;
  }

  fixedHex(size: number): Hex {
    this.need(size);
    const h = this.buf.toString('hex', this.at, this.at + size);
    this.at += size;
    return `0x${h}`;
  }

  hex(): Hex {
    return this.fixedHex(this.uint());
  }

  /** At most DECIMAL_BYTES: a BigInt's decimal text costs more than linear time, so a peer's page cannot ask for more. */
  decimal(): string {
    const size = this.uint();
    if (size === 0) return '0';
    if (size > DECIMAL_BYTES) throw new MalformedBlock(`a ${size}-byte amount (at most ${DECIMAL_BYTES})`);
    this.need(size);
    const s = BigInt(`0x${this.buf.toString('hex', this.at, this.at + size)}`).toString();
    this.at += size;
    return s;
  }

  /** Text written by Writer.text (undefined when empty). */
  text(): string | undefined {
    const size = this.uint();
    if (size === 0) return undefined;
    this.need(size);
    const s = this.buf.toString('utf8', this.at, this.at + size);
    this.at += size;
    return s;
  }

  skip(size: number): void {
    this.need(size);
    this.at += size;
  }

  bytes(size: number): Uint8Array {
    this.need(size);
    const b = this.buf.subarray(this.at, this.at + size);
    this.at += size;
    return b;
  }

  end(): void {
    if (this.at !== this.buf.length) throw new MalformedBlock(`${this.buf.length - this.at} bytes after the end`);
  }
}

/** JSON length of a number (integers only here). */
const numLength = (n: number): number => String(n).length;

/** A sender's two keys as every one of its transactions' records refers to them. */
interface Signer {
  record: SignerRecord;
  refHex: Hex;
}

const refOf = (pqKeyHash: Uint8Array, secp256k1: Uint8Array): Uint8Array =>
  keccak256(Buffer.concat([pqKeyHash, secp256k1]));

/**
 * The reference a signer record's value must have (a record from a peer is checked against it), or undefined when the
 * value is not a record (its secp256k1 key's length byte, the key, then a non-empty ML-DSA-44 key).
 */
export function signerRefOfValue(value: Uint8Array): Uint8Array | undefined {
  const end = 1 + (value[0] ?? 0);
  if (value.length === 0 || end >= value.length) return undefined;
  return refOf(keccak256(value.subarray(end)), value.subarray(1, end));
}

/**
 * The signer of two keys, whose reference is keccak(keccak(ML-DSA key) ‖ secp256k1 key), 32 bytes (null: a key whose
 * hex would not come back byte for byte). Remembered by the ML-DSA key's hex then the secp256k1 key's: a sender's keys
 * are one interned string each (chain/envelope.ts), so its transactions find their record without hashing, converting
 * or scanning 1.3 KB of key per transaction.
 */
const signersByPq = boundedMemo(4_096, (): Map<string, Signer | null> => new Map());

function signerOf(secp256k1: Hex, mldsa44: Hex): Signer | null {
  const bySecp = signersByPq(mldsa44);
  let s = bySecp.get(secp256k1);
  if (s === undefined) {
    s = null;
    if (!hasUpper(secp256k1) && !hasUpper(mldsa44) && secp256k1.length <= 2 + 255 * 2) {
      const secp = fromHex(secp256k1);
      const ref = refOf(fromHex(pqKeyHashOf({ publicKeys: { mldsa44 } }) as Hex), secp);
      s = {
        record: { ref, value: Buffer.concat([Buffer.of(secp.length), secp, fromHex(mldsa44)]) },
        refHex: toHex(ref),
      };
    }
    // One ML-DSA key paired with ever more secp256k1 keys stays bounded too.
    if (bySecp.size >= 16) bySecp.clear();
    bySecp.set(secp256k1, s);
  }
  return s;
}

/** Whether `o`'s own keys are `keys`, in that order (Object.keys(o).join() without making the array and the string). */
function keysAre(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (!Object.hasOwn(o, k) || k !== keys[i++]) return false;
  return i === keys.length;
}

function header(w: Writer, h: SignedBlockHeader): number {
  if (!keysAre(h, HEADER_KEYS) || !keysAre(h.signatures, SIG_KEYS)) throw new NotCompact();
  w.uint(h.height);
  w.fixedHex(h.parentHash, 32);
  w.uint(h.timestamp);
  w.fixedHex(h.producer, 20);
  w.fixedHex(h.txRoot, 32);
  w.fixedHex(h.stateRoot, 32);
  w.uint(h.txCount);
  w.fixedHex(h.hash, 32);
  w.hex(h.signatures.secp256k1);
  w.hex(h.signatures.mldsa44);
  return (
    HEADER_FIXED +
    numLength(h.height) +
    numLength(h.timestamp) +
    numLength(h.txCount) +
    (2 + 64) * 4 +
    (2 + 40) +
    h.signatures.secp256k1.length +
    h.signatures.mldsa44.length
  );
}

function hybrid(w: Writer, t: HybridTx, signers: Map<string, SignerRecord>): number {
  if (!keysAre(t, HYBRID_KEYS) || !keysAre(t.publicKeys, SIG_KEYS) || !keysAre(t.signatures, SIG_KEYS))
    throw new NotCompact();
  const typeIndex = TYPE_INDEX.get(t.type);
  if (typeIndex === undefined || t.data === undefined) throw new NotCompact();
  const { secp256k1, mldsa44 } = t.publicKeys;
  const signer = signerOf(secp256k1, mldsa44);
  if (signer === null) throw new NotCompact();
  const { ref } = signer.record;
  if (!signers.has(signer.refHex)) signers.set(signer.refHex, signer.record);
  w.u8(HYBRID);
  w.uint(t.chainId);
  w.uint(typeIndex);
  w.fixedHex(t.from, 20);
  if (t.to === null) w.u8(0);
  else {
    w.u8(1);
    w.fixedHex(t.to, 20);
  }
  w.decimal(t.amount);
  w.uint(t.nonce);
  w.uint(t.timestamp);
  w.decimal(t.fee);
  const data = w.text(t.data === null ? undefined : JSON.stringify(t.data));
  w.fixedHex(t.id, 32);
  w.raw(ref);
  // An admitted transaction holds its signatures as bytes: written as they are, not through hex and back.
  const sigBytes = signatureBytesOf(t.signatures);
  let sigsJson: number;
  if (sigBytes) {
    w.bytes(sigBytes.secp256k1);
    w.bytes(sigBytes.mldsa44);
    sigsJson = 4 + 2 * (sigBytes.secp256k1.length + sigBytes.mldsa44.length);
  } else {
    const { secp256k1: s, mldsa44: m } = t.signatures;
    w.hex(s);
    w.hex(m);
    sigsJson = s.length + m.length;
  }
  return (
    HYBRID_FIXED +
    numLength(t.chainId) +
    t.type.length +
    42 +
    (t.to === null ? 4 : 44) +
    t.amount.length +
    numLength(t.nonce) +
    numLength(t.timestamp) +
    t.fee.length +
    (t.data === null ? 4 : data) +
    66 +
    secp256k1.length +
    mldsa44.length +
    sigsJson
  );
}

function tx(w: Writer, t: SignedTx, signers: Map<string, SignerRecord>): number {
  if (t.envelope !== 'eth') return hybrid(w, t, signers);
  w.u8(JSON_TX);
  return w.text(JSON.stringify(t));
}

const PLAIN_RESULT_KEYS = ['status', 'energyUsed', 'burned'];

function result(w: Writer, r: TxResult): number {
  const { status, energyUsed, burned } = r;
  if (status !== 'success' && status !== 'failed') throw new NotCompact();
  w.u8(status === 'success' ? 1 : 0);
  w.decimal(energyUsed);
  w.decimal(burned);
  // The other fields come back in the order TxResult declares them: the same result, the same JSON length. A result
  // with none (a transfer's) skips making them.
  let more: string | undefined;
  if (!keysAre(r, PLAIN_RESULT_KEYS)) {
    const { status: _s, energyUsed: _e, burned: _b, ...rest } = r;
    const restJson = JSON.stringify(rest);
    more = restJson === '{}' ? undefined : restJson;
  }
  const moreLength = w.text(more);
  // `more` is `{…}`: its inner text follows the fixed fields after a comma (its braces make up for the comma).
  return RESULT_FIXED + status.length + energyUsed.length + burned.length + (more === undefined ? 0 : moreLength - 1);
}

/** The stored bytes of a block, the signer records it refers to, and its JSON line's length. */
export function encodeStoredBlock(b: Block): EncodedBlock {
  const signers = new Map<string, SignerRecord>();
  try {
    const { header: h, txs, results, events, ...extra } = b;
    if (Object.keys(extra).length > 0 || b.events === null) throw new NotCompact();
    // Sized for what a block of hybrid transfers takes (~2.6 KB each): no regrowing and copying as it fills.
    const w = new Writer(4096 + 2_800 * txs.length);
    w.u8(COMPACT);
    let size = JSON_FIXED.block + header(w, h);
    w.uint(txs.length);
    for (const t of txs) size += tx(w, t, signers);
    w.uint(results.length);
    for (const r of results) size += result(w, r);
    const ev = w.text(events === undefined ? undefined : JSON.stringify(events));
    if (events !== undefined) size += JSON_FIXED.events + ev;
    size += Math.max(0, txs.length - 1) + Math.max(0, results.length - 1); // commas between items
    return { bytes: w.buf.subarray(0, w.at), signers: [...signers.values()], jsonSize: size };
  } catch (e) {
    if (!(e instanceof NotCompact)) throw e;
    const line = Buffer.from(JSON.stringify(b));
    return { bytes: line, signers: [], jsonSize: line.length };
  }
}

/** A stored block, read but not yet given its signers' keys. */
export type ParsedBlock =
  | { kind: 'json'; block: Block }
  | { kind: 'compact'; block: Block; pending: { tx: HybridTx; ref: Hex }[] };

/** Parses a stored block; its hybrid transactions' public keys wait for finishStoredBlock. */
export function parseStoredBlock(stored: Uint8Array): ParsedBlock {
  if (stored[0] === JSON_LINE)
    return {
      kind: 'json',
      block: JSON.parse(Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('utf8')) as Block,
    };
  if (stored[0] !== COMPACT) throw new MalformedBlock(`block of unknown form ${stored[0]}`);
  // The block's own copy of its bytes, which its transactions' signatures are views of: one allocation a block (one
  // a signature was ~5 µs each, 3 % of a sync), and never a view of a larger buffer (a sync page, a read batch) that
  // the signatures would keep alive.
  const own = new Uint8Array(stored.length);
  own.set(stored);
  const buf = Buffer.from(own.buffer, 0, own.length);
  const r = new Reader(buf);
  r.at = 1;
  const header: SignedBlockHeader = {
    height: r.uint(),
    parentHash: r.fixedHex(32),
    timestamp: r.uint(),
    producer: r.fixedHex(20),
    txRoot: r.fixedHex(32),
    stateRoot: r.fixedHex(32),
    txCount: r.uint(),
    hash: r.fixedHex(32),
    signatures: { secp256k1: r.hex(), mldsa44: r.hex() },
  };
  const pending: { tx: HybridTx; ref: Hex }[] = [];
  const txs: SignedTx[] = Array.from({ length: r.count() }, () => {
    const kind = r.u8();
    if (kind === JSON_TX) return JSON.parse(r.text() ?? '') as SignedTx;
    if (kind !== HYBRID) throw new MalformedBlock(`transaction of unknown form ${kind}`);
    const chainId = r.uint();
    const typeIndex = r.uint();
    const type = TX_TYPE_CATALOGUE[typeIndex] as TxType | undefined;
    if (type === undefined) throw new MalformedBlock(`transaction type ${typeIndex} is not in the catalogue`);
    const from = r.fixedHex(20);
    const to = r.u8() === 0 ? null : r.fixedHex(20);
    const amount = r.decimal();
    const nonce = r.uint();
    const timestamp = r.uint();
    const fee = r.decimal();
    const data = r.text();
    const id = r.fixedHex(32);
    const ref = toHex(r.bytes(32));
    const t: HybridTx = {
      chainId,
      type,
      from,
      to,
      amount,
      nonce,
      timestamp,
      fee,
      data: data === undefined ? null : JSON.parse(data),
      id,
      publicKeys: { secp256k1: '0x', mldsa44: '0x' },
      // As bytes, as an admitted transaction holds them: the verifier and the codec take them without hex.
      signatures: heldAsBytes(r.bytes(r.uint()), r.bytes(r.uint())),
    };
    pending.push({ tx: t, ref });
    return t;
  });
  const results: TxResult[] = Array.from({ length: r.count() }, () => {
    const status = r.u8() === 1 ? 'success' : 'failed';
    const energyUsed = r.decimal();
    const burned = r.decimal();
    const more = r.text();
    const { error, code, vm, events, ...other } = more === undefined ? ({} as Partial<TxResult>) : JSON.parse(more);
    return {
      status,
      ...(error !== undefined && { error }),
      ...(code !== undefined && { code }),
      energyUsed,
      burned,
      ...(vm !== undefined && { vm }),
      ...(events !== undefined && { events }),
      ...other,
    };
  });
  const events = r.text();
  r.end();
  const block: Block = { header, txs, results, ...(events !== undefined && { events: JSON.parse(events) }) };
  return { kind: 'compact', block, pending };
}

/**
 * The signer references of a stored block, read without decoding it (a binary /chain page carries their records):
 * the walk of parseStoredBlock's layout, skipping every field but the references.
 */
export function storedSignerRefs(stored: Uint8Array): Hex[] {
  const buf = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (buf[0] !== COMPACT) return [];
  const r = new Reader(buf);
  r.at = 1;
  r.uint(); // height
  r.skip(32);
  r.uint(); // timestamp
  r.skip(20 + 32 + 32);
  r.uint(); // txCount
  r.skip(32);
  r.skip(r.uint());
  r.skip(r.uint());
  const refs = new Set<Hex>();
  for (let n = r.count(); n > 0; n--) {
    if (r.u8() === JSON_TX) {
      r.skip(r.uint());
      continue;
    }
    r.uint(); // chainId
    r.uint(); // type
    r.skip(20);
    if (r.u8() !== 0) r.skip(20);
    r.skip(r.uint()); // amount
    r.uint(); // nonce
    r.uint(); // timestamp
    r.skip(r.uint()); // fee
    r.skip(r.uint()); // data
    r.skip(32); // id
    refs.add(r.fixedHex(32));
    r.skip(r.uint());
    r.skip(r.uint());
  }
  return [...refs];
}

/** The signer records a parsed block needs (hex references, each once). */
export function signerRefsOf(p: ParsedBlock): Hex[] {
  return p.kind === 'json' ? [] : [...new Set(p.pending.map((x) => x.ref))];
}

/** A signer's two keys as the API shows them (hex), from its stored record. */
export interface SignerKeys {
  secp256k1: Hex;
  mldsa44: Hex;
}

export function signerKeysOf(value: Uint8Array): SignerKeys {
  const end = 1 + value[0];
  return { secp256k1: toHex(value.subarray(1, end)), mldsa44: toHex(value.subarray(end)) };
}

/** The block of a parsed stored block; `signer` gives the keys of each reference signerRefsOf listed. */
export function finishStoredBlock(p: ParsedBlock, signer: (ref: Hex) => SignerKeys): Block {
  if (p.kind === 'compact')
    for (const { tx, ref } of p.pending) {
      const k = signer(ref);
      tx.publicKeys = { secp256k1: k.secp256k1, mldsa44: k.mldsa44 };
    }
  return p.block;
}
