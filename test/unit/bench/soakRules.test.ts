import { describe, expect, it } from 'vitest';
import { band, warmupEnd } from '../../../bench/lib/soakRules';

const MIB = 2 ** 20;
/** Node 0's cache over time, one sample a minute. */
const samples = (mib: number[]) => mib.map((m, t) => ({ t, cache: [m * MIB, 0, 0, 0] }));

describe('soak rules', () => {
  it('warm-up ends when the state cache first drops a generation, not when it holds half its budget', () => {
    // A 128 MiB budget: the first generation fills at 64, the second at 128, then the older one goes.
    const grow = Array.from({ length: 64 }, (_, i) => 2 * (i + 1)); // 2 … 128 MiB, a minute each
    expect(warmupEnd(samples([...grow, 64, 70, 80]), 128 * MIB)).toBe(64);
    // Still growing, or never past three quarters of the budget: no end.
    expect(warmupEnd(samples(grow), 128 * MIB)).toBeUndefined();
    expect(warmupEnd(samples([10, 90, 40, 60]), 128 * MIB)).toBeUndefined();
    // A missing sample (node 0 busy) is skipped, not read as a drop.
    expect(warmupEnd(samples([100, Number.NaN, 110, 64]), 128 * MIB)).toBe(3);
  });

  it('flat is each node within a band of its lowest window; a node down for a window is left out', () => {
    const rows = [
      [900, 500, 850, 880],
      [950, 0, 860, 900],
      [920, 700, 900, 890],
    ];
    expect(band(rows, [0, 2, 3])).toBeCloseTo(50 / 850); // node 2: 850 → 900
    expect(band(rows, [1])).toBeCloseTo(0.4); // node 1: 500 → 700, its down window left out
    expect(band([[900, 0, 0, 0]], [0])).toBeNaN(); // one window says nothing
  });
});
