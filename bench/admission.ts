/**
 * Admission throughput of POST /tx: pre-signed hybrid TRANSFERs from many senders over
 * keep-alive HTTP; reports accepted tx/s, p50/p99 latency, refusals by reason, and then
 * the inclusion rate (how fast the producer empties what was admitted).
 *
 *   npx tsx bench/admission.ts [--senders 200] [--per-sender 25] [--concurrency 64]
 *                              [--client http|fetch] [--url http://host:port]
 *                              [--slot-ms n] [--verify-workers n] [--no-cache] [--keep]
 *                              [--wait-quiet seconds (default 60)] [--inclusion-timeout seconds]
 *
 * Without --url it starts its own node in a child process (a fresh temp data dir with
 * `--dev-accounts <senders>`), so the client's CPU is separate from the node's; it reports
 * the node's CPU per thread (from /proc) next to the client's. With --url the senders are
 * the node's development accounts 0..senders-1 and their nonces are read from the node.
 *
 * Signing is slow (noble ML-DSA-44 sign ~11 ms): every envelope is signed before the clock
 * starts, on worker threads, and (fresh node only) cached in the OS temp dir, so a rerun
 * with the same shape starts at once. Signing is deterministic, so the cache is exact.
 *
 * The numbers only mean something on an otherwise idle machine: before measuring, it waits
 * up to --wait-quiet seconds for other processes to use less than a quarter of a core, and
 * reports how much CPU other processes took during the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { stopProcessGroup } from './lib/harness';
import { encodeTx, signTx } from '../src/chain/envelope';
import { deriveKeys, devSecret } from '../src/crypto/keys';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** Fixed so that signatures (deterministic) and ids are the same on every run. */
const TX_TIMESTAMP = 1_767_225_600_000;

interface SignJob {
  first: number; // first sender index of the shard
  count: number;
  perSender: number;
  senders: number;
  startNonces: number[] | null; // per shard sender; null = all 0
}

/** Envelopes of senders first..first+count-1, nonces contiguous from each start nonce. */
function signShard(job: SignJob): string[][] {
  const out: string[][] = [];
  for (let k = 0; k < job.count; k++) {
    const s = job.first + k;
    const keys = deriveKeys(devSecret(s));
    const to = deriveKeys(devSecret((s + 1) % job.senders)).address; // each sender pays the next
    const start = job.startNonces?.[k] ?? 0;
    const bodies: string[] = [];
    for (let n = 0; n < job.perSender; n++) {
      bodies.push(encodeTx(signTx(keys, { type: 'TRANSFER', to, amount: '1', fee: '1000', nonce: start + n, timestamp: TX_TIMESTAMP })));
    }
    out.push(bodies);
  }
  return out;
}

