import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runOwned } from '../helpers/processes';

/** `npm run sim` itself: many seeds go to a process a core unless `--jobs` says otherwise. */
describe('the simulator command line', () => {
  it('many seeds run on every core by default, each seed once, and the totals add up', async () => {
    const { stdout } = await runOwned(
      process.execPath,
      ['--import', 'tsx', 'sim/run.ts', '--seeds', '3', '--from', '11', '--slots', '30', '--heal-slots', '20'],
      { timeoutMs: 150_000 },
    );
    // A child given its share must run it, not fork children of its own (that recursed without end).
    const seeds = [...stdout.matchAll(/^seed (\d+): ok/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(seeds).toEqual([11, 12, 13]);
    const jobs = Math.min(availableParallelism(), 64);
    expect(stdout).toMatch(
      jobs > 1 ? new RegExp(`^3 run\\(s\\), 0 failed, [\\d.]+ s on ${jobs} processes$`, 'm') : /^3 run\(s\), 0 failed/m,
    );
    expect(stdout.match(/run\(s\)/g)).toHaveLength(1);
  }, 180_000);
});
