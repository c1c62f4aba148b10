import { SNAPSHOTS_KEPT } from '../protocol/params';
import type { SignedBlockHeader } from '../protocol/types';
import type { ChainStore } from './chainStore';

/**
 * The state snapshots a node serves to nodes joining by state sync: the state of every
 * `interval`-th final block, the newest SNAPSHOTS_KEPT. A snapshot is no copy: state nodes are
 * content-addressed, so it is a root the state collector keeps reachable
 * (actors/consensus/stateGc.ts), and a joining node fetches its nodes by hash.
 */

/** The snapshot heights at `finalizedHeight`, newest first (none below 1, none with interval 0). */
export function snapshotHeights(finalizedHeight: number, interval: number): number[] {
  if (interval <= 0) return [];
  const out: number[] = [];
  for (let h = Math.floor(finalizedHeight / interval) * interval; h > 0 && out.length < SNAPSHOTS_KEPT; h -= interval)
    out.push(h);
  return out;
}

/**
 * The snapshots `store` serves, newest first, each with its block's signed header (a joining
 * node checks the header's hash against the checkpoint it trusts, then every node against the
 * header's state root): those whose block and state it still keeps.
 */
export async function servedSnapshots(
  store: ChainStore,
  o: { finalizedHeight: number; interval: number; historyFrom: number },
): Promise<SignedBlockHeader[]> {
  const out: SignedBlockHeader[] = [];
  for (const h of snapshotHeights(o.finalizedHeight, o.interval)) {
    if (h < o.historyFrom) continue;
    const block = await store.block(h);
    if (block) out.push(block.header);
  }
  return out;
}
