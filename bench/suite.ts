/**
 * `npm run bench`: every side-by-side benchmark, one after another (they share 2 cores),
 * then bench/results.md from their result files — metric, Cairn, reference, ratio, target,
 * with the date, the machine and the commit.
 *
 *   npx tsx bench/suite.ts [--only reads,sync] [--tiny] [--results-dir DIR]
 *   (--only: reruns those; results.md keeps the others' latest rows, each with its date and commit)
 *   ($CAIRN_BENCH_CHAINS: where kept chains live, default ~/.cache/cairn-bench)
 *
 * --tiny: each benchmark in a few seconds (what test/bench/bench.test.ts and bench-chain.test.ts run so that
 * none rots); its numbers mean nothing and results.md is not written.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/harness';
import { RESULTS_DIR, showSpread, type ResultFile } from './lib/results';

/** The benchmarks and their arguments for a full run (--tiny replaces them). */
/** Where long-lived fixtures are kept between runs (the 5,000 × 500 sync chain takes ~45 min to build, 1.3 GB). */
const CHAINS = process.env.CAIRN_BENCH_CHAINS ?? join(homedir(), '.cache', 'cairn-bench');

/** Chains of full blocks (500 hybrid transfers each, 1,000 senders) for the sync row and the join row. */
const CHAIN_300 = join(CHAINS, 'chain-300x500x1000');
const CHAIN_5000 = join(CHAINS, 'chain-5000x500x1000');

/** `tiny`: flags kept with --tiny (the mode a benchmark is about). */
export const BENCHES: { name: string; script: string; args: string[]; tiny?: string[] }[] = [
  { name: 'reads', script: 'bench/reads.ts', args: ['--seconds', '10', '--runs', '5'] },
  { name: 'admission', script: 'bench/admission.ts', args: ['--runs', '3'] },
  { name: 'inclusion', script: 'bench/inclusion.ts', args: ['--runs', '3'] },
  { name: 'block', script: 'bench/block.ts', args: [] },
  { name: 'worstblock', script: 'bench/worstblock.ts', args: ['--runs', '3'] },
  { name: 'worstblock-search', script: 'bench/worstblockSearch.ts', args: ['--loops', '300', '--runs', '3'] },
  { name: 'metaTx', script: 'bench/metaTx.ts', args: ['--rounds', '5'] },
  { name: 'memory', script: 'bench/memory.ts', args: ['--runs', '3'] },
  { name: 'hardhat', script: 'bench/hardhat.ts', args: ['--seconds', '5', '--runs', '3'] },
  { name: 'finality', script: 'bench/finality.ts', args: ['--blocks', '60', '--runs', '3'] },
  { name: 'attack', script: 'bench/attack.ts', args: ['--runs', '3'] },
  { name: 'gossip', script: 'bench/gossip.ts', args: ['--rate', '300', '--seconds', '30'] },
  { name: 'disk', script: 'bench/sync.ts', args: ['--blocks', '40', '--txs', '500', '--as', 'disk'] },
  {
    name: 'sync',
    script: 'bench/sync.ts',
    // Three followers of 300 full blocks (the row); the 5,000-block chain's replay is the join row's reference.
    args: ['--blocks', '300', '--txs', '500', '--senders', '1000', '--runs', '3', '--chain-dir', CHAIN_300],
  },
  { name: 'accounts', script: 'bench/accounts.ts', args: ['--accounts', '10000,100000,1000000', '--rounds', '3'] },
  {
    name: 'join',
    script: 'bench/sync.ts',
    // The join and its reference, a replay from genesis, on 5,000 full blocks (built once: ~50 min).
    args: ['--blocks', '5000', '--txs', '500', '--senders', '1000', '--state', '--replay', '--chain-dir', CHAIN_5000],
    tiny: ['--state', '--replay'],
  },
];

