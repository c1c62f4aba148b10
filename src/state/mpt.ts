import { type Hex, fromHex, toHex } from '../primitives/hex';
import type { KvReader } from './kv';
import { EMPTY_TRIE_ROOT, decodeNode, encode, hashOf } from './mptCodec';
import {
  type Child,
  Full,
  type Node,
  Short,
  TERM,
  concatNibbles,
  continuesAt,
  hexOf,
  isHashRef,
  nibblesOf,
  prefixLen,
} from './mptNode';
import { NodeSource } from './trieNodes';

/**
 * The Merkle Patricia engine: lookup, copy-on-write insert and delete, hashing, proofs and
 * the walks that load stored nodes (nodes in `mptNode.ts`, their bytes in `mptCodec.ts`,
 * where stored ones come from in `trieNodes.ts`).
 */

/**
 * The engine under StateTrie on raw keys (no key hashing): for tests and tools. A commit's
 * nodes must be written to `kv` under `nodeKey(hash)` before another trie reads them.
 * @internal
 */
export async function openMpt(kv: KvReader, root: Uint8Array | null): Promise<Mpt> {
  const mpt = new Mpt(new NodeSource(kv), root);
  await mpt.resolveRoot();
  return mpt;
}

/**
 * Reads resolve hashes into nodes on the way down and keep them (replacing a hash with the
 * node it names changes nothing a parent encodes), so the paths a block touches load once.
 * Writes first resolve their path that way, then rebuild it synchronously.
 */
export class Mpt {
  /** Roots reported by `rootHex` since the last commit, so `atRoot` can find unflushed ones. */
  readonly known = new Map<string, Child>();
  /** Store reads in flight: concurrent reads of one node share one. */
  private readonly loading = new Map<string, Promise<Node>>();

  constructor(
    readonly source: NodeSource,
    public root: Child,
  ) {}

  /** Loads the root node, so that an unknown root fails now. */
  async resolveRoot(): Promise<void> {
    const r = this.root;
    if (isHashRef(r)) this.root = await this.resolve(r);
  }

  /** The root hash; hashes the nodes changed since the last call (CPU only: they are all in memory). */
  rootHash(): Uint8Array {
    const r = this.root;
    if (r === null) return EMPTY_ROOT_BYTES;
    if (isHashRef(r)) return r;
    return hashOf(r);
  }

  rootHex(): Hex {
    const h = toHex(this.rootHash());
    if (this.root !== null && !isHashRef(this.root)) {
      if (this.known.size >= MAX_KNOWN_ROOTS) this.known.clear();
      this.known.set(h, this.root);
    }
    return h;
  }

  /** The value at `key`; `path` is its nibbles (see `nibblesOf`) when the caller has them. */
  async get(key: Uint8Array, path = nibblesOf(key)): Promise<Uint8Array | null> {
    let r = this.root;
    if (isHashRef(r)) {
      const p = this.resolve(r);
      this.root = r = p instanceof Promise ? await p : p;
    }
    let n: Child = r;
    let pos = 0;
    for (;;) {
      if (n === null) return null;
      if (n instanceof Short) {
        const k = n.key;
        if (!continuesAt(path, pos, k)) return null;
        if (n.isLeaf) return n.val as Uint8Array;
        pos += k.length;
        let c = n.val as Child;
        if (isHashRef(c)) {
          const r = this.resolve(c);
          n.val = c = r instanceof Promise ? await r : r;
        }
        n = c;
      } else if (n instanceof Full) {
        const nib = path[pos];
        if (nib === TERM) return n.value;
        let c: Child = n.children[nib];
        if (isHashRef(c)) {
          const r = this.resolve(c);
          n.children[nib] = c = r instanceof Promise ? await r : r;
        }
        n = c;
        pos++;
      } else {
        throw new Error('unreachable: unresolved child');
      }
    }
  }

  /** Sets `key` to `value` (an empty value deletes, as in Ethereum). */
  async put(key: Uint8Array, value: Uint8Array, path = nibblesOf(key)): Promise<void> {
    if (value.length === 0) return this.del(key, path);
    const old = await this.get(key, path); // resolves the path
    if (old !== null && bytesEqual(old, value)) return;
    this.root = insert(this.root, path, 0, value);
  }

  async del(key: Uint8Array, path = nibblesOf(key)): Promise<void> {
    if ((await this.get(key, path)) === null) return; // absent: nothing changes
    const r = await this.remove(this.root, path, 0);
    if (r !== undefined) this.root = r;
  }

