/**
 * The key-value port the pure layers depend on. Keys order by unsigned bytes.
 * `storage/rocks.ts` implements it over RocksDB; `MemoryKv` is the in-memory twin used
 * by tests and pure replays. A write batch is applied atomically: all of it or none.
 */
export interface KvReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
}

/** A store that can read many keys in one call (RocksDB: one read batch). Optional. */
export interface MultiGetKv extends KvReader {
  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
}

export const hasGetMany = (kv: KvReader): kv is MultiGetKv => typeof (kv as Partial<MultiGetKv>).getMany === 'function';

/** Reads many keys: one multi-get where the store has it, else concurrent single reads. */
export function getMany(kv: KvReader, keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
  return hasGetMany(kv) ? kv.getMany(keys) : Promise.all(keys.map((k) => kv.get(k)));
}

export interface KvBatch {
  put(key: Uint8Array, value: Uint8Array): void;
  del(key: Uint8Array): void;
  readonly size: number;
}

export interface KvRange {
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

export interface KvStore extends KvReader {
  batch(): KvBatch;
  write(b: KvBatch): Promise<void>;
  iterate(opts: KvRange): AsyncIterable<[Uint8Array, Uint8Array]>;
  close(): Promise<void>;
}

export type KvOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** A batch is just an ordered list of operations; the store applies it in one atomic write. */
export class KvOpBatch implements KvBatch {
  readonly ops: KvOp[] = [];

  put(key: Uint8Array, value: Uint8Array): void {
    this.ops.push({ type: 'put', key, value });
  }

  del(key: Uint8Array): void {
    this.ops.push({ type: 'del', key });
  }

  get size(): number {
    return this.ops.length;
  }
}

/** Narrows a batch to the one kind every store here creates; a foreign batch is a programming error. */
export function opsOf(b: KvBatch): readonly KvOp[] {
  if (!(b instanceof KvOpBatch)) throw new TypeError('batch was not created by this store');
  return b.ops;
}

const keyOf = (k: Uint8Array): string => Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('hex');

/**
 * In-memory store. Keys are kept as lower-case hex, whose string order equals unsigned
 * byte order, so sorting the hex strings sorts the keys.
 */
export class MemoryKv implements KvStore {
  private readonly map = new Map<string, Uint8Array>();
  private sorted: string[] | null = null; // rebuilt lazily after writes
  private closed = false;

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.assertOpen();
    return this.map.get(keyOf(key));
  }

  batch(): KvBatch {
    return new KvOpBatch();
  }

  async write(b: KvBatch): Promise<void> {
    this.assertOpen();
    for (const op of opsOf(b)) {
      // Copy so a caller reusing its buffer cannot change stored bytes afterwards.
      if (op.type === 'put') this.map.set(keyOf(op.key), Uint8Array.from(op.value));
      else this.map.delete(keyOf(op.key));
    }
    if (b.size > 0) this.sorted = null;
  }

  async *iterate(opts: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    this.assertOpen();
    const keys = this.sortedKeys();
    let lo = opts.gte ? lowerBound(keys, keyOf(opts.gte)) : 0;
    let hi = opts.lt ? lowerBound(keys, keyOf(opts.lt)) : keys.length;
    const limit = opts.limit ?? Infinity;
    // Snapshot the range first: the view stays consistent even if writes happen mid-iteration.
    const out: [Uint8Array, Uint8Array][] = [];
    while (lo < hi && out.length < limit) {
      const k = opts.reverse ? keys[--hi] : keys[lo++];
      out.push([Uint8Array.from(Buffer.from(k, 'hex')), this.map.get(k) as Uint8Array]);
    }
    yield* out;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Number of keys stored (tests and diagnostics). */
  get count(): number {
    return this.map.size;
  }

  private sortedKeys(): string[] {
    if (this.sorted === null) this.sorted = [...this.map.keys()].sort();
    return this.sorted;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('MemoryKv is closed');
  }
}

function lowerBound(keys: readonly string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
