import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { AccountState, Address } from '../chain/types';
import { CairnError } from '../errors/CairnError';
import { canonicalBytes } from '../primitives/canonical';
import { type Hex, fromHex, isHex, toHex, utf8 } from '../primitives/hex';
import { decodeAccount, encodeAccount } from './account';
import type { KvBatch, KvReader } from './kv';
import { type SharedNodes, TrieNodeDb, nodeKey, sharedNodesOf } from './trieNodes';

/** keccak256(rlp('')) — the root of the empty trie, as in Ethereum. */
export const EMPTY_TRIE_ROOT: Hex = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * The authenticated state: one secure Merkle Patricia trie (keys hashed with keccak256)
 * holding accounts (key = the 20 address bytes) and module records (key = utf8('r/' + name)).
 * Nodes, roots and proofs are byte-identical to Ethereum's MPT (and @ethereumjs/mpt).
 *
 * Block lifecycle: open at the parent root → execute (checkpoint/commit/revert per tx) →
 * `flush(batch)` puts the new nodes into the caller's batch → the caller adds the block
 * and writes the batch → `settle()`. Reads are correct at every step, from this trie or
 * from any other trie opened on the same store. Await each call before the next (only
 * `prefetchAccounts` runs reads concurrently). After a STATE_MISSING_NODE error (a
 * corrupt store or a root that was never written) the instance is unusable.
 *
 * Writes cost no hashing: they rebuild the path in memory (see `Mpt`); `root()` hashes
 * the changed nodes once, and `flush` encodes each new node reachable from the root once.
 */
export class StateTrie {
  private readonly checkpoints: Child[] = [];
  /** Generations this trie flushed whose batches the caller has not reported written. */
  private readonly unsettled: Map<string, Uint8Array>[] = [];
  /**
   * Values at the current root by trie key (hex), null = absent. A block reads the same
   * accounts several times (sender checks, handler, fee): a hit costs no key hashing and
   * no walk. Kept exact on every write; dropped on revert, which moves the root back.
   */
  private readonly values = new Map<string, Uint8Array | null>();

  private constructor(
    private readonly mpt: Mpt,
    private readonly kv: KvReader,
    private readonly readOnly: boolean,
  ) {}

  /** The trie at `root` over `kv` (null = the empty trie). */
  static async open(kv: KvReader, root: Hex | null): Promise<StateTrie> {
    if (root !== null && !isHex(root, 32)) throw new CairnError('BAD_STATE_ROOT', `state root must be 32-byte hex, got ${String(root).slice(0, 80)}`);
    const mpt = new Mpt(new NodeSource(kv), root === null || root.toLowerCase() === EMPTY_TRIE_ROOT ? null : fromHex(root));
    // Fail here, with the root named, rather than on the first read of an unknown root.
    await mpt.resolveRoot();
    return new StateTrie(mpt, kv, false);
  }

  root(): Hex {
    return this.mpt.rootHex();
  }

  async getAccount(addr: Address): Promise<AccountState | undefined> {
    const v = await this.read(addressKey(addr));
    return v === undefined ? undefined : decodeAccount(v);
  }

  /**
   * Loads these accounts' trie paths with concurrent store reads, so that executing a block
   * that touches them does not wait on one read at a time. Changes nothing; optional.
   * Must not run concurrently with writes.
   */
  async prefetchAccounts(addrs: readonly Address[]): Promise<void> {
    const keys = [...new Set(addrs)].map(addressKey).filter((k) => !this.values.has(hexOf(k)));
    for (let i = 0; i < keys.length; i += PREFETCH_WINDOW) await Promise.all(keys.slice(i, i + PREFETCH_WINDOW).map((k) => this.read(k)));
  }

  async putAccount(addr: Address, a: AccountState): Promise<void> {
    await this.write(addressKey(addr), encodeAccount(a));
  }

  async deleteAccount(addr: Address): Promise<void> {
    await this.remove(addressKey(addr));
  }

  async getRecord<T>(key: string): Promise<T | undefined> {
    const v = await this.read(recordKey(key));
    return v === undefined ? undefined : (JSON.parse(Buffer.from(v).toString('utf8')) as T);
  }