  /**
   * Resolves the nodes on these paths (nibbles, see `nibblesOf`): every round walks each
   * path as far as memory allows and then loads all the nodes the walks stopped at at once.
   */
  async prefetch(paths: readonly Uint8Array[]): Promise<void> {
    let active = paths;
    while (active.length > 0) {
      const stops = new Map<string, { hash: Uint8Array; slots: Slot[] }>();
      const next: Uint8Array[] = [];
      for (const path of active) {
        const slot = this.firstUnresolved(path);
        if (slot === null) continue;
        const hash = slotGet(this, slot) as Uint8Array;
        const hex = hexOf(hash);
        const stop = stops.get(hex);
        if (stop === undefined) stops.set(hex, { hash, slots: [slot] });
        else stop.slots.push(slot);
        next.push(path);
      }
      if (stops.size === 0) return;
      const hexes = [...stops.keys()];
      const encs = await this.source.getMany(hexes);
      for (const [i, hex] of hexes.entries()) {
        const { hash, slots } = stops.get(hex) as { hash: Uint8Array; slots: Slot[] };
        const node = decodeNode(encs[i], hash, hex);
        // Only where the slot still holds the hash (a concurrent read may have resolved it).
        for (const s of slots) if (slotGet(this, s) === hash) slotSet(this, s, node);
      }
      active = next;
    }
  }

  /** Where the walk along `path` first meets a hash (null: the path is resident to its end). */
  private firstUnresolved(path: Uint8Array): Slot | null {
    if (isHashRef(this.root)) return { parent: null, index: -1 };
    let n: Child = this.root;
    let pos = 0;
    for (;;) {
      if (n === null) return null;
      if (n instanceof Short) {
        const k = n.key;
        if (!continuesAt(path, pos, k)) return null;
        if (n.isLeaf) return null;
        pos += k.length;
        if (isHashRef(n.val)) return { parent: n, index: -1 };
        n = n.val as Child;
      } else if (n instanceof Full) {
        const nib = path[pos];
        if (nib === TERM) return null;
        const c: Child = n.children[nib];
        if (isHashRef(c)) return { parent: n, index: nib };
        n = c;
        pos++;
      } else {
        return null;
      }
    }
  }

  /** The nodes on `key`'s path, root first, as @ethereumjs/mpt's createMerkleProof gives them. */
  async prove(key: Uint8Array): Promise<Uint8Array[]> {
    const path = nibblesOf(key);
    await this.get(key, path); // resolves the path
    const out: Uint8Array[] = [];
    let n = this.root as Node | null;
    let pos = 0;
    for (;;) {
      if (n === null) return out;
      out.push(encode(n));
      if (n instanceof Short) {
        const k = n.key;
        if (!continuesAt(path, pos, k) || n.isLeaf) return out;
        pos += k.length;
        n = n.val as Node;
      } else {
        if (path[pos] === TERM) return out;
        n = n.children[path[pos]] as Node | null;
        pos++;
      }
    }
  }

  /**
   * Marks every node reachable from the root as stored and returns the new ones to store,
   * by hash (hex). Afterwards the trie holds only the root hash: memory stays bounded, and
   * later reads load from the shared caches or the store.
   */
  commit(): Map<string, Uint8Array> {
    const fresh = new Map<string, Uint8Array>();
    const r = this.root;
    this.known.clear();
    if (r === null || isHashRef(r)) return fresh;
    const h = hashOf(r);
    const stored = r.flushed;
    collect(r, fresh);
    // A root is stored by hash even when its encoding is short enough to be embedded.
    if (!stored) fresh.set(hexOf(h), encode(r));
    this.root = h;
    return fresh;
  }

  /** The node a hash names: decoded from memory when it is there, else read from the store. */
  private resolve(hash: Uint8Array): Node | Promise<Node> {
    const hex = hexOf(hash);
    const enc = this.source.peek(hex);
    if (enc !== undefined) return decodeNode(enc, hash, hex);
    let p = this.loading.get(hex);
    if (p === undefined) {
      p = this.source.get(hex).then(
        (e) => {
          this.loading.delete(hex);
          return decodeNode(e, hash, hex);
        },
        (e: unknown) => {
          this.loading.delete(hex);
          throw e;
        },
      );
      this.loading.set(hex, p);
    }
    return p;
  }