/**
 * Results of runs too long for `npm run bench`, shown with the others when their file is there:
 * `npm run soak -- --minutes 120 --rate 20 --results-dir bench/results` (2 hours); joinAccounts, a node joining
 * bench/accounts.ts's 1M-account store by state sync (measured by hand, its note says how).
 */
export const LONG_RUNS = ['soak', 'joinAccounts'];

export function renderResults(files: ResultFile[]): string {
  const lines = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/suite.ts). Each row is measured against its reference in the',
    'same run; values are the median of the runs with (min–max).',
    '',
    '| metric | Cairn | reference | ratio | target | met | notes |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const f of files) {
    for (const r of f.rows) {
      const x = r.reference ? r.cairn.median / r.reference.value.median : NaN;
      // A share of the reference (a bare server, a ceiling) in %, a multiple of it (another node) in ×.
      const ratio = Number.isNaN(x) ? '–' : x >= 2 ? `${x.toFixed(1)}×` : `${(x * 100).toFixed(0)} %`;
      const ref = r.reference ? `${showSpread(r.reference.value)} (${r.reference.name})` : '–';
      lines.push(
        `| ${r.metric} | ${showSpread(r.cairn)} | ${ref} | ${ratio} | ${r.target} ` +
          `| ${r.met ? 'yes' : '**no**'} | ${r.note ?? ''} |`,
      );
    }
  }
  for (const f of files) for (const r of f.rows) if (r.detail) lines.push('', `### ${r.metric}`, '', r.detail.trim());
  lines.push('', '| bench | date | machine | commit |', '|---|---|---|---|');
  for (const f of files) lines.push(`| ${f.bench} | ${f.date} | ${f.machine} | ${f.commit} |`);
  return `${lines.join('\n')}\n`;
}

/** Runs one benchmark, its stderr shown as it goes and kept (the last 64 KB) for the summary. */
function runShowing(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      process.stderr.write(d);
      stderr = (stderr + d.toString()).slice(-65_536);
    });
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, tiny: { type: 'boolean', default: false }, 'results-dir': { type: 'string' } },
  });
  const dir = values['results-dir'] ?? RESULTS_DIR;
  const only = values.only?.split(',');
  const chosen = BENCHES.filter((b) => !only || only.includes(b.name));
  const failed: { name: string; tail: string }[] = [];
  const took: string[] = [];
  for (const b of chosen) {
    const args = [
      '--import',
      'tsx',
      b.script,
      ...(values.tiny ? ['--tiny', ...(b.tiny ?? [])] : b.args),
      '--results-dir',
      dir,
    ];
    console.error(`\n== ${b.name}: node ${args.join(' ')}`);
    const started = performance.now();
    const r = await runShowing(args);
    took.push(`${b.name} ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (r.status !== 0) {
      failed.push({ name: b.name, tail: r.stderr.split('\n').slice(-12).join('\n') });
      console.error(`${b.name} failed (exit ${r.status})`);
    }
  }
  // With --only, the table keeps the other benchmarks' latest rows (each with its own date and commit).
  const files = [...BENCHES.map((b) => b.name), ...LONG_RUNS]
    .map((name) => join(dir, `${name}.json`))
    .filter(existsSync)
    .map((f) => JSON.parse(readFileSync(f, 'utf8')) as ResultFile);
  const md = renderResults(files);
  if (!values.tiny) writeFileSync(join(ROOT, 'bench/results.md'), md);
  console.log(md);
  console.error(`\nwall time per benchmark: ${took.join(', ')}`);
  // Last on stderr, so that a caller reading its tail (test/bench/bench.test.ts) sees which failed.
  // Each failure's last lines again: a caller that keeps only the tail still sees why.
  for (const f of failed) console.error(`\n-- ${f.name}, last lines:\n${f.tail}`);
  if (failed.length) console.error(`\nfailed: ${failed.map((f) => f.name).join(', ')} (their output is above)`);
  process.exitCode = failed.length ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
