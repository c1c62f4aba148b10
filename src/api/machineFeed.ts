import type { ChainEvent } from '../protocol/events';
import type { ChainStore } from '../storage/chainStore';

type Transition = Extract<ChainEvent, { kind: 'machine.transition' }>;

/** Transitions read to find the instances that changed most recently (lists without `since`). */
export const RECENT_CAP = 10_000;

/**
 * The `since` feed of one on-chain machine, as /ai/tasks and /bridge/transfers serve it: the
 * transitions at heights in (since, cursor], oldest first, up to `top` (the head, or the
 * finalized height), whole blocks only — so passing `cursor` back as `since` never skips or
 * repeats a transition.
 */
export async function feedPage(
  store: ChainStore,
  machine: string,
  since: number,
  limit: number,
  top: number,
): Promise<{ feed: Transition[]; cursor: number }> {
  const feed = (await store.machineFeed(machine, since, limit)).filter((e) => e.height <= top);
  const full = feed.length >= limit;
  return { feed, cursor: full ? feed[feed.length - 1].height : Math.max(since, top) };
}

/**
 * Instance ids by their latest transition, newest first (ties by id), from the machine's
 * latest `cap` transitions: the newest end of the feed, however long the history grew.
 */
export async function recentIds(store: ChainStore, machine: string, cap = RECENT_CAP): Promise<string[]> {
  const latest = new Map<string, number>();
  // Newest first: an instance's first appearance is its latest transition.
  for (const e of await store.machineFeedNewest(machine, cap)) if (!latest.has(e.id)) latest.set(e.id, e.height);
  return [...latest.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
}

/** A machine instance's history as the views show it. */
export const historyOf = async (store: ChainStore, machine: string, id: string) =>
  (await store.machineHistory(machine, id)).map(({ from, to, event, height }) => ({ from, to, event, height }));
