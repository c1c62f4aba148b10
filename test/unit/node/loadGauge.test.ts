import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { lagThresholds, MAX_SHED, nextShedShare, startLoadGauge, type LoadGauge } from '../../../src/node/loadGauge';
import { waitFor } from '../../helpers/wait';

const quiet = pino({ level: 'silent' });

describe('the shedding controller (node/loadGauge.ts nextShedShare)', () => {
  const t = lagThresholds(500);

  it('takes a 500 ms slot to shed above 50 ms of lag and stop below 25 ms', () => {
    expect(t).toEqual({ highLagMs: 50, lowLagMs: 25 });
    expect(lagThresholds(100)).toEqual({ highLagMs: 20, lowLagMs: 10 });
  });

  it('sheds more each late window up to MAX_SHED, holds between the thresholds, and sheds less each quiet one', () => {
    let share = 0;
    const path: number[] = [];
    for (const lag of [60, 60, 60, 60, 60, 60, 30, 30, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]) {
      share = nextShedShare(share, lag, t);
      path.push(share);
    }
    expect(path.slice(0, 6)).toEqual([0.2, 0.4, 0.6000000000000001, 0.8, MAX_SHED, MAX_SHED]);
    expect(path.slice(6, 8)).toEqual([MAX_SHED, MAX_SHED]);
    expect(path.slice(8, 11)).toEqual([0.85, 0.75, 0.65]);
    expect(path.at(-1)).toBe(0);
  });
});

describe('the load gauge on a real event loop', () => {
  let gauge: LoadGauge | undefined;
  afterEach(() => gauge?.stop());

  it('sheds a share of transactions while the loop is held up, and none once it runs free again', async () => {
    gauge = startLoadGauge({ slotMs: 500, log: quiet, windowMs: 100 });
    expect(gauge.shedNow()).toBe(false);
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
    const decisions = Array.from({ length: 100 }, () => gauge!.shedNow());
    const share = gauge.reading().shedShare;
    // Spread evenly, not in a burst: about the share of 100 refused.
    expect(decisions.filter(Boolean).length).toBeGreaterThanOrEqual(Math.floor(share * 100) - 1);
    expect(decisions.filter(Boolean).length).toBeLessThanOrEqual(Math.ceil(share * 100) + 1);
    expect(gauge.reading().shed).toBe(decisions.filter(Boolean).length);
    await waitFor('shedding stops', () => gauge!.reading().shedShare === 0, 20_000);
    expect(gauge.shedNow()).toBe(false);
  }, 45_000);
});
