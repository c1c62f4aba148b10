import type { Hex } from '../../primitives/hex';
import { opsOf, type KvBatch } from '../../state/kv';
import { isNodeKey, ReachableNodes, storedNodeId, unreachableNodes } from '../../state/trieGc';
import { snapshotHeights } from '../../storage/snapshots';
import type { WindowDeps } from './historyPruner';

/** State roots a node with a history window keeps readable: the last STATE_ROOTS_KEPT final blocks' and above. */
export const STATE_ROOTS_KEPT = 128;

interface Cycle {
  /** The lowest height whose state root is kept by this cycle (what readers are told from its start). */
  stateFrom: number;
  /** Nodes written by blocks committed since the mark began: never deleted by this cycle. */
  written: Set<string>;
  /** Chunks of unreachable node keys the sweep found, waiting for the consensus actor to delete them. */
  found: Uint8Array[][];
  swept: boolean;
  failed: boolean;
  /** `stateFrom` is in the store (written with the cycle's first deletions). */
  recorded: boolean;
  deleted: number;
  started: number;
  /** Resolves the sweep's wait when the queue has room again. */
  room?: () => void;
}

/** Chunks the sweep may queue ahead of the deleter. */
const QUEUED_CHUNKS = 8;

/**
 * Old state nodes, collected (--history N; an archive keeps every root). Every 4 × K final
 * blocks (K = min(STATE_ROOTS_KEPT, N)) a cycle marks what the roots of the last K final
 * blocks and every block above them reach, then sweeps the store's nodes in the background;
 * the consensus actor — the store's one writer — deletes what the sweep found between slots,
 * except nodes a block wrote since the mark began (`noteWritten`: a block may create again
 * what an old one had). A crash mid-cycle loses nothing: each deletion is of garbage, and a
 * new cycle starts over. State reads below `stateFrom` are refused from the cycle's start.
 */
export function createStateGc(d: WindowDeps) {
  let cycle: Cycle | undefined;
  let lastCycleAt: number | undefined;

  const keep = (): number => (d.history === 'archive' ? 0 : Math.min(STATE_ROOTS_KEPT, d.history.blocks));

  /** The state root of height `h` (a block's summary has it; older stores' only their header), if stored. */
  async function rootAt(h: number): Promise<Hex | undefined> {
    return (await d.store.summary(h))?.stateRoot ?? (await d.store.block(h))?.header.stateRoot;
  }

  /**
   * The state roots of heights `from` to the head, and of the snapshots served to joining nodes (storage/snapshots.ts),
   * however old. A store joined by state sync has no root below its checkpoint (stateFrom).
   */
  async function keptRoots(from: number): Promise<Hex[]> {
    const roots = new Set<Hex>([d.view.head.stateRoot]);
    for (let h = Math.max(from, await d.store.stateFrom()); h <= d.view.head.height; h++) {
      const root = await rootAt(h);
      if (!root) throw new Error(`no state root stored for height ${h}`);
      roots.add(root);
    }
    for (const h of snapshotHeights(d.view.head.finalizedHeight, d.snapshotInterval ?? 0)) {
      const root = await rootAt(h);
      if (root) roots.add(root);
    }
    return [...roots];
  }

  /** Mark, then sweep into `c.found`; runs beside the consensus actor (it only reads). */
  async function markAndSweep(c: Cycle): Promise<void> {
    const reachable = new ReachableNodes();
    for (const root of await keptRoots(c.stateFrom)) await reachable.markFrom(d.kv, root);
    d.log.info({ stateFrom: c.stateFrom, reachable: reachable.size }, 'state collection: marked');
    for await (const chunk of unreachableNodes(d.kv, reachable)) {
      while (c.found.length >= QUEUED_CHUNKS) await new Promise<void>((r) => (c.room = r));
      c.found.push(chunk);
    }
    c.swept = true;
  }

  function start(): void {
    const head = d.view.head;
    const c: Cycle = {
      stateFrom: Math.max(0, head.finalizedHeight - keep() + 1),
      written: new Set(),
      found: [],
      swept: false,
      failed: false,
      recorded: false,
      deleted: 0,
      started: performance.now(),
    };
    cycle = c;
    lastCycleAt = head.finalizedHeight;
    d.view.pruned({ stateFrom: c.stateFrom }); // readers stop asking for older roots before any is collected
    markAndSweep(c).catch((e: unknown) => {
      c.failed = true;
      d.log.error({ err: e }, 'state collection failed: nothing more is deleted in this cycle');
    });
  }

  return {
    /** Before a block's batch is written: the state nodes it writes are kept by the running cycle. */
    noteWritten(batch: KvBatch): void {
      if (!cycle) return;
      for (const op of opsOf(batch))
        if (op.type === 'put' && isNodeKey(op.key)) cycle.written.add(storedNodeId(op.key));
    },

    /** Between slots (the consensus actor): starts a cycle when one is due, deletes what the sweep found. */
    async step(): Promise<void> {
      const k = keep();
      if (k === 0) return;
      const final = d.view.head.finalizedHeight;
      if (!cycle) {
        lastCycleAt ??= final; // the first cycle after 4 × K blocks of this process, not at start-up
        if (final - lastCycleAt >= 4 * k && final >= k) start();
        return;
      }
      const c = cycle;
      if (c.failed) {
        cycle = undefined;
        return;
      }
      const began = performance.now();
      while (c.found.length > 0 && performance.now() - began < (d.budgetMs ?? 20)) {
        const chunk = c.found.shift() as Uint8Array[];
        c.room?.();
        const batch = d.kv.batch();
        for (const key of chunk)
          if (!c.written.has(storedNodeId(key))) {
            batch.del(key);
            c.deleted++;
          }
        if (!c.recorded) d.store.putStateFrom(batch, c.stateFrom);
        await d.kv.write(batch);
        c.recorded = true;
      }
      if (c.swept && c.found.length === 0) {
        d.log.info(
          { stateFrom: c.stateFrom, deleted: c.deleted, ms: Math.round(performance.now() - c.started) },
          'state collection: done',
        );
        cycle = undefined;
      }
    },
  };
}

export type StateGc = ReturnType<typeof createStateGc>;
