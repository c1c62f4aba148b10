import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test tiers, one folder each (README "Tests"):
 *   unit         test/unit, test/property — rules, machines, model tests; no network, no
 *                process, no browser: `npm test`, under 2 minutes on a 2-core machine
 *   integration  test/integration, test/adversarial — real nodes over HTTP on loopback ports
 *   multinode    test/multinode — 4-process devnets: kills, partitions, jailing
 *   browser      test/browser — the explorer in Debian's Chromium
 *   fuzz         test/fuzz — HTTP and envelope fuzzing (FUZZ_RUNS)
 *   bench        test/bench — every benchmark in tiny mode
 * `npm run test:all` runs them all, in two phases (scripts/test-all.sh; what .ci/run runs).
 *
 * The benchmark tests (two halves of the bench suite in tiny mode, ~1.5 min each, CPU-heavy
 * floods) run last, side by side. They must not share the machine with a 4-process devnet
 * (measured: its finality deadlines ran out and live validators were jailed when they did),
 * and on a fresh clone vitest, knowing no durations, otherwise places them anywhere.
 * Everything else keeps vitest's order.
 */
const LAST = ['test/bench/'];

class BenchLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = (f: TestSpecification) => (LAST.some((p) => f.moduleId.includes(p)) ? 1 : 0);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => last(a.f) - last(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

const tier = (name: string, include: string[], more: { isolate?: boolean } = {}) => ({
  extends: true as const,
  test: { name, include, ...more },
});

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Kills what a file's tests started and did not stop (test/helpers/processes.ts).
    setupFiles: ['test/helpers/setup.ts'],
    sequence: { sequencer: BenchLast },
    projects: [
      // One module graph per worker for the unit and integration tiers (no per-file re-import of the
      // EVM, the crypto and the node: ~1 s of CPU per file, 140 s of a CI run): their files share no
      // mutable module state — every node a test starts has its own stores, caches and registries.
      tier('unit', ['test/unit/**/*.test.ts', 'test/property/**/*.test.ts'], { isolate: false }),
      tier('integration', ['test/integration/**/*.test.ts', 'test/adversarial/**/*.test.ts'], { isolate: false }),
      tier('multinode', ['test/multinode/**/*.test.ts']),
      tier('browser', ['test/browser/**/*.test.ts']),
      tier('fuzz', ['test/fuzz/**/*.test.ts']),
      tier('bench', ['test/bench/**/*.test.ts']),
      // The network simulator's fixed seeds (sim/): CPU-bound, one process per file.
      tier('sim', ['test/sim/**/*.test.ts']),
    ],
  },
});
