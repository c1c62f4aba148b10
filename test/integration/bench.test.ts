import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHES } from '../../bench/suite';
import type { ResultFile } from '../../bench/lib/results';

/**
 * Every benchmark of `npm run bench`, in its tiny mode, so that none rots: it runs against a
 * real node and its reference, and writes rows with numbers. The numbers mean nothing here.
 */
const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench --tiny', () => {
  it('runs each benchmark and writes its rows with a reference measured in the same run', () => {
    const root = join(import.meta.dirname, '../..');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/suite.ts', '--tiny', '--results-dir', dir], { cwd: root, encoding: 'utf8', timeout: 480_000 });
    expect(r.status, r.stderr.slice(-2000)).toBe(0);
    for (const b of BENCHES) {
      const file = JSON.parse(readFileSync(join(dir, `${b.name}.json`), 'utf8')) as ResultFile;
      expect(file.rows.length).toBeGreaterThan(0);
      for (const row of file.rows) {
        expect(row.cairn.median, row.metric).toBeGreaterThan(0);
        if (row.reference) expect(row.reference.value.median, row.metric).toBeGreaterThan(0);
      }
    }
    // The summary table names every row.
    expect(r.stdout).toContain('| GET /status (req/s) |');
  }, 540_000);
});
