import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The benchmark tests (two halves of the bench suite in tiny mode, ~1.5 min each, CPU-heavy
 * floods) run last, side by side. They must not share the machine with a 4-process devnet
 * (measured: its finality deadlines ran out and live validators were jailed when they did),
 * and on a fresh clone vitest, knowing no durations, otherwise places them anywhere.
 * Everything else keeps vitest's order.
 */
const LAST = ['test/integration/bench.test.ts', 'test/integration/bench-chain.test.ts'];

class BenchLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = (f: TestSpecification) => (LAST.some((p) => f.moduleId.endsWith(p)) ? 1 : 0);
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => last(a.f) - last(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: BenchLast },
  },
});
