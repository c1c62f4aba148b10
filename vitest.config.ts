import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take minutes start first. On a fresh clone (CI) vitest knows no durations and
 * starts larger files first: the bench suite's test (~3 min, a small file) started last and
 * ran alone for its whole length while the other worker sat idle (a 14-minute run of which
 * the last 3 had one file running). Everything else keeps vitest's order.
 */
const LONG_FIRST = ['test/integration/bench.test.ts', 'test/integration/readme.test.ts', 'test/multinode/'];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((p) => f.moduleId.includes(p));
      return i < 0 ? LONG_FIRST.length : i;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: LongFirst },
  },
});
