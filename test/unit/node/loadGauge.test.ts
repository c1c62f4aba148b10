import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type LoadGauge,
  loadThresholds,
  MAX_SHED,
  nextShedShare,
  SHED_MIN_PENDING,
  startLoadGauge,
} from '../../../src/node/loadGauge';
import { waitFor } from '../../helpers/wait';

const quiet = pino({ level: 'silent' });

describe('the shedding controller (node/loadGauge.ts nextShedShare)', () => {
  const t = loadThresholds(500);

  it('takes a 500 ms slot to shed above 25 ms of lag or blocks committed 500 ms into their slot', () => {
    expect(t).toEqual({ highLagMs: 25, lowLagMs: 10, highCommitLateMs: 500, lowCommitLateMs: 350 });
    expect(loadThresholds(100)).toMatchObject({ highLagMs: 25, lowLagMs: 10 });
  });

  it('halves what it admits each late window (down to 5 %), holds between the marks, admits 5 % more each calm one', () => {
    let share = 0;
    const path: number[] = [];
    const lags = [30, 30, 30, 30, 30, 30, 20, 20, ...Array<number>(19).fill(5)];
    for (const lag of lags) {
      share = nextShedShare(share, { lagMs: lag, commitLateMs: 100 }, t);
      path.push(share);
    }
    expect(path.slice(0, 6)).toEqual([0.5, 0.75, 0.875, 0.9375, MAX_SHED, MAX_SHED]);
    expect(path.slice(6, 8)).toEqual([MAX_SHED, MAX_SHED]);
    expect(path.slice(8, 11)).toEqual([0.9, 0.85, 0.8]);
    expect(path.at(-2)).toBe(0.05);
    expect(path.at(-1)).toBe(0);
  });

  it('sheds for blocks committed late in their slots while the loop itself is not late (cores all busy)', () => {
    expect(nextShedShare(0, { lagMs: 2, commitLateMs: 600 }, t)).toBe(0.5);
    expect(nextShedShare(0.4, { lagMs: 2, commitLateMs: 400 }, t)).toBe(0.4); // between the marks: held
    expect(nextShedShare(0.4, { lagMs: 2, commitLateMs: 200 }, t)).toBe(0.35);
  });
});

describe('the load gauge on a real event loop', () => {
  let gauge: LoadGauge | undefined;
  afterEach(() => gauge?.stop());

  it('sheds a share of transactions while the loop is held up, and none once it runs free again', async () => {
    gauge = startLoadGauge({ slotMs: 1_000, log: quiet, windowMs: 100 }); // shed above 50 ms of lag, stop below 20
    expect(gauge.shedNow(1_000)).toBe(false);
    // Hold the loop 80 ms in every 100: its timers run late by far more than 50 ms on average.
    const hold = setInterval(() => {
      const until = performance.now() + 80;
      while (performance.now() < until);
    }, 20);
    try {
      await waitFor('shedding', () => gauge!.reading().shedShare >= 0.4, 20_000);
    } finally {
      clearInterval(hold);
    }
    // With fewer than SHED_MIN_PENDING waiting, nothing is shed however late the loop runs.
    expect(gauge.shedNow(SHED_MIN_PENDING - 1)).toBe(false);
    const decisions = Array.from({ length: 100 }, () => gauge!.shedNow(1_000));
    const share = gauge.reading().shedShare;
    // Spread evenly, not in a burst: about the share of 100 refused.
    expect(decisions.filter(Boolean).length).toBeGreaterThanOrEqual(Math.floor(share * 100) - 1);
    expect(decisions.filter(Boolean).length).toBeLessThanOrEqual(Math.ceil(share * 100) + 1);
    expect(gauge.reading().shed).toBe(decisions.filter(Boolean).length);
    await waitFor('shedding stops', () => gauge!.reading().shedShare === 0, 20_000);
    expect(gauge.shedNow(1_000)).toBe(false);
  }, 45_000);
});