  /** Stores a JSON value in canonical form. Amounts must already be strings: no bigint, no floats. */
  async putRecord(key: string, value: unknown): Promise<void> {
    this.assertWritable();
    assertPlainJson(value, key);
    await this.write(recordKey(key), canonicalBytes(value));
  }

  async deleteRecord(key: string): Promise<void> {
    await this.remove(recordKey(key));
  }

  /** Opens a rollback point (one per transaction; nesting allowed). */
  checkpoint(): void {
    this.assertWritable();
    this.checkpoints.push(this.mpt.root);
  }

  /** Keeps the changes since the matching checkpoint. */
  async commit(): Promise<void> {
    if (this.checkpoints.length === 0) throw new CairnError('STATE_NO_CHECKPOINT', 'commit without a checkpoint');
    this.checkpoints.pop();
  }

  /**
   * Rolls back to the matching checkpoint. Nodes are immutable (every write builds a new
   * path), so restoring the old root object restores the old state exactly.
   */
  async revert(): Promise<void> {
    if (this.checkpoints.length === 0) throw new CairnError('STATE_NO_CHECKPOINT', 'revert without a checkpoint');
    this.mpt.root = this.checkpoints.pop() as Child;
    this.values.clear();
  }

  /**
   * Puts every node reachable from the current root that is not yet stored into `batch`
   * and returns the root. Writes nothing itself. Call `settle()` once the batch is written
   * (or abandoned); until then the nodes are served from memory.
   */
  async flush(batch: KvBatch): Promise<Hex> {
    this.assertWritable();
    if (this.checkpoints.length > 0) throw new CairnError('STATE_CHECKPOINT_OPEN', 'flush with an open checkpoint');
    const root = this.root();
    const fresh = this.mpt.commit();
    for (const [k, v] of fresh) batch.put(nodeKey(k), v);
    if (fresh.size > 0) {
      this.mpt.source.shared.unwritten.push(fresh);
      this.unsettled.push(fresh);
    }
    return root;
  }

  /** Reports the oldest batch given to `flush` as written: its nodes are read from the store from now on. */
  settle(): void {
    const gen = this.unsettled.shift();
    if (gen !== undefined) this.mpt.source.shared.release(gen);
  }

  /**
   * A read-only view at another root: any flushed root (nodes are never deleted), or a
   * root this trie reported since its last flush (the view shares its unflushed nodes).
   */
  async atRoot(root: Hex): Promise<StateTrie> {
    if (!isHex(root, 32)) throw new CairnError('BAD_STATE_ROOT', `state root must be 32-byte hex, got ${String(root).slice(0, 80)}`);
    const r = root.toLowerCase() as Hex;
    const known = r === this.root() ? this.mpt.root : this.mpt.known.get(r);
    const mpt = new Mpt(this.mpt.source, known !== undefined ? known : r === EMPTY_TRIE_ROOT ? null : fromHex(r));
    await mpt.resolveRoot();
    return new StateTrie(mpt, this.kv, true);
  }

  /** Merkle proof of the account key against `root()`: the RLP nodes on its path, root first. */
  async proveAccount(addr: Address): Promise<Hex[]> {
    const nodes = await this.mpt.prove(secureKey(addressKey(addr)));
    return nodes.map(toHex);
  }

  private async read(key: Uint8Array): Promise<Uint8Array | undefined> {
    const k = hexOf(key);
    let v = this.values.get(k);
    if (v === undefined) {
      v = await this.mpt.get(secureKey(key));
      this.remember(k, v);
    }
    return v ?? undefined;
  }

  private async write(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.assertWritable();
    await this.mpt.put(secureKey(key), value);
    this.remember(hexOf(key), value);
  }

  private async remove(key: Uint8Array): Promise<void> {
    this.assertWritable();
    await this.mpt.del(secureKey(key));
    this.remember(hexOf(key), null);
  }

  private remember(k: string, v: Uint8Array | null): void {
    if (this.values.size >= MAX_CACHED_VALUES) this.values.clear();
    this.values.set(k, v);
  }

