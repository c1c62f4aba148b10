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

export class Scheduler {
  private queue: SimEvent[] = [];
  private seq = 0;
  now: number;

  constructor(start: number) {
    this.now = start;
  }

  at(time: number, run: SimEvent['run']): void {
    const e = { at: Math.max(time, this.now), seq: this.seq++, run };
    // Binary search for the insertion point: events are popped from the front.
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const q = this.queue[mid];
      if (q.at < e.at || (q.at === e.at && q.seq < e.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, e);
  }

  after(ms: number, run: SimEvent['run']): void {
    this.at(this.now + ms, run);
  }

  /** Runs events up to `until` (virtual ms); `step` is called after each. */
  async runUntil(until: number, step: () => Promise<void> | void): Promise<void> {
    while (this.queue.length > 0 && this.queue[0].at <= until) {
      const e = this.queue.shift()!;
      this.now = e.at;
      await e.run();
      // What the event set off without awaiting (an actor's reply to a delivered answer) runs now, before the next.
      await new Promise<void>((r) => setImmediate(r));
      await step();
    }
    this.now = until;
  }
}
