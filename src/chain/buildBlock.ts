import { SenderHeap } from '../mempool/senderHeap';
import { applyTx } from './applyTx';
import type { ExecState } from '../protocol/execState';
import { finishBlock } from './finishBlock';
import type { ChainEvent } from '../protocol/events';
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
 * Fills a block from pending transactions (each sender's list sorted by nonce), simulating
 * execution as it goes: ordered by (nonce, timestamp) across senders while each sender's
 * nonce order is kept. A sender whose next transaction cannot run now is skipped for this
 * block; a gap makes the rest of that sender wait.
 */
export async function buildBlock(
  state: ExecState,
  pending: Iterable<SignedTx[]>,
  opts: {
    height: number;
    timestamp: number;
    producer: Address;
    maxTxs: number;
    /** Called every few transactions so a runtime can let other work in; never changes the result. */
    pause?: () => Promise<void>;
  },
): Promise<BuildResult> {
  const heap = new SenderHeap();
  for (const q of pending) heap.push(q);
  const out: BuildResult = { txs: [], results: [], dropped: [], events: [] };
  let burned = 0n;
  while (out.txs.length < opts.maxTxs) {
    const next = heap.pop();
    if (!next) break;
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
  out.events = await finishBlock(state, { height: opts.height, producer: opts.producer, burned });
  return out;
}
