import { applyTx } from './applyTx';
import { TX } from '../protocol/txRefusals';
import { blockGasLimit, blockGasOf } from './blockGas';
import type { ExecState } from '../protocol/execState';
import { finishBlock } from './finishBlock';
import type { ChainEvent } from '../protocol/events';
import type { Candidates } from '../protocol/candidates';
import type { Network } from '../protocol/network';
import type { Address, SignedTx, TxResult } from '../protocol/types';

export interface BuildResult {
  txs: SignedTx[];
  results: TxResult[];
  /**
   * Transactions that can never be included: the mempool drops them with this reason.
   * `internal`: the error (stack) a transaction made execution throw — a bug it triggers, not
   * a transaction outcome; the operator needs it in the log.
   */
  dropped: { id: SignedTx['id']; reason: string; code: string; internal?: string }[];
  /** End-of-block events (machines ticked at this height): the block's `events`, omitted when empty. */
  events: ChainEvent[];
}

/** The drop reason of a transaction whose execution threw (BuildResult.dropped). */
export const INTERNAL_ERROR = TX.TX_INTERNAL_ERROR().reason;

/**
 * Fills a block from the candidates in the order they come (the mempool's: by nonce and
 * timestamp across senders, each sender's nonce order kept), executing as it goes. A
 * sender whose next transaction cannot run now is skipped for this block; a gap makes the
 * rest of that sender wait. A VM transaction whose gas limit no longer fits in the block's
 * budget (BLOCK_GAS_LIMIT, chain/blockGas.ts) waits for a later block the same way: its
 * sender is left out of this one, nothing is dropped. Pure: no clock, no I/O but state reads.
 */
export async function buildBlock(
  state: ExecState,
  candidates: Candidates,
  opts: {
    height: number;
    timestamp: number;
    producer: Address;
    network: Network;
    maxTxs: number;
    /**
     * Every candidate's nested signatures passed the verify pool (BlockContext): the node's mempool, filled by
     * admission.
     */
    nestedVerified?: boolean;
    /** Every candidate passed this node's admission, stateless checks included (BlockContext). */
    admitted?: boolean;
    /** Called every few transactions so a runtime can let other work in; never changes the result. */
    pause?: () => Promise<void>;
    /**
     * Called once the transactions are in, before the end-of-block work: lets a runtime time the two phases (never
     * changes the result).
     */
    txsDone?: () => void;
    /** The block will not be its producer's finality vote (BlockHeader.abstain): its schedule step counts none. */
    abstain?: boolean;
  },
): Promise<BuildResult> {
  const out: BuildResult = { txs: [], results: [], dropped: [], events: [] };
  let burned = 0n;
  // The budget in force is the parent's: read before any transaction of this block runs.
  let gasLeft = await blockGasLimit(state);
  while (out.txs.length < opts.maxTxs) {
    const { done, value: next } = candidates.next();
    if (done) break;
    if (opts.pause && (out.txs.length + out.dropped.length) % 32 === 31) await opts.pause();
    const gas = blockGasOf(next.tx);
    if (gas > gasLeft) continue; // does not fit: it and its sender's later ones wait for the next block
    // A transaction that makes execution throw (not a transaction outcome: a bug it triggers)
    // is left out of the block with its effects undone, and dropped. Otherwise one stranger's
    // transaction would fail every slot of every producer while it sat in the mempool.
    // Leaving a transaction out always makes a valid block.
    state.checkpoint();
    let v: Awaited<ReturnType<typeof applyTx>>;
    try {
      v = await applyTx(state, next.tx, opts);
    } catch (e) {
      await state.revert();
      out.dropped.push({
        id: next.tx.id,
        reason: INTERNAL_ERROR,
        code: 'TX_INTERNAL_ERROR',
        internal: e instanceof Error ? (e.stack ?? e.message) : String(e),
      });
      next.advance();
      continue;
    }
    await state.commit();
    if (v.kind === 'applied') {
      gasLeft -= gas;
      out.txs.push(next.tx);
      out.results.push(v.result);
      burned += v.burned;
      next.advance();
    } else if (v.permanent) {
      out.dropped.push({ id: next.tx.id, reason: v.refusal.reason, code: v.refusal.code });
      next.advance(); // a used nonce does not block the sender's later ones
    }
    // a temporary skip or a gap leaves the sender out of this block
  }
  opts.txsDone?.();
  out.events = await finishBlock(state, {
    height: opts.height,
    producer: opts.producer,
    burned,
    abstain: opts.abstain,
  });
  return out;
}