// ─────────────────────────────────────────────────────────────────────────── main thread

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      senders: { type: 'string', default: '200' },
      'per-sender': { type: 'string', default: '25' },
      concurrency: { type: 'string', default: '64' },
      client: { type: 'string', default: 'http' },
      url: { type: 'string' },
      'slot-ms': { type: 'string' },
      'verify-workers': { type: 'string' },
      'no-cache': { type: 'boolean', default: false },
      'inclusion-timeout': { type: 'string', default: '180' },
      'wait-quiet': { type: 'string', default: '60' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
    return;
  }
  const senders = posInt(values.senders!, 'senders', 1000);
  const perSender = posInt(values['per-sender']!, 'per-sender', 64);
  const concurrency = posInt(values.concurrency!, 'concurrency', 4096);
  const client = values.client!;
  if (client !== 'http' && client !== 'fetch') throw new Error('--client must be http or fetch');

  let node: SpawnedNode | null = null;
  let base = values.url?.replace(/\/+$/, '');
  const cleanup = async () => {
    if (node) await node.stop(values.keep!);
    node = null;
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

  try {
    let startNonces: number[] | null = null;
    if (!base) {
      const extra: string[] = [];
      if (values['slot-ms']) extra.push('--slot-ms', values['slot-ms']);
      if (values['verify-workers']) extra.push('--verify-workers', values['verify-workers']);
      node = await spawnNode(senders, extra); // starts while we sign
      base = node.url;
    } else {
      startNonces = await readNonces(base, senders);
    }

    const t0 = performance.now();
    // A fresh chain (all nonces 0) signs the same bytes as a spawned node: the cache applies.
    if (startNonces?.every((n) => n === 0)) startNonces = null;
    const bodies = await signAll(senders, perSender, startNonces, !values['no-cache'] && startNonces === null);
    console.error(`signed ${senders * perSender} envelopes in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    if (node) await node.ready;
    await waitReady(base);
    const post = client === 'http' ? httpPoster(base, concurrency) : fetchPoster(base);
    // Warm the connections and the server's GET path (no nonce is spent).
    await Promise.all(Array.from({ length: concurrency }, () => getJson(base!, '/status')));

    await waitQuiet(Number(values['wait-quiet']), node?.pgid ?? null);
    const before = { stats: await getJson<{ transactions: number; height: number }>(base, '/stats') };
    const order: string[] = [];
    for (let n = 0; n < perSender; n++) for (let s = 0; s < senders; s++) order.push(bodies[s][n]);

    // ── submission
    const lat = new Float64Array(order.length);
    const outcome: string[] = new Array(order.length);
    const cpu0 = process.cpuUsage();
    const node0 = node ? nodeCpu(node.pgid) : null;
    const sys0 = machineCpu();
    const start = performance.now();
    let next = 0;
    const lane = async () => {
      while (next < order.length) {
        const i = next++;
        const t = performance.now();
        try {
          const r = await post(order[i]);
          outcome[i] = r.status === 200 ? (r.body.accepted ? 'accepted' : `refused: ${r.body.reason}`) : `HTTP ${r.status}: ${r.body.error}`;
        } catch (e) {
          outcome[i] = `error: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
        }
        lat[i] = performance.now() - t;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    const wall = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    const node1 = node ? nodeCpu(node.pgid) : null;
    const sys1 = machineCpu();
    const submittedAt = Date.now();

    const counts = new Map<string, number>();
    for (const o of outcome) counts.set(o, (counts.get(o) ?? 0) + 1);
    const accepted = counts.get('accepted') ?? 0;
    const acceptedLat = [...lat].filter((_, i) => outcome[i] === 'accepted').sort((a, b) => a - b);
    const allLat = [...lat].sort((a, b) => a - b);

    const mempoolAfter = await getJson<{ count: number }>(base, '/mempool?limit=1000');
    const statusAfter = await getJson<{ height: number; finalizedHeight: number }>(base, '/status');

    const rows: [string, string][] = [
      ['client', `${client} (keep-alive), concurrency ${concurrency}`],
      ['senders × per sender', `${senders} × ${perSender}`],
      ['total', String(order.length)],
      ['accepted', String(accepted)],
    ];
    for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) if (k !== 'accepted') rows.push([`  ${k}`, String(v)]);
    rows.push(
      ['wall time', `${(wall / 1000).toFixed(2)} s`],
      ['accepted tx/s', (accepted / (wall / 1000)).toFixed(0)],
      ['all responses/s', (order.length / (wall / 1000)).toFixed(0)],
      ['latency p50 / p99 / max (accepted)', `${ms(pct(acceptedLat, 0.5))} / ${ms(pct(acceptedLat, 0.99))} / ${ms(acceptedLat.at(-1))} ms`],
      ['latency p50 / p99 (all)', `${ms(pct(allLat, 0.5))} / ${ms(pct(allLat, 0.99))} ms`],
      ['client CPU', `${((cpu.user + cpu.system) / 1000 / wall * 100).toFixed(0)} % of one core, ${((cpu.user + cpu.system) / order.length).toFixed(0)} µs/request`],
    );
    const clientS = (cpu.user + cpu.system) / 1e6;
    const nodeS = node0 && node1 ? node1.total - node0.total : null;
    if (nodeS !== null) rows.push(['node CPU', `${((nodeS * 1000) / wall * 100).toFixed(0)} % of one core (${availableParallelism()} cores), ${((nodeS * 1e6) / order.length).toFixed(0)} µs/request`]);
    if (sys0 && sys1) {
      const busy = sys1.busy - sys0.busy;
      const others = nodeS === null ? null : Math.max(0, busy - nodeS - clientS);
      rows.push(['machine CPU busy', `${((busy * 1000) / wall * 100).toFixed(0)} % of one core${others === null ? '' : `, other processes ${((others * 1000) / wall * 100).toFixed(0)} % (should be ~0: a busy box skews the result)`}`]);
    }
    rows.push(
      ['mempool after', `${mempoolAfter.count}${mempoolAfter.count >= 1000 ? '+ (GET /mempool counts at most its limit, 1000)' : ''}`],
      ['height after / finalized', `${statusAfter.height} / ${statusAfter.finalizedHeight} (was ${before.stats.height})`],
    );
    printTable('POST /tx admission', rows);
    if (node0 && node1) printThreads(node0, node1, wall);

    // ── inclusion: poll the chain's transaction counter until every accepted tx is in a block
    const timeoutMs = Number(values['inclusion-timeout']) * 1000;
    const target = before.stats.transactions + accepted;
    let last = before.stats;
    let lastChange = Date.now();
    let includedAt = Date.now();
    const incl0 = node ? nodeCpu(node.pgid) : null;
    const inclStart = performance.now();
    for (;;) {
      const s = await getJson<{ transactions: number; height: number }>(base, '/stats');
      if (s.transactions !== last.transactions) {
        lastChange = Date.now();
        includedAt = lastChange;
      }
      last = s;
      if (s.transactions >= target) break;
      if (Date.now() - lastChange > 20_000 || Date.now() - submittedAt > timeoutMs) break;
      await sleep(100);
    }
    const inclCpu = incl0 && node ? nodeCpu(node.pgid) : null;
    const included = last.transactions - before.stats.transactions;
    const blocks = await blockRange(base, before.stats.height + 1, last.height);
    const withTxs = blocks.filter((b) => b.txCount > 0);
    const span = withTxs.length > 1 ? withTxs.at(-1)!.timestamp - withTxs[0].timestamp : 0;
    const statusEnd = await getJson<{ height: number; finalizedHeight: number }>(base, '/status');
    const sinceStart = (includedAt - (submittedAt - wall)) / 1000;
    printTable('inclusion', [
      ['included', `${included} of ${accepted} accepted${included < accepted ? ' (INCOMPLETE: stalled or timed out)' : ''}`],
      ['time to include all, from first POST', `${sinceStart.toFixed(2)} s`],
      ['inclusion tx/s (from first POST)', (included / sinceStart).toFixed(0)],
      ['blocks with txs', `${withTxs.length} (max ${Math.max(0, ...withTxs.map((b) => b.txCount))} txs, mean ${(included / Math.max(1, withTxs.length)).toFixed(0)})`],
      ['block-timestamp span of those blocks', `${(span / 1000).toFixed(2)} s → ${span > 0 ? ((included - withTxs[0].txCount) / (span / 1000)).toFixed(0) : '–'} tx/s between first and last`],
      ['height / finalized', `${statusEnd.height} / ${statusEnd.finalizedHeight}`],
    ]);
    if (incl0 && inclCpu) printThreads(incl0, inclCpu, performance.now() - inclStart, 'node CPU while including');
    if (node) node.dumpLog();
  } finally {
    await cleanup();
  }
}

