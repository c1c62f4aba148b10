/**
 * Hybrid transaction admission: pre-signed hybrid TRANSFERs POSTed to /tx of a real node
 * (closed loop, --concurrency requests in flight over keep-alive connections) against the
 * reference measured in the same run, in this process: the SAME signatures through the
 * verify pool alone (src/crypto/verifyPool.ts, the node's worker count, the same number of
 * verify() calls in flight), without HTTP, JSON or the mempool. Target: the node accepts
 * ≥ 75 % of what the pool alone verifies per second.
 *
 *   npx tsx bench/admission.ts [--senders 200] [--per-sender 25] [--runs 3] [--concurrency 64]
 *                              [--verify-workers n (default: available parallelism)]
 *                              [--slot-ms 500] [--wait-quiet seconds (default 30)] [--url http://host:port]
 *                              [--no-cache] [--keep] [--profile] [--tiny] [--results-dir DIR]
 *
 * Each run submits senders × per-sender envelopes (round-robin over the senders, each
 * nonce round before the next); runs are interleaved with the reference (the reference first,
 * while the node is idle with an empty mempool; then the HTTP run) and the value is the
 * median of the runs with min–max. Before the runs, one warm-up round (2 per sender) goes
 * through both. The node produces blocks meanwhile, as any node does (500 ms slots by
 * default): admission shares the 2 cores with block production; --slot-ms changes that.
 *
 * Without --url it starts its own node (spawnNode: a fresh temp data dir, `--dev-accounts
 * <senders>`, `--verify-workers n`) and reports the node's CPU per thread next to the
 * client's. With --url the senders are the node's development accounts 0..senders-1, their
 * nonces are read from it, and the reference pool uses --verify-workers (say the node's).
 *
 * Signing: liboqs via bench/lib/sign.ts on worker threads before the clock starts, cached
 * in the OS temp dir (fresh node only; --no-cache signs again). --profile: the node's CPU
 * profile over the last HTTP run, summarised (top costs by file, function and src/ caller).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeEnvelope, verifyJobOf } from '../src/chain/envelope';
import type { VerifyJob } from '../src/crypto/hybrid';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { VerifyPool } from '../src/crypto/verifyPool';
import {
  fmt,
  groupCpu,
  machineCpu,
  monoMs,
  pct,
  posInt,
  printTable,
  sleep,
  spawnNode,
  summarizeProfile,
  threadRows,
  waitQuiet,
  waitReady,
  type CpuSample,
  type SpawnedNode,
} from './lib/harness';
import { showSpread, spread, writeResults, type ResultRow } from './lib/results';
import type { SignedEnvelope } from './lib/sign';
import {
  closedLoop,
  closedLoopOf,
  showTally,
  signRoundRobin,
  tally,
  txPoster,
  warmConnections,
  type Submission,
} from './lib/submit';
import { networkAt } from './lib/harness';

const { values } = parseArgs({
  options: {
    senders: { type: 'string', default: '200' },
    'per-sender': { type: 'string', default: '25' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
    'verify-workers': { type: 'string', default: String(availableParallelism()) },
    'slot-ms': { type: 'string', default: '500' },
    'wait-quiet': { type: 'string', default: '30' },
    url: { type: 'string' },
    'no-cache': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}
const TINY = values.tiny!;
const SENDERS = TINY ? 20 : posInt(values.senders!, 'senders', 1000);
const PER_SENDER = TINY ? 5 : posInt(values['per-sender']!, 'per-sender', 64); // the mempool's nonce gap is 64
const RUNS = TINY ? 1 : posInt(values.runs!, 'runs', 50);
const CONCURRENCY = TINY ? 8 : posInt(values.concurrency!, 'concurrency', 4096);
const WORKERS = posInt(values['verify-workers']!, 'verify-workers', 256);
const SLOT_MS = posInt(values['slot-ms']!, 'slot-ms', 1000, 50);
const WAIT_QUIET = TINY ? 0 : Number(values['wait-quiet']);
const WARMUP_PER_SENDER = TINY ? 1 : 2;
const TARGET = 0.75;

const ms = (v: number) => fmt(v, 1);
const sorted = (a: ArrayLike<number>) => Float64Array.from(a).sort();

interface RunResult {
  rate: number;
  p50: number;
  p99: number;
  outcomes: Map<string, number>;
  /** Node CPU per accepted tx (µs), client CPU per request (µs); NaN with --url. */
  nodeUs: number;
  clientUs: number;
}

/** Accepted per second and the accepted requests' latency of one submission. */
function summarize(s: Submission, label: string, extra: Partial<RunResult> = {}): RunResult {
  const outcomes = tally(s.outcome);
  const accepted = outcomes.get('accepted') ?? 0;
  const lat = sorted(s.latency.filter((_, i) => s.outcome[i] === 'accepted'));
  const r = {
    rate: accepted / (s.wallMs / 1000),
    p50: pct(lat, 0.5),
    p99: pct(lat, 0.99),
    outcomes,
    nodeUs: NaN,
    clientUs: NaN,
    ...extra,
  };
  console.error(
    `${label}: ${r.rate.toFixed(0)}/s (${showTally(outcomes)}) in ${(s.wallMs / 1000).toFixed(2)} s, latency ` +
      `p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms`,
  );
  return r;
}

