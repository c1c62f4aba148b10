import { CairnError } from '../errors/CairnError';
import type { Hex } from '../primitives/hex';
import { keccak256 } from '../crypto/keccak';
import { type Child, Full, type Node, Short, TERM, isHashRef } from './mptNode';

/**
 * The node codec: a trie node to and from its bytes, as in Ethereum. RLP; a child whose
 * encoding is shorter than 32 bytes is embedded in its parent, any other by its hash; the
 * root is always hashed; keys in hex-prefix form. Encodings and hashes are cached on the
 * node (nodes are immutable), so each is computed once.
 */

/** keccak256(rlp('')) — the root of the empty trie, as in Ethereum. */
export const EMPTY_TRIE_ROOT: Hex = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

// --- encoding -------------------------------------------------------------------------

/** Length of the RLP encoding of a byte string of these bytes. */
function stringLen(b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) return 1;
  return headerLen(b.length) + b.length;
}

const headerLen = (len: number): number =>
  len < 56 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : len < 0x1000000 ? 4 : 5;

/** Writes an RLP header (offset 0x80 for a string, 0xc0 for a list); returns the new offset. */
function writeHeader(out: Uint8Array, off: number, len: number, offset: number): number {
  if (len < 56) {
    out[off] = offset + len;
    return off + 1;
  }
  const ll = headerLen(len) - 1;
  out[off++] = offset + 55 + ll;
  for (let i = ll - 1; i >= 0; i--) out[off++] = (len >>> (8 * i)) & 0xff;
  return off;
}

function writeString(out: Uint8Array, off: number, b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) {
    out[off] = b[0];
    return off + 1;
  }
  off = writeHeader(out, off, b.length, 0x80);
  out.set(b, off);
  return off + b.length;
}

/** How long a parent's reference to `c` is: empty (1), embedded encoding (< 32), or hash (33). */
function refLen(c: Child): number {
  if (c === null) return 1;
  if (isHashRef(c)) return 33;
  const len = encode(c).length;
  return len < 32 ? len : 33;
}

function writeRef(out: Uint8Array, off: number, c: Child): number {
  if (c === null) {
    out[off] = 0x80;
    return off + 1;
  }
  if (!isHashRef(c)) {
    const enc = encode(c);
    if (enc.length < 32) {
      out.set(enc, off);
      return off + enc.length;
    }
    c = hashOf(c);
  }
  out[off] = 0xa0;
  out.set(c, off + 1);
  return off + 33;
}

/** Hex-prefix ("compact") form of a nibble path, as in the Yellow Paper, appendix C. */
function compactOf(key: Uint8Array): Uint8Array {
  let len = key.length;
  const leaf = len > 0 && key[len - 1] === TERM;
  if (leaf) len--;
  const odd = len & 1;
  const out = new Uint8Array((len >> 1) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) {
    out[0] |= key[0];
    i = 1;
  }
  for (let j = 1; i < len; i += 2, j++) out[j] = (key[i] << 4) | key[i + 1];
  return out;
}

export function encode(n: Node): Uint8Array {
  if (n.enc !== undefined) return n.enc;
  let out: Uint8Array;
  if (n instanceof Short) {
    const key = compactOf(n.key);
    const len = stringLen(key) + (n.isLeaf ? stringLen(n.val as Uint8Array) : refLen(n.val as Child));
    out = new Uint8Array(headerLen(len) + len);
    let off = writeHeader(out, 0, len, 0xc0);
    off = writeString(out, off, key);
    if (n.isLeaf) writeString(out, off, n.val as Uint8Array);
    else writeRef(out, off, n.val as Child);
  } else {
    let len = n.value === null ? 1 : stringLen(n.value);
    for (let i = 0; i < 16; i++) len += refLen(n.children[i]);
    out = new Uint8Array(headerLen(len) + len);
    let off = writeHeader(out, 0, len, 0xc0);
    for (let i = 0; i < 16; i++) off = writeRef(out, off, n.children[i]);
    if (n.value === null) out[off] = 0x80;
    else writeString(out, off, n.value);
  }
  n.enc = out;
  return out;
}

export function hashOf(n: Node): Uint8Array {
  let h = n.hash;
  if (h === undefined) n.hash = h = keccak256(encode(n));
  return h;
}

// --- decoding -------------------------------------------------------------------------

