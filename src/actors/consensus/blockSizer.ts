import { MAX_TXS_PER_BLOCK } from '../../protocol/params';

/**
 * How many transactions this validator puts in a block: as many as it can execute within a share of the slot, from
 * what its last blocks cost it. A block that takes longer to build than its slot reaches the next producer late; the
 * next block is then built on its parent and the two race: under load on a busy machine, blocks of 500 transactions
 * took 1–2.6 s to execute and the soak's network reorganized 9 blocks deep. Producer policy, not a rule of the chain:
 * the number is the producer's choice, and no peer checks it (nor could: it depends on this machine's speed).
 * Deterministic runs (the simulator) use no sizer and take MAX_TXS_PER_BLOCK.
 */
export class BlockSizer {
  /** ms of execution per transaction, smoothed over the last blocks; undefined before a block of MIN_SAMPLE. */
  private msPerTx: number | undefined;

  constructor(
    /** The slot's share the execution of a block may take. */
    private readonly budgetMs: number,
    private readonly floor = MIN_TXS,
  ) {}

  maxTxs(): number {
    if (this.msPerTx === undefined) return MAX_TXS_PER_BLOCK;
    return Math.max(this.floor, Math.min(MAX_TXS_PER_BLOCK, Math.floor(this.budgetMs / this.msPerTx)));
  }

  /** A block of `txs` took `ms` to execute (its transactions, not the end-of-block work). */
  observe(txs: number, ms: number): void {
    if (txs < MIN_SAMPLE) return;
    const sample = ms / txs;
    this.msPerTx = this.msPerTx === undefined ? sample : this.msPerTx + SMOOTHING * (sample - this.msPerTx);
  }
}

/** A block this size or larger says what a transaction costs; a smaller one is mostly fixed costs. */
const MIN_SAMPLE = 20;
/** A block always takes this many when it has them: a slow sample never starves the chain. */
const MIN_TXS = 50;
/** Each block moves the estimate a third of the way: a burst of slow blocks shrinks the next ones within three. */
const SMOOTHING = 1 / 3;
/** The share of a slot a block's execution may take: the rest is for sending it and for its import elsewhere. */
export const BUILD_SHARE = 0.4;
