/**
 * Virtual time: a queue of events in time order (ties in the order they were scheduled). The
 * simulator runs one event at a time and waits for everything it set off before the next, so
 * the nodes' actors see the same interleaving on every run of a seed.
 */
export interface SimEvent {
  at: number;
  seq: number;
  run: () => Promise<void> | void;
}

/** `a` runs before `b`: earlier, or as early and scheduled first. */
const before = (a: SimEvent, b: SimEvent) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class Scheduler {
  /**
   * A binary min-heap by (at, seq): a run schedules every node's ticks and polls up front (thousands of events with
   * 21 validators), and a sorted array paid a copy of the queue for each insertion.
   */
  private heap: SimEvent[] = [];
  private seq = 0;
  now: number;

  constructor(start: number) {
    this.now = start;
  }

  at(time: number, run: SimEvent['run']): void {
    const h = this.heap;
    const e = { at: Math.max(time, this.now), seq: this.seq++, run };
    let i = h.push(e) - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!before(e, h[up])) break;
      h[i] = h[up];
      i = up;
    }
    h[i] = e;
  }

  after(ms: number, run: SimEvent['run']): void {
    this.at(this.now + ms, run);
  }

  /** The earliest event, taken off the heap. */
  private pop(): SimEvent {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && before(h[l + 1], h[l]) ? l + 1 : l;
        if (!before(h[c], last)) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = last;
    }
    return top;
  }

  /** Runs events up to `until` (virtual ms), or until `stop()` holds; `step` is called after each. */
  async runUntil(until: number, step: () => Promise<void> | void, stop?: () => boolean): Promise<void> {
    while (this.heap.length > 0 && this.heap[0].at <= until) {
      if (stop?.()) return;
      const e = this.pop();
      this.now = e.at;
      await e.run();
      // What the event set off without awaiting (an actor's reply to a delivered answer) runs now, before the next.
      // A tick runs once the promise jobs queued before it, and those they queue, have all run, without a turn of
      // the event loop: a run spent ~15 % of its time idle in a turn per event with setImmediate (same traces).
      await new Promise<void>((r) => process.nextTick(r));
      await step();
    }
    this.now = until;
  }
}