  /** Copy-on-write delete of a present key under `n`; null = `n` is gone. */
  private async remove(n: Child, path: Uint8Array, pos: number): Promise<Node | null> {
    if (n === null || isHashRef(n)) throw new Error('unreachable: path not resolved');
    if (n instanceof Short) {
      if (n.isLeaf) return null;
      const k = n.key;
      const c = await this.remove(n.val as Child, path, pos + k.length);
      // An extension's child is a branch with ≥ 2 entries, so it never vanishes; if it
      // shrank to a short node, the two short nodes merge into one.
      if (c === null) return null;
      if (c instanceof Short) return new Short(concatNibbles(k, c.key), c.val);
      return new Short(k, c);
    }
    const nib = path[pos];
    let children = n.children;
    let value = n.value;
    if (nib === TERM) {
      value = null;
    } else {
      children = children.slice();
      children[nib] = await this.remove(children[nib], path, pos + 1);
    }
    // A branch keeps ≥ 2 entries; with one left it becomes a short node.
    let only = -1;
    let count = value === null ? 0 : 1;
    for (let i = 0; i < 16 && count < 2; i++) {
      if (children[i] !== null) {
        only = i;
        count++;
      }
    }
    if (count >= 2) return new Full(children, value);
    if (count === 0) return null;
    if (only < 0) return new Short(Uint8Array.of(TERM), value as Uint8Array);
    let c = children[only] as Node | Uint8Array;
    if (isHashRef(c)) c = await this.resolve(c);
    if (c instanceof Short) return new Short(concatNibbles(Uint8Array.of(only), c.key), c.val);
    return new Short(Uint8Array.of(only), c);
  }
}

/** A place that holds a child: the root (parent null), an extension's child (index -1), a branch's child. */
interface Slot {
  parent: Node | null;
  index: number;
}
const slotGet = (t: Mpt, s: Slot): Child | Uint8Array =>
  s.parent === null ? t.root : s.parent instanceof Short ? s.parent.val : s.parent.children[s.index];
function slotSet(t: Mpt, s: Slot, n: Node): void {
  if (s.parent === null) t.root = n;
  else if (s.parent instanceof Short) s.parent.val = n;
  else s.parent.children[s.index] = n;
}

const MAX_KNOWN_ROOTS = 1024;
const EMPTY_ROOT_BYTES = fromHex(EMPTY_TRIE_ROOT);

/** Copy-on-write insert under `n` (its path to `path` resolved) at `path[pos..]`. */
function insert(n: Child, path: Uint8Array, pos: number, value: Uint8Array): Node {
  if (n === null) return new Short(path.subarray(pos), value);
  if (isHashRef(n)) throw new Error('unreachable: path not resolved');
  if (n instanceof Short) {
    const k = n.key;
    const m = prefixLen(k, path, pos);
    if (m === k.length) {
      if (n.isLeaf) return new Short(k, value);
      return new Short(k, insert(n.val as Child, path, pos + m, value));
    }
    // The paths part at k[m]: a branch there holds the old remainder and the new one.
    const children: Child[] = [
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ];
    let bval: Uint8Array | null = null;
    const oldNib = k[m];
    if (oldNib === TERM) bval = n.val as Uint8Array;
    else children[oldNib] = m + 1 === k.length ? (n.val as Child) : new Short(k.subarray(m + 1), n.val);
    const newNib = path[pos + m];
    if (newNib === TERM) bval = value;
    else children[newNib] = new Short(path.subarray(pos + m + 1), value);
    const branch = new Full(children, bval);
    return m === 0 ? branch : new Short(k.subarray(0, m), branch);
  }
  const nib = path[pos];
  if (nib === TERM) return new Full(n.children.slice(), value);
  const children = n.children.slice();
  children[nib] = insert(children[nib], path, pos + 1, value);
  return new Full(children, n.value);
}

/** Puts the new nodes under `n` (not `n` itself) that are referenced by hash into `out`, and marks them all stored. */
function collect(n: Node, out: Map<string, Uint8Array>): void {
  if (n instanceof Short) {
    if (!n.isLeaf) collectChild(n.val, out);
  } else {
    for (const c of n.children) collectChild(c, out);
  }
  n.flushed = true;
}

/** collect's step into a child (a function of its own: a closure per node cost a defineProperty each under tsx). */
function collectChild(c: Child | Uint8Array, out: Map<string, Uint8Array>): void {
  if (c === null || isHashRef(c) || c.flushed) return;
  collect(c, out);
  const enc = encode(c);
  if (enc.length >= 32) out.set(hexOf(hashOf(c)), enc);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
