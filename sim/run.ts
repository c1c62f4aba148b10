/**
 * The network simulator's command line.
 *
 *   npm run sim -- --seed 42 [--trace]            one run, replayed exactly from its seed
 *   npm run sim -- --seeds 1000 [--from 1]        many runs; each failure prints its seed
 *                  [--jobs J]                    ... on that many processes (default: one a core)
 *                  [--validators 4-21]           ... each seed its own validator count in that range
 *   options: --validators 4 (4–21) --slots 120 --heal-slots 60 --slot-ms 500 --no-faults --no-byzantine
 *            --no-crash-in-writes --load 0 (transfers a slot) --no-protocol (no staking, governance, AI, bridge
 *            transactions) --tx-ms 0 (virtual ms a node spends per transaction)
 *            --scenario NAME: a scripted schedule of sim/scenarios.ts (election-restart, jail-partition,
 *            clock-skew, overload) with its own options, beside the seed's
 *
 * A run is N real validators (sim/simNode.ts) in this process on virtual time and a simulated
 * network; the seed decides every delay, loss, partition, crash, skew and transaction. The
 * checker (sim/world.ts) stops a run at the first final block that disagrees, and judges
 * liveness once the faults heal; a run without a scenario ends an epoch after finality moved again on every honest
 * node (at most at the end of the heal window). Exit status 1 if any run failed.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SCENARIOS } from './scenarios';
import { DEFAULT_OPTIONS, simulate, type SimOptions, type SimResult } from './world';

const USAGE = `usage: npm run sim -- (--seed S | --seeds N [--from S] [--jobs J]) [--validators N|A-B] [--slots N]
                       [--heal-slots N] [--slot-ms MS] [--no-faults] [--no-byzantine]
                       [--no-crash-in-writes] [--load N] [--no-protocol] [--tx-ms MS]
                       [--scenario ${Object.keys(SCENARIOS).join('|')}] [--trace]`;

function int(v: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    console.error(`--${name} must be an integer from ${min} to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

/** The command that replays a run. */
export function replayCommand(o: SimOptions): string {
  const d = DEFAULT_OPTIONS;
  const extra = [
    o.validators !== d.validators && `--validators ${o.validators}`,
    o.slots !== d.slots && `--slots ${o.slots}`,
    o.healSlots !== d.healSlots && `--heal-slots ${o.healSlots}`,
    o.slotMs !== d.slotMs && `--slot-ms ${o.slotMs}`,
    !o.faults && '--no-faults',
    !o.byzantine && '--no-byzantine',
    !o.crashInWrites && '--no-crash-in-writes',
    o.load !== d.load && `--load ${o.load}`,
    !o.protocol && '--no-protocol',
    o.txMs !== d.txMs && `--tx-ms ${o.txMs}`,
    o.scenario !== undefined && `--scenario ${o.scenario}`,
  ].filter(Boolean);
  return `npm run sim -- --seed ${o.seed} ${extra.join(' ')} --trace`.replace(/ +/g, ' ');
}

