import { constants as fsc } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { CairnError } from '../errors/CairnError';
import { KvOpBatch, opsOf, type KvBatch, type KvRange, type KvStore } from '../state/kv';

/** The part of the rocksdb-native API used here (the package ships no type declarations). */
interface RocksIteratorRange {
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}
interface RocksWriteBatch {
  tryPut(key: Uint8Array, value: Uint8Array): void;
  tryDelete(key: Uint8Array): void;
  flush(): Promise<void>;
  destroy(): void;
}
interface RocksReadBatch {
  get(key: Uint8Array): Promise<Buffer | null>;
  tryFlush(): void;
}
interface RocksDB {
  ready(): Promise<void>;
  get(key: Uint8Array): Promise<Buffer | null>;
  read(opts?: { capacity?: number; autoDestroy?: boolean }): RocksReadBatch;
  write(opts?: { capacity?: number }): RocksWriteBatch;
  iterator(range: RocksIteratorRange): AsyncIterable<{ key: Buffer; value: Buffer }>;
  flush(): Promise<void>;
  compactRange(): Promise<void>;
  close(): Promise<void>;
}
type RocksDBClass = new (path: string, opts: { readOnly: boolean; createIfMissing: boolean }) => RocksDB;
const RocksDBCtor = createRequire(import.meta.url)('rocksdb-native') as RocksDBClass;

/** Read batches a large multi-get is split into (libuv's thread pool has 4 threads), and the least keys per batch. */
const READ_LANES = 4;
const READ_LANE_MIN = 128;

/** A Buffer returned by the binding, seen as a plain Uint8Array (no copy). */
const view = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
/** A key as the binding takes it: a Buffer over the same bytes (no copy). */
const asBuffer = (k: Uint8Array): Buffer => Buffer.from(k.buffer, k.byteOffset, k.byteLength);

/**
 * The KV port over RocksDB. This folder is the only importer of the binding.
 * One `write(batch)` is one RocksDB WriteBatch, which RocksDB applies atomically
 * (the WAL records it as one unit), so a crash leaves all of it or none.
 */
export class RocksKv implements KvStore {
  private constructor(
    private readonly db: RocksDB,
    readonly dir: string,
    readonly readOnly: boolean,
  ) {}

  static async open(dir: string, opts: { readOnly?: boolean } = {}): Promise<RocksKv> {
    const readOnly = opts.readOnly ?? false;
    await checkDirectory(dir, readOnly);
    const db = new RocksDBCtor(dir, { readOnly, createIfMissing: !readOnly });
    try {
      await db.ready();
    } catch (e) {
      throw openError(dir, e);
    }
    return new RocksKv(db, dir, readOnly);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const v = await this.db.get(asBuffer(key));
    return v === null ? undefined : view(v);
  }

  /**
   * Many keys in read batches: ~6–13 µs per key instead of 30–80 µs for separate gets (trie prefetch). A large set is
   * split into up to READ_LANES batches, each a MultiGet on its own thread-pool thread, so that cold reads (a large
   * state, mostly outside the block cache) use every core.
   */
  async getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    if (keys.length === 0) return [];
    const lanes = Math.min(READ_LANES, Math.ceil(keys.length / READ_LANE_MIN));
    const per = Math.ceil(keys.length / lanes);
    const ps: Promise<Buffer | null>[] = [];
    for (let from = 0; from < keys.length; from += per) {
      const to = Math.min(keys.length, from + per);
      const r = this.db.read({ capacity: to - from, autoDestroy: true });
      for (let i = from; i < to; i++) ps.push(r.get(asBuffer(keys[i])));
      r.tryFlush();
    }
    return (await Promise.all(ps)).map((v) => (v === null ? undefined : view(v)));
  }

  batch(): KvBatch {
    return new KvOpBatch();
  }

  async write(b: KvBatch): Promise<void> {
    const ops = opsOf(b);
    if (ops.length === 0) return;
    const w = this.db.write({ capacity: ops.length });
    for (const op of ops) {
      if (op.type === 'put') w.tryPut(op.key, op.value);
      else w.tryDelete(op.key);
    }
    try {
      await w.flush();
    } catch (e) {
      throw writeError(this.dir, e);
    } finally {
      w.destroy();
    }
  }

  async *iterate(opts: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    // Nothing sorts below the empty key; the binding would read an empty bound as "none".
    if ((opts.limit !== undefined && opts.limit <= 0) || opts.lt?.length === 0) return;
    const range: RocksIteratorRange = { reverse: opts.reverse ?? false };
    if (opts.gte && opts.gte.length > 0) range.gte = opts.gte;
    if (opts.lt) range.lt = opts.lt;
    if (opts.limit !== undefined) range.limit = opts.limit;
    for await (const { key, value } of this.db.iterator(range)) yield [view(key), view(value)];
  }

  /** Writes the memtable out and compacts every level: what the data takes once RocksDB has settled it. */
  async compact(): Promise<void> {
    await this.db.flush();
    await this.db.compactRange();
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

/** Opens (creating the directory if needed) the store at `dir`. */
export async function openStore(dir: string, opts: { readOnly?: boolean } = {}): Promise<RocksKv> {
  if (!opts.readOnly) {
    try {
      await mkdir(dir, { recursive: true });
    } catch (e) {
      throw await dirError(dir, e);
    }
  }
  return RocksKv.open(dir, opts);
}

/**
 * Checked before RocksDB sees the path: the binding reports some failures poorly (it
 * spins forever on paths it cannot create in some virtual filesystems).
 */
async function checkDirectory(dir: string, readOnly: boolean): Promise<void> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) throw new CairnError('STORAGE_OPEN', `data directory ${dir} is not a directory`, { dir });
    await access(dir, readOnly ? fsc.R_OK : fsc.R_OK | fsc.W_OK);
  } catch (e) {
    if (e instanceof CairnError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !readOnly) {
      // RocksDB creates the last path component itself; its parent must exist and be writable.
      return;
    }
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EROFS'
          ? 'is on a read-only file system'
          : code === 'EACCES' || code === 'EPERM'
            ? `is not ${readOnly ? 'readable' : 'writable'}`
            : messageOf(e);
    throw new CairnError('STORAGE_OPEN', `data directory ${dir} ${why}`, { dir, code }, { cause: e });
  }
}