  private assertWritable(): void {
    if (this.readOnly) throw new CairnError('STATE_READ_ONLY', 'this state view is read-only');
  }
}

const MAX_CACHED_VALUES = 100_000;
const PREFETCH_WINDOW = 256;
const hexOf = (k: Uint8Array): string => Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('hex');

export function addressKey(addr: Address): Uint8Array {
  if (!isHex(addr, 20)) throw new CairnError('BAD_ADDRESS', `not a 20-byte hex address: ${String(addr).slice(0, 80)}`);
  return fromHex(addr);
}

/**
 * utf8('r/' + name). Such a key is exactly 20 bytes for an 18-byte name and would then
 * share the account key space (anyone can fund the address 0x722f…): those get a trailing
 * 0xff, a byte that never occurs in UTF-8, so the mapping stays injective and collision-free.
 */
export function recordKey(key: string): Uint8Array {
  const k = utf8(`r/${key}`);
  return k.length === 20 ? Buffer.concat([k, Uint8Array.of(0xff)]) : k;
}

/** Only values that round-trip through JSON unchanged, so what is hashed is what is read back. */
function assertPlainJson(v: unknown, key: string, depth = 0): void {
  const bad = (why: string) => new CairnError('BAD_RECORD', `record ${key}: ${why}`, { key });
  if (depth > 64) throw bad('nested too deeply');
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw bad(`number ${v} is not a safe integer (store amounts as strings)`);
    return;
  }
  if (typeof v === 'bigint') throw bad('bigint values must be stored as strings');
  if (Array.isArray(v)) {
    for (const x of v) assertPlainJson(x, key, depth + 1);
    return;
  }
  const proto = typeof v === 'object' ? Object.getPrototypeOf(v) : undefined;
  if (proto === Object.prototype || proto === null) {
    for (const x of Object.values(v as object)) assertPlainJson(x, key, depth + 1);
    return;
  }
  throw bad(`${typeof v} is not a JSON value`);
}

// ---------------------------------------------------------------------------------------
// The engine: a Merkle Patricia trie in memory, geth-style, made of immutable nodes.
//
// A key is a path of nibbles ending with the terminator 16 (so no key is a prefix of
// another). Node kinds, as in Ethereum:
//   Short — a leaf (key ends with 16; `val` is the value) or an extension (`val` is a child);
//   Full  — a branch: 16 children and a value (the value of a key ending exactly here).
// A child is a node object, or the 32-byte keccak hash of a stored node not loaded yet.
// Encoding: RLP; a child whose encoding is shorter than 32 bytes is embedded in its
// parent, any other by its hash; the root is always hashed; keys in hex-prefix form.
//
// Nodes never change after construction (except caches that do not change what they
// encode: their encoding, their hash, the `flushed` mark, and a hash child replaced by
// the node it names). A write builds new nodes along its path and shares the rest, so a
// root object is a snapshot: checkpoint keeps it, revert puts it back.
// ---------------------------------------------------------------------------------------

const TERM = 16;

abstract class NodeBase {
  /** RLP encoding, once computed. */
  enc: Uint8Array | undefined = undefined;
  /** keccak256(enc), once computed (only for nodes referenced by hash, and roots). */
  hash: Uint8Array | undefined = undefined;
  /** In the store already, or embedded in a node that is (nothing to write). */
  flushed = false;
}

class Short extends NodeBase {
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

class Full extends NodeBase {
  constructor(
    readonly children: (Child | null)[],
    readonly value: Uint8Array | null,
  ) {
    super();
  }
}

type Node = Short | Full;
/** A node, or the hash of a stored node. */
type Child = Node | Uint8Array | null;

const isHashRef = (c: Child | Uint8Array): c is Uint8Array => c instanceof Uint8Array;

/** Where stored nodes come from: this trie's store and the caches shared by every trie over it. */
class NodeSource {
  readonly shared: SharedNodes;
  private readonly db: TrieNodeDb;

  constructor(kv: KvReader) {
    this.shared = sharedNodesOf(kv);
    this.db = new TrieNodeDb(kv, this.shared, new Map());
  }