export function summary(r: SimResult): string {
  const s = r.stats;
  const what =
    `${r.options.validators} validators, ${s.blocks} blocks, final #${s.finalized}, ${s.reorganizations} ` +
    `reorganized, ${s.faults} faults, ${s.txs} txs (${s.protocolTxs} protocol), ${s.transitions} machine ` +
    `transitions final, final again ${s.livenessSlots} slots after the heal, ${s.unsignedAfterHeal} slots unsigned ` +
    `after it (double-sign protection), ${s.withheldAfterHeal} withheld`;
  return `seed ${r.options.seed}: ${r.failure ? `FAILED: ${r.failure}` : 'ok'} (${what}; trace ${r.traceHash.slice(0, 12)})`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      seeds: { type: 'string' },
      from: { type: 'string' },
      validators: { type: 'string' },
      slots: { type: 'string' },
      'heal-slots': { type: 'string' },
      'slot-ms': { type: 'string' },
      'no-faults': { type: 'boolean', default: false },
      'no-byzantine': { type: 'boolean', default: false },
      'no-crash-in-writes': { type: 'boolean', default: false },
      load: { type: 'string' },
      'no-protocol': { type: 'boolean', default: false },
      'tx-ms': { type: 'string' },
      scenario: { type: 'string' },
      jobs: { type: 'string' },
      // internal: a child of --jobs runs every stride-th seed from its offset
      stride: { type: 'string' },
      offset: { type: 'string' },
      trace: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || (values.seed === undefined && values.seeds === undefined)) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  // --validators A-B: each seed draws its count from the range (the replay command names the one it drew).
  const range = /^(\d+)-(\d+)$/.exec(values.validators ?? '');
  const lo = range ? int(range[1], 'validators', 4, 4, 21) : 0;
  const hi = range ? int(range[2], 'validators', 21, lo, 21) : 0;
  // A scenario brings its own options (faults, validators, slots): they replace the defaults, not the flags given.
  if (values.scenario !== undefined && !SCENARIOS[values.scenario]) {
    console.error(`no scenario ${values.scenario}: ${Object.keys(SCENARIOS).join(', ')}\n${USAGE}`);
    process.exit(2);
  }
  const d = { ...DEFAULT_OPTIONS, ...(values.scenario === undefined ? {} : SCENARIOS[values.scenario]().options) };
  const base = {
    validators: range ? lo : int(values.validators, 'validators', d.validators, 4, 21),
    slots: int(values.slots, 'slots', d.slots, 1, 100_000),
    healSlots: int(values['heal-slots'], 'heal-slots', DEFAULT_OPTIONS.healSlots, 1, 100_000),
    slotMs: int(values['slot-ms'], 'slot-ms', DEFAULT_OPTIONS.slotMs, 50, 10_000),
    faults: !values['no-faults'] && d.faults,
    byzantine: !values['no-byzantine'] && !values['no-faults'] && d.byzantine,
    crashInWrites: !values['no-crash-in-writes'],
    load: int(values.load, 'load', DEFAULT_OPTIONS.load, 0, 1_000),
    protocol: !values['no-protocol'],
    txMs: int(values['tx-ms'], 'tx-ms', DEFAULT_OPTIONS.txMs, 0, 1_000),
    ...(values.scenario === undefined ? {} : { scenario: values.scenario }),
  };
  const all =
    values.seed !== undefined
      ? [int(values.seed, 'seed', 0, 0, 2 ** 32 - 1)]
      : Array.from(
          { length: int(values.seeds, 'seeds', 1, 1, 1_000_000) },
          (_, i) => int(values.from, 'from', 1, 0, 2 ** 32 - 1) + i,
        );
  // Many seeds use every core unless told otherwise: 1,000 seeds of 21 validators took 98 min on one process.
  const jobs = int(values.jobs, 'jobs', Math.min(availableParallelism(), 64), 1, 64);
  // A child (given --stride) runs its share itself.
  if (jobs > 1 && all.length > 1 && values.stride === undefined) return runChildren(jobs, all.length);
  const stride = int(values.stride, 'stride', 1, 1, 64);
  const offset = int(values.offset, 'offset', 0, 0, 63);
  const seeds = all.filter((_, i) => i % stride === offset);
  const started = performance.now();
  const failed: SimResult[] = [];
  for (const seed of seeds) {
    const validators = range ? lo + (seed % (hi - lo + 1)) : base.validators;
    const r = await simulate({ ...base, validators, seed });
    if (values.trace) console.log(r.trace.join('\n'));
    console.log(summary(r));
    if (r.failure) {
      failed.push(r);
      if (!values.trace) console.log(r.trace.slice(-30).join('\n'));
      console.log(`replay: ${replayCommand(r.options)}`);
    }
  }
  const secs = (performance.now() - started) / 1000;
  console.log(
    `${seeds.length} run(s), ${failed.length} failed, ${secs.toFixed(1)} s` +
      (failed.length ? `; failing seeds: ${failed.map((r) => r.options.seed).join(' ')}` : ''),
  );
  process.exitCode = failed.length ? 1 : 0;
}

/**
 * --jobs J: J processes, each running every J-th seed (the same runs as one process would, seed for seed); their
 * lines are passed on as they come, and the totals added up at the end.
 */
async function runChildren(jobs: number, count: number): Promise<void> {
  const started = performance.now();
  const args = process.argv.slice(2).filter((a, i, xs) => a !== '--jobs' && xs[i - 1] !== '--jobs');
  let runs = 0;
  const failing: string[] = [];
  await Promise.all(
    Array.from({ length: Math.min(jobs, count) }, async (_, k) => {
      const child = fork(fileURLToPath(import.meta.url), [...args, '--stride', String(jobs), '--offset', String(k)], {
        // One GC thread a process: with V8's helper threads, two processes on two cores ran 4 seeds of 21 validators
        // in 31.9 s; with one each, in 27.2 s (a run alone is ~5 % slower this way, so only children use it).
        execArgv: ['--import', 'tsx', '--single-threaded-gc'],
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      });
      for await (const line of createInterface({ input: child.stdout! })) {
        const total = /^(\d+) run\(s\), (\d+) failed/.exec(line);
        if (total) {
          runs += Number(total[1]);
          continue;
        }
        const f = /^seed (\d+): FAILED/.exec(line);
        if (f) failing.push(f[1]);
        console.log(line);
      }
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    }),
  );
  const secs = (performance.now() - started) / 1000;
  console.log(
    `${runs} run(s), ${failing.length} failed, ${secs.toFixed(1)} s on ${jobs} processes` +
      (failing.length ? `; failing seeds: ${failing.join(' ')}` : ''),
  );
  process.exitCode = failing.length || runs < count ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
