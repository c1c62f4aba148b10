import type { AccountState, Address } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { canonicalBytes } from '../primitives/canonical';
import { type Hex, fromHex, isHex, toHex, utf8 } from '../primitives/hex';
import { decodeAccount, encodeAccount } from './account';
import { keccak256 } from '../crypto/keccak';
import { hasGetMany, type KvBatch, type KvReader } from './kv';
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
 * from any other trie opened on the same store. Await each call before the next. A
 * STATE_MISSING_NODE error (a corrupt store, or a root that was never written) leaves the
 * trie as it was.
 *
 * Writes cost no hashing: they rebuild their path in memory (see `Mpt`); `root()` hashes
 * the changed nodes once, and `flush` encodes each new node reachable from the root once.
 * Executing a block costs far less when `prefetchAccounts` first loads the accounts it
 * touches, one level of the trie at a time.
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
  private readonly secureKeys = new Map<string, SecureKey>();

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
   * Loads these accounts' trie paths into memory, all paths one level at a time with the
   * store reads of a level issued together (one multi-get when the store has `getMany`), so
   * that executing a block that touches them does not wait on one read at a time. Changes
   * nothing; optional. Must not run concurrently with writes.
   */
  async prefetchAccounts(addrs: readonly Address[]): Promise<void> {
    const paths: Uint8Array[] = [];
    for (const a of new Set(addrs)) {
      const key = addressKey(a);
      const k = hexOf(key);
      if (!this.values.has(k)) paths.push(this.secure(k, key).path);
    }
    await this.mpt.prefetch(paths);
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
    const nodes = await this.mpt.prove(keccak256(addressKey(addr)));
    return nodes.map(toHex);
  }

  private async read(key: Uint8Array): Promise<Uint8Array | undefined> {
    const k = hexOf(key);
    let v = this.values.get(k);
    if (v === undefined) {
      const s = this.secure(k, key);
      v = await this.mpt.get(s.key, s.path);
      this.remember(k, v);
    }
    return v ?? undefined;
  }

  private async write(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.assertWritable();
    const k = hexOf(key);
    const s = this.secure(k, key);
    await this.mpt.put(s.key, value, s.path);
    this.remember(k, value);
  }

  private async remove(key: Uint8Array): Promise<void> {
    this.assertWritable();
    const k = hexOf(key);
    const s = this.secure(k, key);
    await this.mpt.del(s.key, s.path);
    this.remember(k, null);
  }

  /** The secure key (keccak256 of the key) and its nibbles, computed once per key. */
  private secure(k: string, key: Uint8Array): SecureKey {
    let s = this.secureKeys.get(k);
    if (s === undefined) {
      const hashed = keccak256(key);
      s = { key: hashed, path: nibblesOf(hashed) };
      if (this.secureKeys.size >= MAX_CACHED_VALUES) this.secureKeys.clear();
      this.secureKeys.set(k, s);
    }
    return s;
  }

  private remember(k: string, v: Uint8Array | null): void {
    if (this.values.size >= MAX_CACHED_VALUES) this.values.clear();
    this.values.set(k, v);
  }

  private assertWritable(): void {
    if (this.readOnly) throw new CairnError('STATE_READ_ONLY', 'this state view is read-only');
  }
}

interface SecureKey {
  key: Uint8Array;
  path: Uint8Array;
}

const MAX_CACHED_VALUES = 100_000;
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
    readonly children: Child[],
    readonly value: Uint8Array | null,
  ) {
    super();
  }
}

type Node = Short | Full;
/** A node, the hash of a stored node (a 32-byte Uint8Array), or nothing. */
type Child = Node | Uint8Array | null;

const isHashRef = (c: Child | Uint8Array): c is Uint8Array => c instanceof Uint8Array;

/** Whether `path` continues with the nibbles `k` at `pos` (a Short node on the walk matches). */
function continuesAt(path: Uint8Array, pos: number, k: Uint8Array): boolean {
  if (path.length - pos < k.length) return false;
  for (let i = 0; i < k.length; i++) if (k[i] !== path[pos + i]) return false;
  return true;
}


/** Where stored nodes come from: this trie's store and the caches shared by every trie over it. */
class NodeSource {
  readonly shared: SharedNodes;
  private readonly db: TrieNodeDb;

  constructor(private readonly kv: KvReader) {
    this.shared = sharedNodesOf(kv);
    this.db = new TrieNodeDb(kv, this.shared, new Map());
  }

  /** The node's encoding if it is in memory (flushed but unwritten, or cached). */
  peek(hashHex: string): Uint8Array | undefined {
    return this.shared.lookup(hashHex);
  }

  /** The node's encoding, from memory or the store; STATE_MISSING_NODE when there is none. */
  get(hashHex: string): Promise<Uint8Array> {
    return this.db.get(hashHex);
  }

  /** Several nodes' encodings, the ones not in memory read together. */
  async getMany(hashHexes: readonly string[]): Promise<Uint8Array[]> {
    const kv = this.kv;
    if (!hasGetMany(kv)) return Promise.all(hashHexes.map((h) => this.db.get(h)));
    const out: Uint8Array[] = new Array(hashHexes.length);
    const missing: number[] = [];
    for (let i = 0; i < hashHexes.length; i++) {
      const v = this.peek(hashHexes[i]);
      if (v === undefined) missing.push(i);
      else out[i] = v;
    }
    if (missing.length === 0) return out;
    const read = await kv.getMany(missing.map((i) => nodeKey(hashHexes[i])));
    for (const [j, i] of missing.entries()) {
      const h = hashHexes[i];
      const v = this.peek(h) ?? read[j]; // a flush may have happened meanwhile
      if (v === undefined) throw new CairnError('STATE_MISSING_NODE', `state trie node 0x${h} is missing from the store`, { node: `0x${h}` });
      this.shared.cache.set(h, v);
      out[i] = v;
    }
    return out;
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
        if (path.length - pos < k.length) return out;
        for (let i = 0; i < k.length; i++) if (k[i] !== path[pos + i]) return out;
        if (n.isLeaf) return out;
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
const slotGet = (t: Mpt, s: Slot): Child | Uint8Array => (s.parent === null ? t.root : s.parent instanceof Short ? s.parent.val : s.parent.children[s.index]);
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
    const children: Child[] = [null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null];
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

/** Length of the RLP encoding of a byte string of these bytes. */
function stringLen(b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) return 1;
  return headerLen(b.length) + b.length;
}

const headerLen = (len: number): number => (len < 56 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : len < 0x1000000 ? 4 : 5);

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

function encode(n: Node): Uint8Array {
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

function hashOf(n: Node): Uint8Array {
  let h = n.hash;
  if (h === undefined) n.hash = h = keccak256(encode(n));
  return h;
}

// --- decoding -------------------------------------------------------------------------

/** A stored node from its encoding; `hashHex` names it in errors. Children stay hashes until needed. */
function decodeNode(enc: Uint8Array, hash: Uint8Array, hashHex: string): Node {
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

const badNode = (hashHex: string, why: string) => new CairnError('STATE_BAD_NODE', `state trie node 0x${hashHex} is malformed: ${why}`, { node: `0x${hashHex}` });
