/**
 * The node model of the Merkle Patricia trie, geth-style: immutable nodes over nibble paths.
 *
 * A key is a path of nibbles ending with the terminator 16 (so no key is a prefix of
 * another). Node kinds, as in Ethereum:
 *   Short — a leaf (key ends with 16; `val` is the value) or an extension (`val` is a child);
 *   Full  — a branch: 16 children and a value (the value of a key ending exactly here).
 * A child is a node object, or the 32-byte keccak hash of a stored node not loaded yet.
 *
 * Nodes never change after construction (except caches that do not change what they
 * encode: their encoding, their hash, the `flushed` mark, and a hash child replaced by
 * the node it names). A write builds new nodes along its path and shares the rest, so a
 * root object is a snapshot: checkpoint keeps it, revert puts it back.
 */

export const TERM = 16;

abstract class NodeBase {
  /** RLP encoding, once computed. */
  enc: Uint8Array | undefined = undefined;
  /** keccak256(enc), once computed (only for nodes referenced by hash, and roots). */
  hash: Uint8Array | undefined = undefined;
  /** In the store already, or embedded in a node that is (nothing to write). */
  flushed = false;
}

export class Short extends NodeBase {
  constructor(
    readonly key: Uint8Array,
    /** The value for a leaf; the child for an extension. */
    public val: Child | Uint8Array,
  ) {
    super();
  }

  get isLeaf(): boolean {
    return this.key[this.key.length - 1] === TERM;
  }
}

export class Full extends NodeBase {
  constructor(
    readonly children: Child[],
    readonly value: Uint8Array | null,
  ) {
    super();
  }
}

export type Node = Short | Full;
/** A node, the hash of a stored node (a 32-byte Uint8Array), or nothing. */
export type Child = Node | Uint8Array | null;

export const isHashRef = (c: Child | Uint8Array): c is Uint8Array => c instanceof Uint8Array;

/** Bytes as lower-case hex without a prefix: the map key of a node hash or a trie key. */
export const hexOf = (k: Uint8Array): string => Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('hex');

/** Key bytes → nibbles + terminator. */
export function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2 + 1);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 0x0f;
  }
  out[out.length - 1] = TERM;
  return out;
}

/** Whether `path` continues with the nibbles `k` at `pos` (a Short node on the walk matches). */
export function continuesAt(path: Uint8Array, pos: number, k: Uint8Array): boolean {
  if (path.length - pos < k.length) return false;
  for (let i = 0; i < k.length; i++) if (k[i] !== path[pos + i]) return false;
  return true;
}

export function prefixLen(k: Uint8Array, path: Uint8Array, pos: number): number {
  const n = Math.min(k.length, path.length - pos);
  let i = 0;
  while (i < n && k[i] === path[pos + i]) i++;
  return i;
}

export function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
