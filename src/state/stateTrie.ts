import type { AccountState, Address } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { canonicalBytes } from '../primitives/canonical';
import { type Hex, fromHex, isHex, toHex } from '../primitives/hex';
import { decodeAccount, encodeAccount } from './account';
import { keccak256 } from '../crypto/keccak';
import type { KvBatch, KvReader } from './kv';
import { Mpt } from './mpt';
import { EMPTY_TRIE_ROOT } from './mptCodec';
import { type Child, hexOf, nibblesOf } from './mptNode';
import { boundedMemo } from '../primitives/memo';
import { addressKey, recordKey } from './trieKeys';
import { NodeSource, nodeKey } from './trieNodes';

export { EMPTY_TRIE_ROOT };

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

  private constructor(
    private readonly mpt: Mpt,
    private readonly kv: KvReader,
    private readonly readOnly: boolean,
  ) {}

  /** The trie at `root` over `kv` (null = the empty trie). */
  static async open(kv: KvReader, root: Hex | null): Promise<StateTrie> {
    if (root !== null && !isHex(root, 32))
      throw new CairnError('BAD_STATE_ROOT', `state root must be 32-byte hex, got ${String(root).slice(0, 80)}`);
    const mpt = new Mpt(
      new NodeSource(kv),
      root === null || root.toLowerCase() === EMPTY_TRIE_ROOT ? null : fromHex(root),
    );
    // Fail here, with the root named, rather than on the first read of an unknown root.
    await mpt.resolveRoot();
    return new StateTrie(mpt, kv, false);
  }

  root(): Hex {
    return this.mpt.rootHex();
  }

  async getAccount(addr: Address): Promise<AccountState | undefined> {
    const v = await this.read(accountSecureKey(addr));
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
      const s = accountSecureKey(a);
      if (!this.values.has(s.k)) paths.push(s.path);
    }
    await this.mpt.prefetch(paths);
  }

  async putAccount(addr: Address, a: AccountState): Promise<void> {
    await this.write(accountSecureKey(addr), encodeAccount(a));
  }

  async deleteAccount(addr: Address): Promise<void> {
    await this.remove(accountSecureKey(addr));
  }

  async getRecord<T>(key: string): Promise<T | undefined> {
    const v = await this.read(secureKey(recordKey(key)));
    return v === undefined ? undefined : (JSON.parse(Buffer.from(v).toString('utf8')) as T);
  }

  /** Stores a JSON value in canonical form. Amounts must already be strings: no bigint, no floats. */
  async putRecord(key: string, value: unknown): Promise<void> {
    this.assertWritable();
    assertPlainJson(value, key);
    await this.write(secureKey(recordKey(key)), canonicalBytes(value));
  }

  async deleteRecord(key: string): Promise<void> {
    await this.remove(secureKey(recordKey(key)));
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
    if (!isHex(root, 32))
      throw new CairnError('BAD_STATE_ROOT', `state root must be 32-byte hex, got ${String(root).slice(0, 80)}`);
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

  private async read(s: SecureKey): Promise<Uint8Array | undefined> {
    let v = this.values.get(s.k);
    if (v === undefined) {
      v = await this.mpt.get(s.key, s.path);
      this.remember(s.k, v);
    }
    return v ?? undefined;
  }

  private async write(s: SecureKey, value: Uint8Array): Promise<void> {
    this.assertWritable();
    await this.mpt.put(s.key, value, s.path);
    this.remember(s.k, value);
  }

  private async remove(s: SecureKey): Promise<void> {
    this.assertWritable();
    await this.mpt.del(s.key, s.path);
    this.remember(s.k, null);
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
  /** The plain key, hex: what `values` is keyed by. */
  k: string;
  key: Uint8Array;
  path: Uint8Array;
}

const MAX_CACHED_VALUES = 100_000;

/**
 * Secure keys (keccak256 of the key, and its nibbles) by key, and accounts' by address: pure functions of the key,
 * shared by every trie (one is opened per block) and computed once while they are among the last KEYS_KEPT.
 */
const KEYS_KEPT = 65_536;
const secureKeyOfHex = boundedMemo(KEYS_KEPT, (k: string): SecureKey => {
  const hashed = keccak256(fromHex(k));
  return { k, key: hashed, path: nibblesOf(hashed) };
});
const secureKey = (key: Uint8Array): SecureKey => secureKeyOfHex(hexOf(key));

/** An account's secure key by its address, without converting the address to bytes and back on every access. */
const accountSecureKey = boundedMemo(KEYS_KEPT, (addr: Address): SecureKey => secureKey(addressKey(addr)));

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