  /** The stored encoding of the node with this hash; STATE_MISSING_NODE when there is none. */
  get(hashHex: string): Promise<Uint8Array> {
    return this.db.get(hashHex);
  }
}

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

export class Mpt {
  /** Roots reported by `rootHex` since the last commit, so `atRoot` can find unflushed ones. */
  readonly known = new Map<string, Child>();
  /** Node loads in flight (concurrent prefetch walks share them). */
  private readonly loading = new Map<string, Promise<Node>>();

  constructor(
    readonly source: NodeSource,
    public root: Child,
  ) {}

  /** Loads the root node, so that an unknown root fails now. */
  async resolveRoot(): Promise<void> {
    if (isHashRef(this.root)) this.root = await this.load(this.root);
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

  async get(key: Uint8Array): Promise<Uint8Array | null> {
    const path = nibblesOf(key);
    if (isHashRef(this.root)) this.root = await this.load(this.root);
    let n: Child = this.root;
    let pos = 0;
    for (;;) {
      if (n === null) return null;
      if (n instanceof Short) {
        const k = n.key;
        if (path.length - pos < k.length) return null;
        for (let i = 0; i < k.length; i++) if (k[i] !== path[pos + i]) return null;
        if (n.isLeaf) return n.val as Uint8Array;
        pos += k.length;
        if (isHashRef(n.val)) n.val = await this.load(n.val);
        n = n.val as Child;
      } else if (n instanceof Full) {
        const nib = path[pos];
        if (nib === TERM) return n.value;
        let c: Child = n.children[nib];
        if (isHashRef(c)) n.children[nib] = c = await this.load(c);
        n = c;
        pos++;
      } else {
        throw new Error('unreachable: unresolved child');
      }
    }
  }

  /** Sets `key` to `value` (an empty value deletes, as in Ethereum). */
  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    if (value.length === 0) return this.del(key);
    const r = await this.insert(this.root, nibblesOf(key), 0, value);
    if (r !== undefined) this.root = r;
  }

  async del(key: Uint8Array): Promise<void> {
    const r = await this.remove(this.root, nibblesOf(key), 0);
    if (r !== undefined) this.root = r;
  }

