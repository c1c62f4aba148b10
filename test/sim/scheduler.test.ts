import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../sim/scheduler';

describe('the simulator’s virtual time', () => {
  it('runs events in time order, ties in the order they were scheduled, events scheduled while running included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(50), fc.option(fc.nat(20))), { maxLength: 200 }), async (events) => {
        const s = new Scheduler(0);
        const ran: [number, number][] = [];
        const expected: [number, number][] = [];
        let seq = 0;
        for (const [at, then] of events) {
          const id = seq++;
          expected.push([at, id]);
          s.at(at, () => {
            ran.push([s.now, id]);
            // An event may schedule another, later (or now: it runs after those already due at this time).
            if (then !== null) {
              const next = seq++;
              expected.push([at + then, next]);
              s.after(then, () => void ran.push([s.now, next]));
            }
          });
        }
        await s.runUntil(1_000, () => {});
        expect(ran.map(([t]) => t)).toEqual([...ran.map(([t]) => t)].sort((a, b) => a - b));
        // Among events due at one time, the one scheduled first runs first.
        for (let i = 1; i < ran.length; i++)
          if (ran[i][0] === ran[i - 1][0]) expect(ran[i][1]).toBeGreaterThan(ran[i - 1][1]);
        expect(ran.length).toBe(expected.length);
      }),
      { numRuns: 200 },
    );
  });

  it('runs what an event set off without awaiting before the next event, and stops when asked', async () => {
    const s = new Scheduler(0);
    const seen: string[] = [];
    let chained = 0;
    const chain = async (depth: number): Promise<void> => {
      for (let i = 0; i < depth; i++) await Promise.resolve(); // an actor's mailbox, several replies deep
      chained++;
    };
    for (const at of [10, 20, 30])
      s.at(at, () => {
        void chain(100);
        void chain(3).then(() => chain(7)); // a reply that sets off another
      });
    let stopAt = Number.POSITIVE_INFINITY;
    await s.runUntil(
      100,
      () => {
        seen.push(`${s.now}:${chained}`);
        if (s.now === 20) stopAt = 20;
      },
      () => s.now >= stopAt,
    );
    // After each event all three chains it set off had finished; the run stopped after the event at 20.
    expect(seen).toEqual(['10:3', '20:6']);
    expect(s.now).toBe(20);
  });
});
