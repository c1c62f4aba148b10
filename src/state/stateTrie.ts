import { type MerklePatriciaTrie, createMPT, createMerkleProof } from '@ethereumjs/mpt';
import { ValueEncoding } from '@ethereumjs/util';
import type { AccountState, Address } from '../chain/types';
import { CairnError } from '../errors/CairnError';
import { canonicalBytes } from '../primitives/canonical';
import { type Hex, fromHex, isHex, toHex, utf8 } from '../primitives/hex';
import { decodeAccount, encodeAccount } from './account';
import type { KvBatch, KvReader } from './kv';
import { type SharedNodes, TrieNodeDb, nodeKey, reachablePending, sharedNodesOf } from './trieNodes';

/** keccak256(rlp('')) — the root of the empty trie, as in Ethereum. */
export const EMPTY_TRIE_ROOT: Hex = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * The authenticated state: one secure Merkle Patricia trie (keys hashed with keccak256)
 * holding accounts (key = the 20 address bytes) and module records (key = utf8('r/' + name)).
 *
 * Block lifecycle: open at the parent root → execute (checkpoint/commit/revert per tx) →
 * `flush(batch)` puts the new nodes into the caller's batch → the caller adds the block
 * and writes the batch → `settle()`. Reads are correct at every step, from this trie or
 * from any other trie opened on the same store. Await each call before the next: the
 * library trie is not re-entrant. After a STATE_MISSING_NODE error (a corrupt store or
 * a root that was never written) the instance is unusable.
 */
export class StateTrie {
  private readonly checkpoints: Uint8Array[] = [];
  /** Generations this trie flushed whose batches the caller has not reported written. */
  private readonly unsettled: Map<string, Uint8Array>[] = [];
  /**
   * Values at the current root by trie key (hex), null = absent. A block reads the same
   * accounts several times (sender checks, handler, fee), and each trie read is a walk.
   * Kept exact on every write; dropped on revert, which moves the root back.
   */
  private readonly values = new Map<string, Uint8Array | null>();

  private constructor(
    private readonly trie: MerklePatriciaTrie,
    private readonly db: TrieNodeDb,
    private readonly shared: SharedNodes,
    private readonly kv: KvReader,
    private readonly readOnly: boolean,
  ) {}

  /** The trie at `root` over `kv` (null = the empty trie). */
  static async open(kv: KvReader, root: Hex | null): Promise<StateTrie> {
    return StateTrie.create(kv, root, new Map(), false);
  }

  private static async create(kv: KvReader, root: Hex | null, pending: Map<string, Uint8Array>, readOnly: boolean): Promise<StateTrie> {
    if (root !== null && !isHex(root, 32)) throw new CairnError('BAD_STATE_ROOT', `state root must be 32-byte hex, got ${String(root).slice(0, 80)}`);
    const shared = sharedNodesOf(kv);
    const db = new TrieNodeDb(kv, shared, pending);
    const trie = await createMPT({ db, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, root: root === null ? undefined : fromHex(root) });
    const t = new StateTrie(trie, db, shared, kv, readOnly);
    // Fail here, with the root named, rather than on the first read of an unknown root.
    if (!t.isEmpty()) await db.get(t.root().slice(2));
    return t;
  }

  root(): Hex {
    return toHex(this.trie.root());
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
    this.checkpoints.push(this.trie.root());
  }

  /** Keeps the changes since the matching checkpoint. */
  async commit(): Promise<void> {
    if (this.checkpoints.pop() === undefined) throw new CairnError('STATE_NO_CHECKPOINT', 'commit without a checkpoint');
  }

  /**
   * Rolls back to the matching checkpoint. Nodes are immutable, so restoring the old root
   * restores the old state; nodes written since become unreachable and `flush` drops them.
   */
  async revert(): Promise<void> {
    const root = this.checkpoints.pop();
    if (root === undefined) throw new CairnError('STATE_NO_CHECKPOINT', 'revert without a checkpoint');
    this.trie.root(root);
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
    const fresh = reachablePending(root.slice(2), this.db.pending);
    for (const [k, v] of fresh) batch.put(nodeKey(k), v);
    this.db.pending = new Map();
    if (fresh.size > 0) {
      this.shared.unwritten.push(fresh);
      this.unsettled.push(fresh);
    }
    return root;
  }

  /** Reports the oldest batch given to `flush` as written: its nodes are read from the store from now on. */
  settle(): void {
    const gen = this.unsettled.shift();
    if (gen !== undefined) this.shared.release(gen);
  }

  /**
   * A read-only view at another root: any flushed root (nodes are never deleted), or a
   * root of this trie's unflushed changes (the view shares them).
   */
  async atRoot(root: Hex): Promise<StateTrie> {
    return StateTrie.create(this.kv, root, this.db.pending, true);
  }

  /** Merkle proof of the account key against `root()`: the RLP nodes on its path, root first. */
  async proveAccount(addr: Address): Promise<Hex[]> {
    if (this.isEmpty()) return [];
    const nodes = await createMerkleProof(this.trie, addressKey(addr));
    return nodes.map(toHex);
  }

  private isEmpty(): boolean {
    return this.root() === EMPTY_TRIE_ROOT;
  }

  private async read(key: Uint8Array): Promise<Uint8Array | undefined> {
    const k = hexOf(key);
    let v = this.values.get(k);
    if (v === undefined) {
      // throwIfMissing: a missing node is corruption, never "absent".
      v = this.isEmpty() ? null : await this.trie.get(key, true);
      this.remember(k, v);
    }
    return v ?? undefined;
  }

  private async write(key: Uint8Array, value: Uint8Array): Promise<void> {
    this.assertWritable();
    await this.trie.put(key, value);
    this.remember(hexOf(key), value);
  }

  private async remove(key: Uint8Array): Promise<void> {
    this.assertWritable();
    if (!this.isEmpty()) await this.trie.del(key);
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