/** A stored node from its encoding; `hashHex` names it in errors. Children stay hashes until needed. */
export function decodeNode(enc: Uint8Array, hash: Uint8Array, hashHex: string): Node {
  const n = decodeAt(enc, 0, enc.length, hashHex);
  if (item.end !== enc.length) throw badNode(hashHex, 'trailing bytes');
  n.hash = hash;
  return n;
}

/** The last RLP item read by `readItem`: where its payload is, and whether it is a list. */
const item = { start: 0, end: 0, list: false };

function readItem(b: Uint8Array, pos: number, end: number, hashHex: string): void {
  if (pos >= end) throw badNode(hashHex, 'truncated');
  const p = b[pos];
  let start: number;
  let len: number;
  if (p < 0x80) {
    start = pos;
    len = 1;
  } else if (p < 0xb8 || (p >= 0xc0 && p < 0xf8)) {
    start = pos + 1;
    len = p - (p < 0xc0 ? 0x80 : 0xc0);
  } else {
    const ll = p - (p < 0xc0 ? 0xb7 : 0xf7);
    if (pos + 1 + ll > end || ll > 4) throw badNode(hashHex, 'bad length');
    len = 0;
    for (let i = 0; i < ll; i++) len = len * 256 + b[pos + 1 + i];
    start = pos + 1 + ll;
  }
  if (start + len > end) throw badNode(hashHex, 'truncated');
  item.start = start;
  item.end = start + len;
  item.list = p >= 0xc0;
}

/** Decodes the node whose RLP list starts at `pos` (embedded nodes are decoded in place). */
function decodeAt(b: Uint8Array, pos: number, end: number, hashHex: string): Node {
  readItem(b, pos, end, hashHex);
  if (!item.list) throw badNode(hashHex, 'not a list');
  const listEnd = item.end;
  const refs: Child[] = [];
  const strings: (Uint8Array | null)[] = [];
  let p = item.start;
  while (p < listEnd) {
    if (refs.length === 17) throw badNode(hashHex, 'more than 17 items');
    readItem(b, p, listEnd, hashHex);
    if (item.list) {
      // An embedded node: its encoding is these bytes, header included.
      const at = p;
      p = item.end;
      const c = decodeAt(b, at, p, hashHex);
      c.enc = b.subarray(at, p);
      refs.push(c);
      strings.push(null);
    } else {
      const s = b.subarray(item.start, item.end);
      p = item.end;
      refs.push(s.length === 0 ? null : s);
      strings.push(s);
    }
  }
  item.end = listEnd;
  let n: Node;
  if (refs.length === 17) {
    for (let i = 0; i < 16; i++) {
      const c = refs[i];
      if (isHashRef(c) && c.length !== 32) throw badNode(hashHex, `child reference of ${c.length} bytes`);
    }
    const v = strings[16];
    if (v === null) throw badNode(hashHex, 'branch value is a list');
    n = new Full(refs.slice(0, 16), v.length === 0 ? null : v);
  } else if (refs.length === 2) {
    const k = strings[0];
    if (k === null) throw badNode(hashHex, 'path is a list');
    const key = nibblesOfCompact(k, hashHex);
    if (key[key.length - 1] === TERM) {
      const v = strings[1];
      if (v === null) throw badNode(hashHex, 'leaf value is a list');
      n = new Short(key, v);
    } else {
      const c = refs[1];
      if (c === null || key.length === 0) throw badNode(hashHex, 'empty extension');
      if (isHashRef(c) && c.length !== 32) throw badNode(hashHex, `child reference of ${c.length} bytes`);
      n = new Short(key, c);
    }
  } else {
    throw badNode(hashHex, `list of ${refs.length} items`);
  }
  n.flushed = true;
  return n;
}

function nibblesOfCompact(c: Uint8Array, hashHex: string): Uint8Array {
  if (c.length === 0) throw badNode(hashHex, 'empty path');
  const flag = c[0] >> 4;
  if (flag > 3) throw badNode(hashHex, 'bad path flag');
  const leaf = flag >= 2;
  const odd = flag & 1;
  const out = new Uint8Array((c.length - 1) * 2 + odd + (leaf ? 1 : 0));
  let j = 0;
  if (odd) out[j++] = c[0] & 0x0f;
  for (let i = 1; i < c.length; i++) {
    out[j++] = c[i] >> 4;
    out[j++] = c[i] & 0x0f;
  }
  if (leaf) out[j] = TERM;
  return out;
}

const badNode = (hashHex: string, why: string) =>
  new CairnError('STATE_BAD_NODE', `state trie node 0x${hashHex} is malformed: ${why}`, { node: `0x${hashHex}` });
