import type { Block } from '../protocol/types';
import type { ChainStore } from '../storage/chainStore';

/** Encoded size of each cached block (for the cache's byte budget). */
const sizes = new WeakMap<Block, number>();

/**
 * Recently decoded blocks by height, newest last, within a byte budget: a full block is up
 * to a few MB of JSON to parse, and feeds and receipts read the same blocks many times.
 * Cached blocks are shared: callers must not mutate them.
 */
export class BlockCache {
  private readonly decoded = new Map<number, Block>();
  private blockBytes = 0;
  private readonly loading = new Map<number, Promise<Block | undefined>>();
  static readonly BUDGET_BYTES = 32 * 1024 * 1024;

  constructor(private readonly store: ChainStore) {}

  /** A block and its encoded size. */
  async withSize(height: number): Promise<{ block: Block; size: number } | undefined> {
    const block = await this.get(height);
    return block ? { block, size: sizes.get(block)! } : undefined;
  }

  /**
   * A committed block, decoded once for many reads (GET /tx/:id of its transactions, feeds).
   * A cached block is used only while the store's summary at its height still names its
   * hash, so a block replaced at the same height is never served from the cache.
   */
  async get(height: number): Promise<Block | undefined> {
    const cached = this.decoded.get(height);
    if (cached) {
      const s = await this.store.summary(height);
      if (s?.hash === cached.header.hash) {
        this.decoded.delete(height); // most recently used last
        this.decoded.set(height, cached);
        return cached;
      }
      this.forget(height);
    }
    // Concurrent misses for one height share one read and parse: a batch of receipt lookups
    // in the same block would otherwise parse it once per lookup (measured: 200 parses of a
    // 500-transaction block for one JSON-RPC batch).
    let loading = this.loading.get(height);
    if (!loading) {
      loading = this.load(height).finally(() => this.loading.delete(height));
      this.loading.set(height, loading);
    }
    return loading;
  }

  /**
   * A block just committed, as the committer holds it: the sentinel and the API read each new
   * block at once, and parsing a full block again (up to ~4 MB of JSON) took main-thread time
   * from admission and the next block. `size` is its encoded length (the summary's size).
   */
  remember(block: Block, size: number): void {
    this.keep(block.header.height, block, size);
  }

  private async load(height: number): Promise<Block | undefined> {
    const [b, summary] = await Promise.all([this.store.block(height), this.store.summary(height)]);
    if (!b || !summary) return undefined;
    this.keep(height, b, summary.size);
    return b;
  }

  /** Caches a block as the newest, then evicts the oldest until within the budget (never the one kept). */
  private keep(height: number, b: Block, size: number): void {
    this.forget(height);
    this.decoded.set(height, b);
    this.blockBytes += size;
    sizes.set(b, size);
    for (const h of this.decoded.keys()) {
      if (this.blockBytes <= BlockCache.BUDGET_BYTES || h === height) break;
      this.forget(h);
    }
  }

  private forget(height: number): void {
    const b = this.decoded.get(height);
    if (!b) return;
    this.decoded.delete(height);
    this.blockBytes -= sizes.get(b) ?? 0;
  }
}
