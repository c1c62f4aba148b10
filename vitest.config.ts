import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take minutes start first, the multi-process network tests last. On a fresh
 * clone (CI) vitest knows no durations and starts larger files first: the bench suite's test
 * (~3 min, a small file) started last and ran alone for its whole length while the other
 * worker sat idle (the last 3 minutes of a 14-minute run). Started first, it must not share
 * the machine with a 4-process devnet (whose finality deadlines then ran out), so those go
 * last, after it. Everything else keeps vitest's order.
 */
const FIRST = ['test/integration/bench.test.ts', 'test/integration/readme.test.ts'];
const LAST = ['test/multinode/'];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = FIRST.findIndex((p) => f.moduleId.includes(p));
      if (i >= 0) return i;
      return LAST.some((p) => f.moduleId.includes(p)) ? FIRST.length + 1 : FIRST.length;
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
