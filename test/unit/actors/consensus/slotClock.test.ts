import { afterEach, describe, expect, it, vi } from 'vitest';
import { SLOT_TICK_OFFSET_MS, startSlotClock } from '../../../../src/actors/consensus/slotClock';

afterEach(() => vi.useRealTimers());

describe('slot clock', () => {
  it('ticks at every slot start plus the offset, whenever it was started, without drift', () => {
    vi.useFakeTimers({ now: 1_000_000_123 }); // started 123 ms into a slot
    const ticks: number[] = [];
    const clock = startSlotClock(500, (now) => ticks.push(now));
    vi.advanceTimersByTime(500 * 1000);
    clock.stop();
    expect(ticks.length).toBe(1000);
    expect(ticks.every((t) => t % 500 === SLOT_TICK_OFFSET_MS)).toBe(true);
    expect(new Set(ticks.map((t) => Math.floor(t / 500))).size).toBe(1000); // one per slot, none skipped
    vi.advanceTimersByTime(5000);
    expect(ticks.length).toBe(1000); // stopped
  });

  it('a tick that throws does not stop the clock', () => {
    vi.useFakeTimers({ now: 3_000_000_499 }); // 1 ms before a boundary
    let n = 0;
    const clock = startSlotClock(500, () => {
      n++;
      throw new Error('handler failed');
    });
    for (let i = 0; i < 3; i++) expect(() => vi.advanceTimersByTime(500)).toThrow('handler failed');
    clock.stop();
    expect(n).toBe(3);
  });
});