async function getJson<T>(base: string, path: string): Promise<T> {
  const r = await fetch(base + path);
  if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

/** Waits until the node's mempool is empty (the producer has included the previous run). */
async function waitDrained(base: string, timeoutS = 180): Promise<void> {
  const until = Date.now() + timeoutS * 1000;
  for (;;) {
    const { count } = await getJson<{ count: number }>(base, '/mempool?limit=1');
    if (count === 0) return;
    if (Date.now() > until) throw new Error(`the mempool still holds ${count} transactions after ${timeoutS} s`);
    await sleep(200);
  }
}

async function main(): Promise<void> {
  let node: SpawnedNode | null = null;
  let pool: VerifyPool | null = null;
  let base = values.url?.replace(/\/+$/, '');
  const stop = async () => {
    await pool?.close();
    pool = null;
    if (node) await node.stop(values.keep!);
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));
  let profileWindow: { from: number; to: number } | null = null;
  try {
    let startNonce = new Array<number>(SENDERS).fill(0);
    if (!base) {
      node = await spawnNode({
        devAccounts: SENDERS,
        slotMs: SLOT_MS,
        mempoolCap: 50_000,
        logLevel: 'warn',
        cpuProf: values.profile,
        extra: ['--verify-workers', String(WORKERS)],
      });
      base = node.httpUrl;
    } else {
      await waitReady(base);
      startNonce = await readNonces(base, SENDERS);
    }
    // Warm-up round + the runs, signed before anything is measured (the node starts meanwhile).
    const fresh = startNonce.every((n) => n === 0);
    const network = await networkAt(base);
    const t0 = performance.now();
    const perRun = SENDERS * PER_SENDER;
    const warm = SENDERS * WARMUP_PER_SENDER;
    const all: SignedEnvelope[] = await signRoundRobin({
      senders: SENDERS,
      count: warm + RUNS * perRun,
      startNonce,
      label: 'admission',
      cache: fresh && !values['no-cache'],
      network,
    });
    console.error(`signed ${all.length} envelopes in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const bodies = all.map((e) => e.body);
    // The reference's jobs: what the node hands its pool for each body (decoded here, untimed).
    const jobs: VerifyJob[] = bodies.map((b) => {
      const d = decodeEnvelope(JSON.parse(b), network);
      if (!d.ok) throw new Error(`a signed envelope does not decode: ${d.error}`);
      return verifyJobOf(d.tx, network);
    });
    pool = await VerifyPool.start({ workers: WORKERS });
    if (node) await node.ready;
    const poster = txPoster(base, CONCURRENCY);
    await warmConnections(base, CONCURRENCY);

    const slice = (r: number) => ({ from: warm + r * perRun, to: warm + (r + 1) * perRun });
    const reference = (from: number, to: number) =>
      closedLoopOf(to - from, CONCURRENCY, (i) =>
        pool!.verify(jobs[from + i]).then((ok) => (ok ? 'accepted' : 'refused: invalid signature')),
      );

    // Warm-up: both paths once (JIT, the pool's workers, the node's caches).
    await reference(0, warm);
    const w = await closedLoop(bodies.slice(0, warm), CONCURRENCY, poster.post);
    if ((tally(w.outcome).get('accepted') ?? 0) !== warm) throw new Error(`warm-up: ${showTally(tally(w.outcome))}`);

    const cairn: RunResult[] = [];
    const ref: RunResult[] = [];
    const threads: [string, string][] = [];
    for (let r = 0; r < RUNS; r++) {
      const { from, to } = slice(r);
      await waitDrained(base);
      if (WAIT_QUIET > 0) await waitQuiet(WAIT_QUIET, node?.pgid ?? null);
      ref.push(
        summarize(
          await reference(from, to),
          `run ${r + 1}/${RUNS} verify pool alone (${WORKERS} workers, ${CONCURRENCY} in flight)`,
        ),
      );

      const c0 = process.cpuUsage();
      const n0: CpuSample | null = node ? groupCpu(node.pgid) : null;
      const m0 = machineCpu();
      const p0 = monoMs();
      const s = await closedLoop(bodies.slice(from, to), CONCURRENCY, poster.post);
      const p1 = monoMs();
      const m1 = machineCpu();
      const n1 = node ? groupCpu(node.pgid) : null;
      const c = process.cpuUsage(c0);
      const accepted = s.outcome.filter((o) => o === 'accepted').length;
      const nodeS = n0 && n1 ? n1.total - n0.total : NaN;
      const clientS = (c.user + c.system) / 1e6;
      cairn.push(
        summarize(s, `run ${r + 1}/${RUNS} POST /tx (${CONCURRENCY} connections)`, {
          nodeUs: (nodeS * 1e6) / Math.max(1, accepted),
          clientUs: (clientS * 1e6) / (to - from),
        }),
      );
      if (m0 && m1 && n0) {
        const others = m1.busy - m0.busy - nodeS - clientS;
        console.error(
          `  node CPU ${(((nodeS * 1000) / s.wallMs) * 100).toFixed(0)} % of a core, ` +
            `client ${(((clientS * 1000) / s.wallMs) * 100).toFixed(0)} %, other ` +
            `processes ${(((Math.max(0, others) * 1000) / s.wallMs) * 100).toFixed(0)} % ` +
            `(a busy machine skews the result)`,
        );
      }
      if (r === RUNS - 1) {
        profileWindow = { from: p0, to: p1 };
        if (n0 && n1) threads.push(...threadRows(n0, n1, s.wallMs, 8));
      }
    }
    poster.close();

    const cs = spread(cairn.map((x) => x.rate));
    const rs = spread(ref.map((x) => x.rate));
    const ratio = cs.median / rs.median;
    const refusals = cairn.reduce((a, x) => a + perRun - (x.outcomes.get('accepted') ?? 0), 0);
    const med = (f: (x: RunResult) => number, from = cairn) => spread(from.map(f)).median;
    const p99 = spread(cairn.map((x) => x.p99));
    printTable('hybrid tx admission', [
      ['POST /tx, accepted tx/s', showSpread(cs)],
      [
        'verify pool alone, verified/s',
        `${showSpread(rs)}  (${WORKERS} workers, ${CONCURRENCY} verify() calls in flight)`,
      ],
      ['ratio (medians)', `${(ratio * 100).toFixed(0)} %  (target ≥ ${TARGET * 100} %)`],
      [
        'POST latency p50 / p99 (median run)',
        `${ms(med((x) => x.p50))} / ${ms(p99.median)} ms (p99 ${ms(p99.min)}–${ms(p99.max)})`,
      ],
      ['pool latency p50 / p99 (median run)', `${ms(med((x) => x.p50, ref))} / ${ms(med((x) => x.p99, ref))} ms`],
      [
        'node CPU per accepted tx',
        `${fmt(
          med((x) => x.nodeUs),
          0,
        )} µs (all threads)`,
      ],
      [
        'client CPU per request',
        `${fmt(
          med((x) => x.clientUs),
          0,
        )} µs`,
      ],
      [
        'not accepted (all runs)',
        refusals
          ? showTally(
              tally(
                cairn.flatMap((x) =>
                  [...x.outcomes].flatMap(([k, v]) => (k === 'accepted' ? [] : Array<string>(v).fill(k))),
                ),
              ),
            )
          : '0',
      ],
      ['shape', `${RUNS} runs × ${SENDERS} senders × ${PER_SENDER}; ${SLOT_MS} ms slots`],
    ]);
    if (threads.length) printTable('node CPU by thread, last run', threads);

    const row: ResultRow = {
      metric: 'hybrid tx admission (tx/s)',
      unit: 'tx/s',
      cairn: cs,
      reference: { name: `the same signatures through VerifyPool alone, ${WORKERS} workers, no HTTP`, value: rs },
      target: `≥ ${TARGET * 100} % of the reference`,
      met: ratio >= TARGET && refusals === 0,
      note:
        `${(ratio * 100).toFixed(0)} % of the reference; POST p99 ${ms(p99.median)} ms ` +
        `(${ms(p99.min)}–${ms(p99.max)}), p50 ${ms(med((x) => x.p50))} ms; ` +
        `pool alone p99 ${ms(med((x) => x.p99, ref))} ms; ${CONCURRENCY} in flight, keep-alive; ${perRun} txs ` +
        `per run from ${SENDERS} senders; ` +
        `node CPU ${fmt(
          med((x) => x.nodeUs),
          0,
        )} µs per accepted tx; blocks produced meanwhile (${SLOT_MS} ms slots)` +
        (refusals ? `; ${refusals} not accepted` : ''),
    };
    const out = writeResults('admission', [row], values['results-dir']);
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await stop();
    if (node?.cpuProfDir) summarizeProfile(node.cpuProfDir, profileWindow ?? undefined);
    const problems = node?.problems.filter((l) => !l.includes('npm warn')) ?? [];
    if (problems.length)
      console.error(
        `node log (warn and above, last ${Math.min(10, problems.length)}):\n${problems.slice(-10).join('\n')}`,
      );
  }
}

async function readNonces(base: string, senders: number): Promise<number[]> {
  const out: number[] = [];
  for (let s = 0; s < senders; s++) {
    const addr = deriveKeys(devSecret(s)).address;
    const r = await fetch(`${base}/address/${addr}`);
    if (r.status === 404)
      throw new Error(`dev account ${s} (${addr}) does not exist on ${base}: start it with --dev-accounts ${senders}`);
    out.push(((await r.json()) as { nextNonce: number }).nextNonce);
  }
  return out;
}

await main();
