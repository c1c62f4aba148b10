/**
 * Benchmark results measured against a reference in the same run: each benchmark writes its
 * rows to bench/results/<bench>.json; `npm run bench` (bench/suite.ts) gathers them into
 * bench/results.md with the date, the machine and the commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './harness';

/** Median, min and max of repeated runs. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function spread(values: number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], runs: s.length };
}

export interface ResultRow {
  metric: string;
  unit: string;
  cairn: Spread;
  /** What ran alongside in the same run, or null where the target is absolute. */
  reference: { name: string; value: Spread } | null;
  /** The target in words, and whether this run met it. */
  target: string;
  met: boolean;
  /** What else a reader needs (latency, how it was measured). */
  note?: string;
  /** Markdown shown under the table, headed by the metric (a long run's table per window). */
  detail?: string;
}

export interface ResultFile {
  bench: string;
  date: string;
  machine: string;
  commit: string;
  rows: ResultRow[];
}

export function machine(): string {
  return (
    `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `Node ${process.versions.node}`
  );
}

export function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim()
      ? '+dirty'
      : '';
    return head + dirty;
  } catch {
    return 'unknown';
  }
}

export const RESULTS_DIR = join(ROOT, 'bench/results');

/** Writes bench/results/<bench>.json (or to `dir`: a test's temp dir). */
export function writeResults(bench: string, rows: ResultRow[], dir = RESULTS_DIR): ResultFile {
  const file: ResultFile = { bench, date: new Date().toISOString(), machine: machine(), commit: commit(), rows };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${bench}.json`), `${JSON.stringify(file, null, 2)}\n`);
  return file;
}

// A figure a run could not measure is NaN in memory and null in JSON: shown as a dash, never a crash of the whole
// table.
const n = (v: number | null) =>
  v === null || !Number.isFinite(v) ? '–' : v >= 100 ? Math.round(v).toLocaleString('en') : v.toFixed(v >= 10 ? 1 : 2);
export const showSpread = (s: Spread) => (s.runs > 1 ? `${n(s.median)} (${n(s.min)}–${n(s.max)})` : n(s.median));
