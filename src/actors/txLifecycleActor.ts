import type { Logger } from 'pino';
import {
  foldTxLifecycle,
  txLifecycleMachine,
  type TxLifecycleEvent,
  type TxLifecycleSnapshot,
} from '../machines/txLifecycle';
import type { Hex } from '../primitives/hex';
import type { ChainStore } from '../storage/chainStore';
import { behaviorOf } from './actorRef';
import { LifecycleTable } from './lifecycleTable';
import type { LifecycleStats, TxLifecycleMsg, TxLifecycleReplies } from './protocol';

/**
 * A transaction's lifecycle table: its start is `inMempool` (a refused submission is answered at once and never
 * tracked).
 */
export type TxLifecycleTable = LifecycleTable<typeof txLifecycleMachine, Hex>;

/** Drops stay readable (nothing else remembers them); finalized transactions are answered from the store. */
const DROPS_KEPT = 10_000;

export function txLifecycleTable(): TxLifecycleTable {
  return new LifecycleTable({
    machine: txLifecycleMachine,
    initial: foldTxLifecycle([{ type: 'ADMITTED' }]),
    keep: (s) => s.value === 'dropped',
    retain: DROPS_KEPT,
  });
}

export interface TxLifecycleDeps {
  /** Owned by the node, so a restart of the actor loses nothing. */
  table: TxLifecycleTable;
  store: Pick<ChainStore, 'txLifecycleEvents' | 'txLocation' | 'summary'>;
  finalizedHeight: () => number;
  log: Logger;
}

/**
 * The transaction lifecycle's actor (machines/txLifecycle.ts): the mempool tells it what it
 * admitted and dropped, the consensus actor what each block included, undid and made final;
 * `/tx/:id` and the followers read the state from it. What it no longer holds (a restart, a
 * transaction final long ago) it reads back once from what the store recorded — the inclusions
 * and undos of the transaction, written with each block.
 */
export function txLifecycleBehavior(d: TxLifecycleDeps) {
  const { table } = d;

  /**
   * From the store: the recorded inclusions and undos (blocks written without them, genesis, count as one inclusion),
   * then finality.
   */
  async function recover(id: Hex): Promise<TxLifecycleSnapshot | undefined> {
    let events: TxLifecycleEvent[] = await d.store.txLifecycleEvents(id);
    if (events.length === 0) {
      const at = await d.store.txLocation(id);
      const block = at && (await d.store.summary(at.height));
      if (!block) return undefined;
      events = [{ type: 'INCLUDED', height: block.height, blockHash: block.hash }];
    }
    const s = foldTxLifecycle([
      { type: 'ADMITTED' },
      ...events,
      { type: 'FINALIZED', finalizedHeight: d.finalizedHeight() },
    ]);
    table.set(id, s);
    return s;
  }

  return behaviorOf<TxLifecycleMsg, TxLifecycleReplies>({
    admitted({ ids }) {
      table.apply(ids, { type: 'ADMITTED' });
    },
    dropped({ drops }) {
      for (const { id, reason, code } of drops) table.apply([id], { type: 'DROPPED', reason, code });
    },
    included({ height, hash, ids }) {
      // A drop was this node's mempool's (evicted, expired): a peer's block that includes the transaction anyway says
      // what became of it. Left `dropped`, GET /tx/:id answered `dropped` for a transaction in a block (a 300 tx/s
      // soak: 119 of them).
      table.forget(ids.filter((id) => table.get(id)?.value === 'dropped'));
      table.apply(ids, { type: 'INCLUDED', height, blockHash: hash });
    },
    async undone({ ids }) {
      // An undo only moves an inclusion this table knows: read the others back first.
      for (const id of ids) if (!table.has(id)) await recover(id);
      table.apply(ids, { type: 'UNDONE' });
    },
    finalized({ height }) {
      const moved = table.broadcast({ type: 'FINALIZED', finalizedHeight: height });
      if (moved) d.log.debug({ finalizedHeight: height, txs: moved }, 'transactions final');
    },
    get: async ({ id }) => table.get(id) ?? (await recover(id)),
    stats: (): LifecycleStats => ({ machine: 'txLifecycle', open: table.counts(), finished: table.size.finished }),
  });
}
