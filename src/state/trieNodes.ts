import type { BatchDBOp, DB } from '@ethereumjs/util';
import { CairnError } from '../errors/CairnError';
import { STATE_CACHE_MB_DEFAULT } from '../protocol/params';
import { type KvReader, hasGetMany } from './kv';

/**
 * Where trie nodes live and how the trie reaches them. Nodes are content-addressed
 * (key = keccak of the node), so a node never changes once written: caches can be shared
 * by every trie over the same store and never go stale, and nothing is ever deleted
 * (every old root stays readable — the archive).
 *
 * Read order: this trie's pending nodes → nodes flushed into a batch that may not be
 * written yet → the shared cache → the store under 'n/' + hash.
 */
export const NODE_PREFIX = new TextEncoder().encode('n/');

export const nodeKey = (hashHex: string): Uint8Array => Buffer.concat([NODE_PREFIX, Buffer.from(hashHex, 'hex')]);

/** What a cached node costs besides its bytes: its view, its hex key and its map entry (measured in heap snapshots). */
const ENTRY_BYTES = 200;
/** Nodes are copied into slabs of their generation: one allocation per MiB, not per node. */
const SLAB_BYTES = 1 << 20;

/** One generation of the cache: its nodes, copied into its slabs, and what they cost. */
class Generation {
  readonly nodes = new Map<string, Uint8Array>();
  bytes = 0;
  private slab = new Uint8Array(0);
  private at = 0;

  put(k: string, v: Uint8Array): void {
    if (this.at + v.length > this.slab.length) {
      this.slab = new Uint8Array(Math.max(SLAB_BYTES, v.length));
      this.at = 0;
    }
    const copy = this.slab.subarray(this.at, this.at + v.length);
    copy.set(v);
    this.at += v.length;
    this.nodes.set(k, copy);
    this.bytes += v.length + ENTRY_BYTES;
  }
}

/**
 * Bounded cache in two generations of `budget / 2` bytes each: O(1) per access, keeps what was
 * used in the last two windows. Bounded by bytes, not nodes: two generations of 262,144 nodes
 * took a validator's RSS from ~680 to ~1,200 MiB over the two hours they took to fill (the
 * soak), each node its own Uint8Array, ArrayBuffer and malloc (~550 B for a 250 B node).
 */
class NodeCache {
  private young = new Generation();
  private old = new Generation();

  constructor(private readonly generationBytes: number) {}

  get(k: string): Uint8Array | undefined {
    const y = this.young.nodes.get(k);
    if (y !== undefined) return y;
    const o = this.old.nodes.get(k);
    if (o !== undefined) this.set(k, o);
    return o;
  }

  set(k: string, v: Uint8Array): void {
    if (this.young.nodes.has(k)) return;
    this.young.put(k, v);
    if (this.young.bytes >= this.generationBytes) {
      this.old = this.young;
      this.young = new Generation();
    }
  }

  /** Nodes and bytes held. */
  size(): { nodes: number; bytes: number } {
    return {
      nodes: this.young.nodes.size + this.old.nodes.size,
      bytes: this.young.bytes + this.old.bytes,
    };
  }
}

/** State shared by every trie over one store. */
export class SharedNodes {
  readonly cache: NodeCache;
  /** Store reads in flight, by node hash. */
  readonly reading = new Map<string, Promise<Uint8Array>>();
  /** One map per flush whose batch may not be written yet, oldest first. */
  readonly unwritten: Map<string, Uint8Array>[] = [];

  constructor(budgetBytes = STATE_CACHE_MB_DEFAULT * 2 ** 20) {
    this.cache = new NodeCache(Math.max(1, Math.floor(budgetBytes / 2)));
  }

  lookup(k: string): Uint8Array | undefined {
    for (let i = this.unwritten.length - 1; i >= 0; i--) {
      const v = this.unwritten[i].get(k);
      if (v !== undefined) return v;
    }
    return this.cache.get(k);
  }

  /** The batch holding `gen` is written (or abandoned): its nodes now come from the store. */
  release(gen: Map<string, Uint8Array>): void {
    const i = this.unwritten.indexOf(gen);
    if (i >= 0) this.unwritten.splice(i, 1);
    for (const [k, v] of gen) this.cache.set(k, v);
  }
}

const sharedByStore = new WeakMap<KvReader, SharedNodes>();

export function sharedNodesOf(kv: KvReader): SharedNodes {
  let s = sharedByStore.get(kv);
  if (s === undefined) sharedByStore.set(kv, (s = new SharedNodes()));
  return s;
}

/** Sets the node cache's budget for the tries over `kv` (before any is opened: a node's start). */
export function sizeSharedNodes(kv: KvReader, budgetBytes: number): SharedNodes {
  const s = new SharedNodes(budgetBytes);
  sharedByStore.set(kv, s);
  return s;
}

/**
 * The node store in @ethereumjs/mpt's `DB` shape: `NodeSource` reads through it, and the
 * differential test runs @ethereumjs/mpt over it. It never writes to the store: puts
 * collect in `pending`. A missing node throws (the library would otherwise read it as
 * "absent").
 */
export class TrieNodeDb implements DB<string, string | Uint8Array> {
  constructor(
    private readonly kv: KvReader,
    private readonly shared: SharedNodes,
    public pending: Map<string, Uint8Array>,
  ) {}

  async get(key: string): Promise<Uint8Array> {
    const local = this.pending.get(key) ?? this.shared.lookup(key);
    if (local !== undefined) return local;
    // Concurrent walks (prefetch) share the upper nodes: read each from the store once.
    let p = this.shared.reading.get(key);
    if (p === undefined) {
      p = this.load(key).finally(() => this.shared.reading.delete(key));
      this.shared.reading.set(key, p);
    }
    return p;
  }

  private async load(key: string): Promise<Uint8Array> {
    const stored = await this.kv.get(nodeKey(key));
    if (stored === undefined) throw missingNode(key);
    this.shared.cache.set(key, stored);
    return stored;
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    if (typeof value === 'string') throw new TypeError('trie node values must be bytes');
    this.pending.set(key, value);
  }

  /** Archive: nodes are never deleted (the library only asks when pruning, which is off). */
  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value);
  }

  shallowCopy(): DB<string, string | Uint8Array> {
    return new TrieNodeDb(this.kv, this.shared, this.pending);
  }

  async open(): Promise<void> {}
}

/** Where stored nodes come from: this trie's store and the caches shared by every trie over it. */
export class NodeSource {
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
      if (v === undefined) throw missingNode(h);
      this.shared.cache.set(h, v);
      out[i] = v;
    }
    return out;
  }
}

const missingNode = (hashHex: string) =>
  new CairnError('STATE_MISSING_NODE', `state trie node 0x${hashHex} is missing from the store`, {
    node: `0x${hashHex}`,
  });
