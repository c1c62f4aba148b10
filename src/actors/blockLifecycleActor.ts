import type { Logger } from 'pino';
import {
  blockLifecycleMachine,
  blockState,
  receivedBlock,
  storedBlock,
  type BlockLifecycleSnapshot,
  type BlockLifecycleView,
} from '../machines/blockLifecycle';
import type { Hex } from '../primitives/hex';
import type { ChainStore } from '../storage/chainStore';
import { behaviorOf } from './actorRef';
import { LifecycleTable } from './lifecycleTable';
import type { BlockLifecycleMsg, BlockLifecycleReplies, LifecycleStats } from './protocol';

/** Rejected, orphaned and undone blocks stay readable this long (the store keeps only the chain). */
const FATES_KEPT = 1_024;

export type BlockLifecycleTable = LifecycleTable<typeof blockLifecycleMachine, Hex>;

export function blockLifecycleTable(): BlockLifecycleTable {
  return new LifecycleTable({
    machine: blockLifecycleMachine,
    initial: receivedBlock(0), // unused: each block starts at its own height (step)
    keep: (s) => s.value !== 'finalized',
    retain: FATES_KEPT,
  });
}

export interface BlockLifecycleDeps {
  /** Owned by the node, so a restart of the actor loses nothing. */
  table: BlockLifecycleTable;
  store: Pick<ChainStore, 'heightOfHash'>;
  finalizedHeight: () => number;
  log: Logger;
}

const viewOf = (s: BlockLifecycleSnapshot): BlockLifecycleView => ({
  state: blockState(s),
  height: s.context.height,
  ...(s.context.reason ? { reason: s.context.reason } : {}),
});

/**
 * The block lifecycle's actor (machines/blockLifecycle.ts): the importer reports a peer's
 * block verified, executed or rejected, the producer its own built, the consensus actor each
 * one orphaned, committed, undone and made final. `/blocks/:ref` reads a block's state here,
 * and a block the chain does not hold (rejected, undone, orphaned) is still explained. The
 * stored chain is the persistent part: a block the table no longer holds is read back from it
 * as committed or finalized.
 */
export function blockLifecycleBehavior(d: BlockLifecycleDeps) {
  const { table } = d;
  return behaviorOf<BlockLifecycleMsg, BlockLifecycleReplies>({
    step({ hash, height, event }) {
      // A block first met at commit or undo (a tool that built it outside the producer, or a restart) was committed.
      if (!table.has(hash))
        table.set(
          hash,
          event.type === 'COMMITTED' || event.type === 'UNDONE' ? storedBlock(height, -1) : receivedBlock(height),
        );
      const from = table.get(hash)!;
      table.apply([hash], event);
      const to = table.get(hash);
      if (to && to !== from)
        d.log.debug(
          { hash, height, from: from.value, to: to.value, ...(to.context.reason ? { reason: to.context.reason } : {}) },
          'block lifecycle',
        );
    },
    finalized({ height }) {
      table.broadcast({ type: 'FINALIZED', finalizedHeight: height });
    },
    async get({ hash }) {
      const held = table.get(hash);
      if (held) return viewOf(held);
      const height = await d.store.heightOfHash(hash);
      if (height === undefined) return undefined;
      const s = storedBlock(height, d.finalizedHeight());
      table.set(hash, s);
      return viewOf(s);
    },
    stats: (): LifecycleStats => ({ machine: 'blockLifecycle', open: table.counts(), finished: table.size.finished }),
  });
}
