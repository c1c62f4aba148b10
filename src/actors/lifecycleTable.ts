import { transition, type AnyStateMachine, type EventFrom, type SnapshotFrom } from 'xstate';

/**
 * The live instances of one node-local lifecycle machine (a transaction's, a block's), by key:
 * what a lifecycle actor holds. Keys stepped by one message share their snapshot object (the
 * 500 transactions of a block are one `included` snapshot), and a transition is computed once
 * per distinct snapshot and event — so a block costs one XState transition, not one per
 * transaction, and finality (an event for every open instance) costs one per open group.
 *
 * An instance in a final state leaves the open table; it stays readable only when `keep` says
 * so (what the store cannot answer again, e.g. a drop), the oldest forgotten past `retain`.
 */
export interface LifecycleTableOptions<M extends AnyStateMachine> {
  machine: M;
  /** The state of a key this table has not seen. */
  initial: SnapshotFrom<M>;
  /** Whether a finished instance stays readable (the rest are answered from the store). */
  keep(s: SnapshotFrom<M>): boolean;
  /** How many finished instances stay readable. */
  retain: number;
}

const MEMO_PER_SNAPSHOT = 16;

export class LifecycleTable<M extends AnyStateMachine, K = string> {
  private readonly open = new Map<K, SnapshotFrom<M>>();
  /** Open keys by their (shared) snapshot object. */
  private readonly groups = new Map<SnapshotFrom<M>, Set<K>>();
  private readonly finished = new Map<K, SnapshotFrom<M>>();
  /** transition results by snapshot and event (JSON): an event sent again to the same state is not computed again. */
  private readonly memo = new WeakMap<SnapshotFrom<M>, Map<string, SnapshotFrom<M>>>();

  constructor(private readonly o: LifecycleTableOptions<M>) {}

  /** The instance's snapshot, or undefined when this table does not hold it. */
  get(key: K): SnapshotFrom<M> | undefined {
    return this.open.get(key) ?? this.finished.get(key);
  }

  /** Whether the table holds the instance (open or finished). */
  has(key: K): boolean {
    return this.open.has(key) || this.finished.has(key);
  }

  /** Puts an instance in at `s` (one read back from the store). */
  set(key: K, s: SnapshotFrom<M>): void {
    this.place(key, s);
  }

  /** Sends `event` to each key's instance (a key not held starts at `initial`); returns how many moved. */
  apply(keys: Iterable<K>, event: EventFrom<M>): number {
    const tag = JSON.stringify(event);
    let moved = 0;
    for (const key of keys) {
      const from = this.get(key) ?? this.o.initial;
      const to = this.step(from, event, tag);
      if (to === from && this.has(key)) continue;
      this.place(key, to);
      if (to !== from) moved++;
    }
    return moved;
  }

  /** Sends `event` to every open instance (finality); returns how many moved. */
  broadcast(event: EventFrom<M>): number {
    const tag = JSON.stringify(event);
    let moved = 0;
    for (const [from, keys] of [...this.groups]) {
      const to = this.step(from, event, tag);
      if (to === from) continue;
      moved += keys.size;
      for (const key of [...keys]) this.place(key, to);
    }
    return moved;
  }

  /** Takes instances out (a --dev rewind below finality: the store answers them again). */
  forget(keys: Iterable<K>): void {
    for (const key of keys) {
      this.leaveGroup(key);
      this.finished.delete(key);
    }
  }

  /** Open instances by state value (metrics). */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [s, keys] of this.groups) {
      const state = String((s as { value: unknown }).value);
      out[state] = (out[state] ?? 0) + keys.size;
    }
    return out;
  }

  get size(): { open: number; finished: number } {
    return { open: this.open.size, finished: this.finished.size };
  }

  private step(from: SnapshotFrom<M>, event: EventFrom<M>, tag: string): SnapshotFrom<M> {
    let byEvent = this.memo.get(from);
    if (!byEvent) this.memo.set(from, (byEvent = new Map()));
    const known = byEvent.get(tag);
    if (known) return known;
    // events with new payloads (each block's) do not pile up on a long-lived snapshot
    if (byEvent.size >= MEMO_PER_SNAPSHOT) byEvent.clear();
    const to = transition(this.o.machine, from, event)[0] as SnapshotFrom<M>;
    byEvent.set(tag, to);
    return to;
  }

  private place(key: K, s: SnapshotFrom<M>): void {
    this.leaveGroup(key);
    this.finished.delete(key);
    if ((s as { status: string }).status === 'done') {
      if (!this.o.keep(s)) return;
      this.finished.set(key, s);
      if (this.finished.size > this.o.retain) this.finished.delete(this.finished.keys().next().value as K);
      return;
    }
    this.open.set(key, s);
    let group = this.groups.get(s);
    if (!group) this.groups.set(s, (group = new Set()));
    group.add(key);
  }

  private leaveGroup(key: K): void {
    const s = this.open.get(key);
    if (s === undefined) return;
    this.open.delete(key);
    const group = this.groups.get(s);
    group?.delete(key);
    if (group?.size === 0) this.groups.delete(s);
  }
}
