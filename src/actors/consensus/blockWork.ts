/**
 * Block work goes before transaction admission. On a 2-core validator the main thread and the
 * verify workers are shared: measured (bench/attack.ts deploys), a block built while a burst of
 * 40 submissions was being admitted (decoding, key hashes, worker round trips, mempool
 * inserts, all run in the block's yields) took ~2× the others and missed its execution
 * budget. Admission therefore waits for the block being built or imported to end. It never
 * waits longer than that one block: a waiter is released when the current block ends, even if
 * another starts at once (back-to-back imports cannot starve submissions). Reads are not
 * gated: they are cheap, and GET /status must answer during a block.
 */
export class BlockWorkGate {
  private active = 0;
  private waiters: (() => void)[] = [];

  /** Runs `work` as block work: admissions that arrive meanwhile wait for it. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await work();
    } finally {
      if (--this.active === 0) for (const release of this.waiters.splice(0)) release();
    }
  }

  /** Resolves at once when no block work runs, else when the current block work ends. */
  turn(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
}
