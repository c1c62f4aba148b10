import type { Logger } from 'pino';
import { loadParams, PARAMS } from '../../protocol/governable';
import type { KvStore } from '../../state/kv';
import { StateTrie } from '../../state/stateTrie';
import type { ChainStore } from '../../storage/chainStore';
import type { HeadSink } from '../protocol';

/** How much block history a node keeps: every block, or the last `blocks` final ones (--history). */
export type HistoryWindow = 'archive' | { blocks: number };

/** What the history pruner and the state collector work with (both run in the consensus actor, between slots). */
export interface WindowDeps {
  store: ChainStore;
  kv: KvStore;
  view: HeadSink;
  history: HistoryWindow;
  log: Logger;
  /** Every Nth final block's state is kept for joining nodes (--snapshot-interval; 0 or absent: none). */
  snapshotInterval?: number;
  /** Time a step may take (ms): a node turning an archive into a window catches up over many slots. */
  budgetMs?: number;
}

/** The longest window of the protocol in force at `stateRoot` (a governable parameter in blocks). */
export async function longestProtocolWindow(kv: KvStore, stateRoot: WindowDeps['view']['head']['stateRoot']) {
  const params = await loadParams(await StateTrie.open(kv, stateRoot));
  let longest = 0n;
  for (const [name, spec] of Object.entries(PARAMS))
    if (spec.unit === 'blocks' && params[name as keyof typeof params] > longest)
      longest = params[name as keyof typeof params];
  return Number(longest);
}

/**
 * The history window (--history N): blocks more than N below the finalized height lose their
 * history — body, transaction locations, address feeds, logs, internal and token transfers —
 * oldest first; N is at least the longest protocol window in force (a governance vote that
 * lengthens one lengthens the window), one batch per block, each recording that history now starts above it (so a
 * crash between two resumes at the next). Only final blocks are pruned, so nothing pruned can
 * be undone. Run by the consensus actor between blocks: it is the store's one writer.
 */
export function createHistoryPruner(d: WindowDeps): () => Promise<void> {
  let next: number | undefined; // the lowest height still holding history
  return async function pruneStep(): Promise<void> {
    if (d.history === 'archive') return;
    // Genesis (height 0) keeps its body: a chain's first block, and what its summary points at.
    next ??= Math.max(1, await d.store.historyFrom());
    const head = d.view.head;
    if (next >= head.finalizedHeight - d.history.blocks + 1) return;
    const window = Math.max(d.history.blocks, await longestProtocolWindow(d.kv, head.stateRoot));
    const below = head.finalizedHeight - window + 1;
    if (next >= below) return;
    const started = performance.now();
    const first = next;
    let keys = 0;
    while (next < below && performance.now() - started < (d.budgetMs ?? 20)) {
      const batch = d.kv.batch();
      keys += await d.store.pruneBlock(batch, next);
      await d.kv.write(batch);
      next++;
      d.view.pruned({ historyFrom: next });
    }
    d.log.debug({ from: first, to: next - 1, keys, historyFrom: next }, 'history pruned');
  };
}