// ─────────────────────────────────────────────────────────────────────────── signing

async function signAll(senders: number, perSender: number, startNonces: number[] | null, useCache: boolean): Promise<string[][]> {
  // The cache key covers the inputs and the code that shapes the bytes.
  const h = createHash('sha256').update(`${senders}/${perSender}/${TX_TIMESTAMP}`);
  for (const f of ['src/chain/envelope.ts', 'src/crypto/hybrid.ts', 'src/crypto/keys.ts', 'src/protocol/params.ts', 'src/primitives/canonical.ts']) {
    const p = join(ROOT, f);
    if (existsSync(p)) h.update(readFileSync(p));
  }
  const cacheFile = join(tmpdir(), `cairn-bench-admission-${h.digest('hex').slice(0, 16)}.json`);
  if (useCache && existsSync(cacheFile)) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as string[][];
      if (cached.length === senders && cached.every((b) => b.length === perSender)) return cached;
    } catch {
      /* re-sign */
    }
  }
  const threads = Math.max(1, Math.min(availableParallelism(), senders));
  const per = Math.ceil(senders / threads);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const shards = await Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const first = t * per;
      const count = Math.max(0, Math.min(per, senders - first));
      const job: SignJob = { first, count, perSender, senders, startNonces: startNonces?.slice(first, first + count) ?? null };
      if (count === 0) return Promise.resolve([] as string[][]);
      // tsx does not register its loader in workers on Node 20: the worker registers it.
      const code = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
      return new Promise<string[][]>((res, rej) => {
        const w = new Worker(code, { eval: true, workerData: job });
        w.once('message', (m: string[][]) => {
          res(m);
          void w.terminate();
        });
        w.once('error', rej);
      });
    }),
  );
  const all = shards.flat();
  if (useCache) writeFileSync(cacheFile, JSON.stringify(all));
  return all;
}

