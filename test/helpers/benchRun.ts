import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultFile } from '../../bench/lib/results';

/**
 * Benchmarks of `npm run bench` in their tiny mode, so that none rots: each runs against a
 * real node and its reference and writes rows with numbers (the numbers mean nothing here).
 * The suite is split over two test files (`names`) so that the two halves run side by side
 * instead of one 3-minute file running alone at the end of CI.
 */
export function benchTinyTests(names: string[], tableRow?: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe(`npm run bench --tiny --only ${names.join(',')}`, () => {
    it('runs each benchmark and writes its rows with a reference measured in the same run', () => {
      const root = join(import.meta.dirname, '../..');
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'bench/suite.ts', '--tiny', '--only', names.join(','), '--results-dir', dir],
        { cwd: root, encoding: 'utf8', timeout: 480_000 },
      );
      // What each benchmark took, in the test's output: the suite's time is a large share of CI's.
      console.log(/wall time per benchmark: .*/.exec(r.stderr)?.[0] ?? 'no timing line');
      expect(r.status, r.stderr.slice(-4000)).toBe(0);
      for (const name of names) {
        const file = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as ResultFile;
        expect(file.rows.length).toBeGreaterThan(0);
        for (const row of file.rows) {
          // Named, and a number: a figure a run could not measure is null in the JSON.
          expect(
            typeof row.cairn.median === 'number' && row.cairn.median > 0,
            `${name}: ${row.metric} = ${row.cairn.median}`,
          ).toBe(true);
          if (row.reference)
            expect(
              typeof row.reference.value.median === 'number' && row.reference.value.median > 0,
              `${name}: ${row.metric} reference = ${row.reference.value.median}`,
            ).toBe(true);
        }
      }
      if (tableRow) expect(r.stdout).toContain(tableRow); // the summary table names the rows
    }, 540_000);
  });
}