  /** The nodes on `key`'s path, root first, as @ethereumjs/mpt's createMerkleProof gives them. */
  async prove(key: Uint8Array): Promise<Uint8Array[]> {
    const path = nibblesOf(key);
    const out: Uint8Array[] = [];
    let n: Child = this.root;
    let pos = 0;
    for (;;) {
      if (n === null) return out;
      if (isHashRef(n)) n = await this.load(n);
      out.push(encode(n));
      if (n instanceof Short) {
        const k = n.key;
        if (path.length - pos < k.length) return out;
        for (let i = 0; i < k.length; i++) if (k[i] !== path[pos + i]) return out;
        if (n.isLeaf) return out;
        pos += k.length;
        n = n.val as Child;
      } else {
        if (path[pos] === TERM) return out;
        n = n.children[path[pos]];
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

  private load(hash: Uint8Array): Promise<Node> {
    const hex = hexOf(hash);
    let p = this.loading.get(hex);
    if (p === undefined) {
      p = this.source.get(hex).then(
        (enc) => {
          this.loading.delete(hex);
          const n = decodeNode(enc, hex);
          n.hash = hash;
          return n;
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

  /** Copy-on-write insert under `n` at `path[pos..]`; undefined = nothing changed. */
  private async insert(n: Child, path: Uint8Array, pos: number, value: Uint8Array): Promise<Node | undefined> {
    if (n === null) return new Short(path.subarray(pos), value);
    if (isHashRef(n)) n = await this.load(n);
    if (n instanceof Short) {
      const k = n.key;
      const m = prefixLen(k, path, pos);
      if (m === k.length) {
        if (n.isLeaf) return bytesEqual(n.val as Uint8Array, value) ? undefined : new Short(k, value);
        const c = await this.insert(n.val as Child, path, pos + m, value);
        return c === undefined ? undefined : new Short(k, c);
      }
      // The paths part at k[m]: a branch there holds the old remainder and the new one.
      const children: (Child | null)[] = new Array(16).fill(null);
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
    if (nib === TERM) return n.value !== null && bytesEqual(n.value, value) ? undefined : new Full(n.children.slice(), value);
    const c = await this.insert(n.children[nib], path, pos + 1, value);
    if (c === undefined) return undefined;
    const children = n.children.slice();
    children[nib] = c;
    return new Full(children, n.value);
  }

  /** Copy-on-write delete under `n`; undefined = nothing changed (absent), null = `n` is gone. */
  private async remove(n: Child, path: Uint8Array, pos: number): Promise<Node | null | undefined> {
    if (n === null) return undefined;
    if (isHashRef(n)) n = await this.load(n);
    if (n instanceof Short) {
      const k = n.key;
      const m = prefixLen(k, path, pos);
      if (m < k.length) return undefined;
      if (n.isLeaf) return null;
      const c = await this.remove(n.val as Child, path, pos + k.length);
      if (c === undefined) return undefined;
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
      if (value === null) return undefined;
      value = null;
    } else {
      const c = await this.remove(children[nib], path, pos + 1);
      if (c === undefined) return undefined;
      children = children.slice();
      children[nib] = c;
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
    let c = children[only] as Child;
    if (isHashRef(c)) c = await this.load(c);
    if (c instanceof Short) return new Short(concatNibbles(Uint8Array.of(only), c.key), c.val);
    return new Short(Uint8Array.of(only), c);
  }
}

const MAX_KNOWN_ROOTS = 1024;
const EMPTY_ROOT_BYTES = fromHex(EMPTY_TRIE_ROOT);

/** Puts the new nodes under `n` (not `n` itself) that are referenced by hash into `out`, and marks them all stored. */
function collect(n: Node, out: Map<string, Uint8Array>): void {
  const visit = (c: Child | Uint8Array): void => {
    if (c === null || isHashRef(c) || c.flushed) return;
    collect(c, out);
    const enc = encode(c);
    if (enc.length >= 32) out.set(hexOf(hashOf(c)), enc);
  };
  if (n instanceof Short) {
    if (!n.isLeaf) visit(n.val);
  } else {
    for (const c of n.children) visit(c);
  }
  n.flushed = true;
}

/** The secure-trie key: keccak256 of the raw key. */
function secureKey(key: Uint8Array): Uint8Array {
  return keccak_256(key);
}

/** Key bytes → nibbles + terminator. */
function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2 + 1);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 0x0f;
  }
  out[out.length - 1] = TERM;
  return out;
}

function prefixLen(k: Uint8Array, path: Uint8Array, pos: number): number {
  const n = Math.min(k.length, path.length - pos);
  let i = 0;
  while (i < n && k[i] === path[pos + i]) i++;
  return i;
}

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// --- encoding -------------------------------------------------------------------------

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

function nibblesOfCompact(c: Uint8Array, hashHex: string): Uint8Array {
  if (c.length === 0) throw badNode(hashHex, 'empty path');
  const flag = c[0] >> 4;
  if (flag > 3) throw badNode(hashHex, 'bad path flag');
  const leaf = flag >= 2;
  const odd = flag & 1;
  const n = (c.length - 1) * 2 + odd;
  const out = new Uint8Array(n + (leaf ? 1 : 0));
  let j = 0;
  if (odd) out[j++] = c[0] & 0x0f;
  for (let i = 1; i < c.length; i++) {
    out[j++] = c[i] >> 4;
    out[j++] = c[i] & 0x0f;
  }
  if (leaf) out[j] = TERM;
  return out;
}

const RLP_EMPTY = Uint8Array.of(0x80);
const RLP_HASH_PREFIX = Uint8Array.of(0xa0);

/** RLP header for a string (offset 0x80) or list (0xc0) of `len` bytes. */
function header(len: number, offset: number): Uint8Array {
  if (len < 56) return Uint8Array.of(offset + len);
  const bytes: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l & 0xff);
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}

/** Appends the RLP encoding of a byte string. */
function pushString(parts: Uint8Array[], b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) {
    parts.push(b);
    return 1;
  }
  const h = header(b.length, 0x80);
  parts.push(h, b);
  return h.length + b.length;
}

/** Appends how a parent refers to a child: empty, embedded encoding, or hash. */
function pushRef(parts: Uint8Array[], c: Child | Uint8Array): number {
  if (c === null) {
    parts.push(RLP_EMPTY);
    return 1;
  }
  if (isHashRef(c)) {
    parts.push(RLP_HASH_PREFIX, c);
    return 33;
  }
  const enc = encode(c);
  if (enc.length < 32) {
    parts.push(enc);
    return enc.length;
  }
  parts.push(RLP_HASH_PREFIX, hashOf(c));
  return 33;
}

function encode(n: Node): Uint8Array {
  if (n.enc !== undefined) return n.enc;
  const parts: Uint8Array[] = [];
  let len = 0;
  if (n instanceof Short) {
    len += pushString(parts, compactOf(n.key));
    len += n.isLeaf ? pushString(parts, n.val as Uint8Array) : pushRef(parts, n.val);
  } else {
    for (const c of n.children) len += pushRef(parts, c);
    len += n.value === null ? pushString(parts, EMPTY_BYTES) : pushString(parts, n.value);
  }
  const h = header(len, 0xc0);
  const out = new Uint8Array(h.length + len);
  out.set(h);
  let off = h.length;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  n.enc = out;
  return out;
}

const EMPTY_BYTES = new Uint8Array(0);

function hashOf(n: Node): Uint8Array {
  if (n.hash === undefined) n.hash = keccak_256(encode(n));
  return n.hash;
}

/** A stored node from its encoding (`hashHex` names it in errors). Its children stay hashes until needed. */
function decodeNode(enc: Uint8Array, hashHex: string): Node {
  let raw: Uint8Array | RawNode;
  try {
    raw = RLP.decode(enc) as Uint8Array | RawNode;
  } catch (e) {
    throw badNode(hashHex, 'not RLP', e);
  }
  if (raw instanceof Uint8Array) throw badNode(hashHex, 'not a list');
  const n = fromRaw(raw, hashHex);
  n.enc = enc;
  return n;
}

type RawNode = (Uint8Array | RawNode)[];

function fromRaw(raw: RawNode, hashHex: string): Node {
  let n: Node;
  if (raw.length === 17) {
    const children: Child[] = new Array(16);
    for (let i = 0; i < 16; i++) children[i] = refOf(raw[i], hashHex);
    const v = raw[16];
    if (!(v instanceof Uint8Array)) throw badNode(hashHex, 'branch value is a list');
    n = new Full(children, v.length === 0 ? null : v);
  } else if (raw.length === 2) {
    const [k, v] = raw;
    if (!(k instanceof Uint8Array)) throw badNode(hashHex, 'path is a list');
    const key = nibblesOfCompact(k, hashHex);
    if (key[key.length - 1] === TERM) {
      if (!(v instanceof Uint8Array)) throw badNode(hashHex, 'leaf value is a list');
      n = new Short(key, v);
    } else {
      const c = refOf(v, hashHex);
      if (c === null || key.length === 0) throw badNode(hashHex, 'empty extension');
      n = new Short(key, c);
    }
  } else {
    throw badNode(hashHex, `list of ${raw.length} items`);
  }
  n.flushed = true;
  return n;
}

function refOf(r: Uint8Array | RawNode, hashHex: string): Child {
  if (r instanceof Uint8Array) {
    if (r.length === 0) return null;
    if (r.length === 32) return r;
    throw badNode(hashHex, `child reference of ${r.length} bytes`);
  }
  // An embedded node (its encoding is under 32 bytes).
  const n = fromRaw(r, hashHex);
  n.enc = RLP.encode(r);
  return n;
}

const badNode = (hashHex: string, why: string, cause?: unknown) =>
  new CairnError('STATE_BAD_NODE', `state trie node 0x${hashHex} is malformed: ${why}`, { node: `0x${hashHex}` }, { cause });
