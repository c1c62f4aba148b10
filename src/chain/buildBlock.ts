import { applyTx } from './applyTx';
import type { ExecState } from '../protocol/execState';
import { finishBlock } from './finishBlock';
import type { ChainEvent } from '../protocol/events';
import type { Candidates } from '../protocol/candidates';
import type { Network } from '../protocol/network';
import type { Address, SignedTx, TxResult } from '../protocol/types';

export interface BuildResult {
  txs: SignedTx[];
  results: TxResult[];
  /** Transactions that can never be included: the mempool drops them with this reason. */
  dropped: { id: SignedTx['id']; reason: string }[];
  /** End-of-block events (machines ticked at this height): the block's `events`, omitted when empty. */
  events: ChainEvent[];
}

/**
 * Fills a block from the candidates in the order they come (the mempool's: by nonce and
 * timestamp across senders, each sender's nonce order kept), executing as it goes. A
 * sender whose next transaction cannot run now is skipped for this block; a gap makes the
 * rest of that sender wait. Pure: no clock, no I/O but state reads.
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
    /** Called every few transactions so a runtime can let other work in; never changes the result. */
    pause?: () => Promise<void>;
    /** Called once the transactions are in, before the end-of-block work: lets a runtime time the two phases (never changes the result). */
    txsDone?: () => void;
  },
): Promise<BuildResult> {
  const out: BuildResult = { txs: [], results: [], dropped: [], events: [] };
  let burned = 0n;
  while (out.txs.length < opts.maxTxs) {
    const { done, value: next } = candidates.next();
    if (done) break;
    if (opts.pause && (out.txs.length + out.dropped.length) % 32 === 31) await opts.pause();
    const v = await applyTx(state, next.tx, opts);
    if (v.kind === 'applied') {
      out.txs.push(next.tx);
      out.results.push(v.result);
      burned += v.burned;
      next.advance();
    } else if (v.permanent) {
      out.dropped.push({ id: next.tx.id, reason: v.reason });
      next.advance(); // a used nonce does not block the sender's later ones
    }
    // a temporary skip or a gap leaves the sender out of this block
  }
  opts.txsDone?.();
  out.events = await finishBlock(state, { height: opts.height, producer: opts.producer, burned });
  return out;
}