// ─────────────────────────────────────────────────────────────────────────── HTTP clients

type Poster = (body: string) => Promise<{ status: number; body: { accepted?: boolean; reason?: string; error?: string } }>;

function httpPoster(base: string, concurrency: number): Poster {
  const u = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  return (body) =>
    new Promise((res, rej) => {
      const req = http.request(
        {
          agent, host: u.hostname, port: u.port, path: '/tx', method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => {
            try {
              res({ status: r.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
            } catch (e) {
              rej(e);
            }
          });
          r.on('error', rej);
        },
      );
      req.on('error', rej);
      req.end(body);
    });
}

function fetchPoster(base: string): Poster {
  const url = `${base}/tx`;
  return async (body) => {
    const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    return { status: r.status, body: (await r.json()) as { accepted?: boolean; reason?: string; error?: string } };
  };
}

async function getJson<T = unknown>(base: string, path: string): Promise<T> {
  const r = await fetch(base + path);
  if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

async function waitReady(base: string, timeoutMs = 180_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await getJson(base, '/status');
      return;
    } catch (e) {
      if (Date.now() > until) throw new Error(`node at ${base} not ready: ${(e as Error).message}`);
      await sleep(200);
    }
  }
}

async function readNonces(base: string, senders: number): Promise<number[]> {
  const out: number[] = [];
  for (let s = 0; s < senders; s++) {
    const addr = deriveKeys(devSecret(s)).address;
    const r = await fetch(`${base}/address/${addr}`);
    if (r.status === 404) throw new Error(`dev account ${s} (${addr}) does not exist on ${base}: start it with --dev-accounts ${senders}`);
    out.push(((await r.json()) as { nextNonce: number }).nextNonce);
  }
  return out;
}

interface Summary {
  height: number;
  timestamp: number;
  txCount: number;
}

/** Block summaries from..to ascending (GET /blocks pages newest first, 100 at a time). */
async function blockRange(base: string, from: number, to: number): Promise<Summary[]> {
  const out: Summary[] = [];
  for (let h = to; h >= from; h -= 100) {
    const { blocks } = await getJson<{ blocks: Summary[] }>(base, `/blocks?limit=100&from=${h}`);
    for (const b of blocks) if (b.height >= from && b.height <= to) out.push(b);
    if (blocks.length === 0) break;
  }
  return out.sort((a, b) => a.height - b.height);
}

// ─────────────────────────────────────────────────────────────────────────── child node

interface SpawnedNode {
  url: string;
  pgid: number;
  ready: Promise<void>;
  dumpLog(): void;
  stop(keep: boolean): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => res(port));
    });
  });
}