/**
 * A data directory that cannot be created or written, as a one-line STORAGE_OPEN error
 * naming it. A recursive mkdir reports ENOENT when a parent cannot be written (e.g. on a
 * read-only file system): the nearest existing parent says why.
 */
export async function dirError(dir: string, e: unknown): Promise<CairnError> {
  let code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    for (let p = dirname(resolve(dir)); ; p = dirname(p)) {
      try {
        await stat(p);
      } catch {
        if (p === dirname(p)) break;
        continue;
      }
      try {
        await access(p, fsc.W_OK);
      } catch (e2) {
        code = (e2 as NodeJS.ErrnoException).code ?? code;
      }
      break;
    }
  }
  const why =
    code === 'EROFS'
      ? 'is on a read-only file system'
      : code === 'EACCES' || code === 'EPERM'
        ? 'is not writable'
        : code === 'ENOSPC'
          ? 'cannot be created: the disk is full'
          : code === 'ENOTDIR'
            ? 'has a file where a directory is expected'
            : `cannot be created: ${messageOf(e)}`;
  return new CairnError('STORAGE_OPEN', `data directory ${dir} ${why}`, { dir, code }, { cause: e });
}

function openError(dir: string, e: unknown): CairnError {
  const msg = messageOf(e);
  if (/\bLOCK\b/.test(msg) || /lock hold/i.test(msg)) {
    return new CairnError(
      'STORAGE_OPEN',
      `data directory ${dir} is in use by another cairn process`,
      { dir },
      { cause: e },
    );
  }
  if (/CURRENT: No such file/.test(msg)) {
    return new CairnError('STORAGE_OPEN', `data directory ${dir} holds no database`, { dir }, { cause: e });
  }
  if (/Read-only file system/i.test(msg)) {
    return new CairnError('STORAGE_OPEN', `data directory ${dir} is on a read-only file system`, { dir }, { cause: e });
  }
  if (/Permission denied|Operation not permitted/i.test(msg)) {
    return new CairnError('STORAGE_OPEN', `data directory ${dir} is not writable`, { dir }, { cause: e });
  }
  return new CairnError('STORAGE_OPEN', `cannot open data directory ${dir}: ${msg}`, { dir }, { cause: e });
}

/**
 * A failed write batch (nothing of it was applied: RocksDB applies a batch whole or not at
 * all) as a CairnError 'STORAGE_WRITE' naming the directory and the reason. The binding
 * reports "Batch was not applied" with the file-system error as its cause.
 */
export function writeError(dir: string, e: unknown): CairnError {
  const cause = (e as { cause?: unknown } | null)?.cause ?? e;
  const code = (cause as NodeJS.ErrnoException | null)?.code;
  return new CairnError(
    'STORAGE_WRITE',
    `cannot write to data directory ${dir}: ${writeFailure(e)}`,
    { dir, code, reason: messageOf(cause) },
    { cause: e },
  );
}

/** Why a write failed, in an operator's words (the disk is full, read-only…); the system's message otherwise. */
export function writeFailure(e: unknown): string {
  const cause = (e as { cause?: unknown } | null)?.cause ?? e;
  const code = (cause as NodeJS.ErrnoException | null)?.code;
  const msg = messageOf(cause);
  return code === 'ENOSPC' || /no space left/i.test(msg)
    ? 'the disk is full (no space left on device)'
    : code === 'EDQUOT' || /quota exceeded/i.test(msg)
      ? 'the disk quota is exceeded'
      : code === 'EROFS' || /read-only file system/i.test(msg)
        ? 'the file system is read-only'
        : code === 'EACCES' || code === 'EPERM' || /permission denied|operation not permitted/i.test(msg)
          ? 'permission denied'
          : msg;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