async function spawnNode(devAccounts: number, extra: string[]): Promise<SpawnedNode> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const port = await freePort();
  let rpcPort = await freePort();
  while (rpcPort === port) rpcPort = await freePort();
  const args = [
    'tsx', 'src/cli/main.ts', 'node', '--data-dir', dir, '--http-port', String(port), '--rpc-port', String(rpcPort),
    '--dev-accounts', String(devAccounts), '--mempool-cap', '50000', '--log-level', 'warn', '--rate-limit-exempt', '127.0.0.1', ...extra, // the operator exemption for a local benchmark
  ];
  // Own process group (detached), so stop() reaches npx, tsx and the node process by one id.
  const child: ChildProcess = spawn('npx', args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keepTail = (c: Buffer) => {
    log = (log + c.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keepTail);
  child.stderr!.on('data', keepTail);
  let exited = false;
  const exit = new Promise<void>((res) => child.once('exit', () => ((exited = true), res())));
  const url = `http://127.0.0.1:${port}`;
  const ready = Promise.race([
    waitReady(url),
    exit.then(() => {
      throw new Error(`node exited before serving:\n${log}`);
    }),
  ]);
  ready.catch(() => {}); // observed by the caller
  console.error(`node: npx ${args.join(' ')} (pid ${child.pid})`);
  return {
    url,
    pgid: child.pid!,
    ready,
    dumpLog() {
      const lines = log.split('\n').filter((l) => l.trim() && !l.includes('npm warn'));
      if (lines.length) console.log(`\nnode log (warn and above, last ${Math.min(10, lines.length)} lines):\n${lines.slice(-10).join('\n')}`);
    },
    async stop(keep) {
      // npx exits on SIGTERM before the node it started has closed RocksDB: wait for the
      // whole process group, not just the direct child.
      await stopProcessGroup(child.pid!, 15_000);
      if (!exited) await exit;
      if (keep) console.error(`data dir kept: ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ─────────────────────────────────────────────────────────────────────────── node CPU (/proc)

interface CpuSample {
  total: number; // seconds
  threads: Map<string, { name: string; s: number }>;
}

const CLK_TCK = 100;

/** Machine-wide busy CPU seconds (all cores) from /proc/stat; undefined off Linux. */
function machineCpu(): { busy: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f; // idle and iowait are not busy
    return { busy: (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK };
  } catch {
    return undefined;
  }
}

/** CPU seconds of every thread of every process in the group (Linux /proc; empty elsewhere). */
function nodeCpu(pgid: number): CpuSample {
  const threads = new Map<string, { name: string; s: number }>();
  let total = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return { total, threads };
  }
  for (const pid of pids) {
    const st = readStat(`/proc/${pid}/stat`);
    if (!st || st.pgrp !== pgid) continue;
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const t = readStat(`/proc/${pid}/task/${tid}/stat`);
      if (!t) continue;
      const s = t.ticks / CLK_TCK;
      total += s;
      threads.set(`${pid}/${tid}`, { name: `${t.comm}${tid === pid ? ' (main)' : ''}`, s });
    }
  }
  return { total, threads };
}

function readStat(path: string): { comm: string; pgrp: number; ticks: number } | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const f = text.slice(close + 2).split(' ');
    return { comm: text.slice(open + 1, close), pgrp: Number(f[2]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

function printThreads(a: CpuSample, b: CpuSample, wallMs: number, title = 'node CPU by thread during submission'): void {
  const rows: [string, number][] = [];
  const byName = new Map<string, number>();
  for (const [k, v] of b.threads) {
    const d = v.s - (a.threads.get(k)?.s ?? 0);
    if (d <= 0) continue;
    rows.push([`${k.split('/')[0]}:${k.split('/')[1]} ${v.name}`, d]);
    byName.set(v.name, (byName.get(v.name) ?? 0) + d);
  }
  rows.sort((x, y) => y[1] - x[1]);
  const pct = (s: number) => `${((s * 1000) / wallMs * 100).toFixed(0)} %`;
  printTable(`${title} (${(wallMs / 1000).toFixed(1)} s)`, rows.slice(0, 8).map(([k, s]) => [k, `${s.toFixed(2)} s  ${pct(s)}`]));
}

/** Waits until processes other than this one and the node use < 0.25 core (1 s samples). */
async function waitQuiet(maxSeconds: number, pgid: number | null): Promise<void> {
  const until = Date.now() + maxSeconds * 1000;
  for (;;) {
    const m0 = machineCpu();
    const n0 = pgid === null ? null : nodeCpu(pgid);
    const c0 = process.cpuUsage();
    await sleep(1000);
    const m1 = machineCpu();
    if (!m0 || !m1) return;
    const c = process.cpuUsage(c0);
    const nodeS = n0 && pgid !== null ? nodeCpu(pgid).total - n0.total : 0;
    const others = m1.busy - m0.busy - nodeS - (c.user + c.system) / 1e6;
    if (others < 0.25) return;
    if (Date.now() > until) {
      console.error(`warning: other processes use ${(others * 100).toFixed(0)} % of a core; measuring anyway`);
      return;
    }
    console.error(`waiting for a quiet machine (other processes use ${(others * 100).toFixed(0)} % of a core)…`);
  }
}

// ─────────────────────────────────────────────────────────────────────────── helpers

function posInt(v: string, name: string, max: number): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be an integer in 1..${max}`);
  return n;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(1));

function printTable(title: string, rows: [string, string][]): void {
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`\n${title}\n${'─'.repeat(Math.max(title.length, w + 20))}`);
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
}

// Last, so that every const above is initialized (top-level await would otherwise hit the TDZ).
if (!isMainThread) {
  parentPort!.postMessage(signShard(workerData as SignJob));
} else {
  await main();
}
