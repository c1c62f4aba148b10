/**
 * Shared pieces of the node benchmarks (bench/vm.ts, bench/rpc.ts): a node in its own
 * process group, its CPU per thread from /proc, a keep-alive JSON client, a quiet-machine
 * wait, CPU-profile summaries and table printing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Network } from '../../src/protocol/network';
import type { CannedAnswer } from './bareServer';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const pct = (sorted: ArrayLike<number>, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
export const fmt = (v: number | undefined, d = 1) => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(d));

export function printTable(title: string, rows: [string, string][]): void {
  const w = Math.max(0, ...rows.map((r) => r[0].length));
  console.log(`\n${title}\n${'─'.repeat(Math.max(title.length, w + 20))}`);
  for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`);
}

export function posInt(v: string, name: string, max: number, min = 1): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer in ${min}..${max}`);
  return n;
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => res(port));
    });
  });
}

// ─────────────────────────────────────────────────────────────────────────── keep-alive JSON client

export interface JsonClient {
  post<T = unknown>(path: string, body: unknown): Promise<{ status: number; body: T }>;
  get<T = unknown>(path: string): Promise<T>;
  close(): void;
}

/** node:http with a keep-alive agent of `sockets` connections. */
export function jsonClient(base: string, sockets: number): JsonClient {
  const u = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  const request = <T>(method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: T }>((res, rej) => {
      const headers: Record<string, string | number> = {};
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request({ agent, host: u.hostname, port: u.port, path, method, headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            res({ status: r.statusCode ?? 0, body: (text ? JSON.parse(text) : null) as T });
          } catch {
            rej(new Error(`${method} ${path}: HTTP ${r.statusCode}, not JSON: ${text.slice(0, 200)}`));
          }
        });
        r.on('error', rej);
      });
      req.on('error', rej);
      req.end(body);
    });
  return {
    post: (path, body) => request('POST', path, typeof body === 'string' ? body : JSON.stringify(body)),
    async get<T>(path: string) {
      const r = await request<T>('GET', path);
      if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    close: () => agent.destroy(),
  };
}

export interface RpcErr {
  code: number;
  message: string;
  data?: unknown;
}
export type RpcReply<T = unknown> = { id: number; result?: T; error?: RpcErr };

/** JSON-RPC over a JsonClient: one call (throws on error) or a batch (replies in request order). */
export function rpcClient(c: JsonClient) {
  let nextId = 1;
  return {
    async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
      const r = await c.post<RpcReply<T>>('/', { jsonrpc: '2.0', id: nextId++, method, params });
      if (r.body.error) throw new Error(`${method}: ${r.body.error.code} ${r.body.error.message}`);
      return r.body.result as T;
    },
    async batch<T = unknown>(calls: [string, unknown[]][]): Promise<RpcReply<T>[]> {
      const first = nextId;
      nextId += calls.length;
      const r = await c.post<RpcReply<T>[] | RpcReply<T>>(
        '/',
        calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: first + i, method, params })),
      );
      if (!Array.isArray(r.body)) throw new Error(`batch refused: ${JSON.stringify(r.body).slice(0, 300)}`);
      const byId = new Map(r.body.map((x) => [x.id, x]));
      return calls.map(
        (_, i) => byId.get(first + i) ?? { id: first + i, error: { code: 0, message: 'missing in batch reply' } },
      );
    },
  };
}

// ─────────────────────────────────────────────────────────────────────────── child node

export interface BlockLog {
  /** pino `time` (ms since epoch) of the "block committed" line */
  time: number;
  height: number;
  txs: number;
  dropped: number;
  ms: number;
  /** Where the time went, as the node logs it (a produced block: prefetch, execute, finish, trie, index, write). */
  phases?: Record<string, number>;
}

export interface SpawnedNode {
  httpUrl: string;
  rpcUrl: string;
  dataDir: string;
  pgid: number;
  ready: Promise<void>;
  /** "block committed" lines seen so far (needs --log-level info or lower). */
  blocks: BlockLog[];
  /** Other log lines at warn and above, and non-JSON output (last 200). */
  problems: string[];
  cpuProfDir: string | null;
  stop(keep: boolean): Promise<void>;
}

/**
 * `node --import tsx src/cli/main.ts node …` in its own process group, on a fresh temp data
 * dir. stdout is parsed as pino JSON lines. `cpuProf`: `node --cpu-prof` into a temp dir (one
 * profile per thread, written when the node exits cleanly on SIGTERM; Node 20 refuses
 * --cpu-prof in NODE_OPTIONS).
 */
export async function spawnNode(opts: {
  devAccounts: number;
  slotMs: number;
  mempoolCap: number;
  logLevel: string;
  extra?: string[];
  cpuProf?: boolean;
  nodeFlags?: string[];
  dataDir?: string;
}): Promise<SpawnedNode> {
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const port = await freePort();
  let rpcPort = await freePort();
  while (rpcPort === port) rpcPort = await freePort();
  const cpuProfDir = opts.cpuProf ? mkdtempSync(join(tmpdir(), 'cairn-prof-')) : null;
  const args = [
    ...(opts.nodeFlags ?? []),
    ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []),
    '--import',
    'tsx',
    'src/cli/main.ts',
    'node',
    '--data-dir',
    dir,
    '--http-port',
    String(port),
    '--rpc-port',
    String(rpcPort),
    '--dev-accounts',
    String(opts.devAccounts),
    '--rate-limit-exempt',
    '127.0.0.1',
    '--mempool-cap',
    String(opts.mempoolCap),
    '--slot-ms',
    String(opts.slotMs),
    '--log-level',
    opts.logLevel,
    ...(opts.extra ?? []),
  ];
  // The native API limits requests per IP (SPEC: 240 per 10 s); a bench from loopback must not be.
  if (readFileSync(join(ROOT, 'src/config/config.ts'), 'utf8').includes("flag: 'rate-limit-exempt'"))
    args.push('--rate-limit-exempt', '127.0.0.1,::1');
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const blocks: BlockLog[] = [];
  const problems: string[] = [];
  const note = (l: string) => {
    problems.push(l);
    if (problems.length > 200) problems.shift();
  };
  let partial = '';
  // CAIRN_BENCH_LOG=<file>: keep the node's whole log for inspection.
  const tee = process.env.CAIRN_BENCH_LOG
    ? (await import('node:fs')).createWriteStream(process.env.CAIRN_BENCH_LOG)
    : null;
  child.stdout!.on('data', (c: Buffer) => {
    tee?.write(c);
    const lines = (partial + c.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      let j: {
        msg?: string;
        level?: number;
        time?: number;
        height?: number;
        txs?: number;
        dropped?: number;
        ms?: number;
        phases?: Record<string, number>;
      };
      try {
        j = JSON.parse(line);
      } catch {
        note(line);
        continue;
      }
      if (j.msg === 'block committed')
        blocks.push({
          time: j.time!,
          height: j.height!,
          txs: j.txs!,
          dropped: j.dropped ?? 0,
          ms: j.ms!,
          ...(j.phases && { phases: j.phases }),
        });
      else if ((j.level ?? 0) >= 40) note(line);
    }
  });
  child.stderr!.on('data', (c: Buffer) => {
    for (const l of c.toString('utf8').split('\n')) if (l.trim()) note(l);
  });
  let exited = false;
  const exit = new Promise<void>((res) => child.once('exit', () => ((exited = true), res())));
  const httpUrl = `http://127.0.0.1:${port}`;
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const ready = Promise.race([
    waitReady(httpUrl).then(() => waitRpcReady(rpcUrl)), // the RPC server listens after the HTTP one
    exit.then(() => {
      throw new Error(`node exited before serving:\n${problems.join('\n')}`);
    }),
  ]);
  ready.catch(() => {});
  console.error(`node: ${process.execPath} ${args.join(' ')} (pid ${child.pid})`);
  return {
    httpUrl,
    rpcUrl,
    dataDir: dir,
    pgid: child.pid!,
    ready,
    blocks,
    problems,
    cpuProfDir,
    async stop(keep) {
      await stopProcessGroup(child.pid!, 20_000);
      if (!exited) await exit;
      if (keep) console.error(`data dir kept: ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The chain a node serves (GET /status, once it answers): what a benchmark's transactions sign for. */
export async function networkAt(base: string): Promise<Network> {
  await waitReady(base);
  const s = (await (await fetch(`${base}/status`)).json()) as Network;
  return { chainId: s.chainId, genesisHash: s.genesisHash };
}

export async function waitReady(base: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`${base}/status`);
      if (r.ok) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > until) throw new Error(`node at ${base} not ready after ${timeoutMs} ms`);
    await sleep(150);
  }
}

export async function waitRpcReady(rpcUrl: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (r.ok) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > until) throw new Error(`JSON-RPC at ${rpcUrl} not ready after ${timeoutMs} ms`);
    await sleep(100);
  }
}

// ─────────────────────────────────────────────────────────────────────────── CPU from /proc

export interface CpuSample {
  total: number; // seconds
  threads: Map<string, { name: string; s: number }>;
}

const CLK_TCK = 100;

/** Machine-wide busy CPU seconds (all cores) from /proc/stat. */
export function machineCpu(): { busy: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return { busy: (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK };
  } catch {
    return undefined;
  }
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

/** CPU seconds of every thread of every process in a process group (or of one pid). */
export function groupCpu(pgid: number, pidOnly = false): CpuSample {
  const threads = new Map<string, { name: string; s: number }>();
  let total = 0;
  let pids: string[];
  try {
    pids = pidOnly ? [String(pgid)] : readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return { total, threads };
  }
  for (const pid of pids) {
    const st = readStat(`/proc/${pid}/stat`);
    if (!st || (!pidOnly && st.pgrp !== pgid)) continue;
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

export function threadRows(a: CpuSample, b: CpuSample, wallMs: number, top = 6): [string, string][] {
  const rows: [string, number][] = [];
  for (const [k, v] of b.threads) {
    const d = v.s - (a.threads.get(k)?.s ?? 0);
    if (d > 0) rows.push([`  ${k.split('/')[1]} ${v.name}`, d]);
  }
  rows.sort((x, y) => y[1] - x[1]);
  return rows
    .slice(0, top)
    .map(([k, s]) => [k, `${s.toFixed(2)} s  ${(((s * 1000) / wallMs) * 100).toFixed(0)} % of a core`]);
}

/** Waits until processes other than this one and `pgid` use < 0.25 core (1 s samples). */
export async function waitQuiet(maxSeconds: number, pgid: number | null): Promise<number> {
  const until = Date.now() + maxSeconds * 1000;
  for (;;) {
    const m0 = machineCpu();
    const n0 = pgid === null ? null : groupCpu(pgid);
    const c0 = process.cpuUsage();
    await sleep(1000);
    const m1 = machineCpu();
    if (!m0 || !m1) return 0;
    const c = process.cpuUsage(c0);
    const nodeS = n0 && pgid !== null ? groupCpu(pgid).total - n0.total : 0;
    const others = m1.busy - m0.busy - nodeS - (c.user + c.system) / 1e6;
    if (others < 0.25) return others;
    if (Date.now() > until) {
      console.error(`warning: other processes use ${(others * 100).toFixed(0)} % of a core; measuring anyway`);
      return others;
    }
    console.error(`waiting for a quiet machine (other processes use ${(others * 100).toFixed(0)} % of a core)…`);
  }
}

// ─────────────────────────────────────────────────────────────────────────── CPU profiles

interface ProfNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time by function and by package/file of each .cpuprofile in `dir` (one per thread),
 * over the samples taken between `window.from` and `window.to` when given: milliseconds of
 * monoMs(), the same CLOCK_MONOTONIC the V8 profiler stamps its samples with (in µs).
 */
export const monoMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;

export function summarizeProfile(dir: string, window?: { from: number; to: number }, top = 25): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) {
    console.log(`\nno .cpuprofile in ${dir}`);
    return;
  }
  for (const f of files) {
    const p = JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const self = new Map<number, number>();
    let t = p.startTime;
    let total = 0;
    for (let i = 0; i < p.samples.length; i++) {
      t += p.timeDeltas[i];
      const dt = p.timeDeltas[i + 1] ?? 0;
      if (window) {
        const ms = t / 1000;
        if (ms < window.from || ms > window.to) continue;
      }
      self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
      total += dt;
    }
    let idle = 0;
    for (const [id, us] of self) if (byId.get(id)!.callFrame.functionName === '(idle)') idle += us;
    if (total - idle < 50_000) continue; // a thread that did (almost) nothing in the window
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const srcOf = new Map<string, number>(); // self time charged to the nearest src/ frame
    const fn = new Map<string, number>();
    const file = new Map<string, number>();
    for (const [id, us] of self) {
      const n = byId.get(id)!;
      const { functionName, url, lineNumber } = n.callFrame;
      const short = shortUrl(url);
      const key = `${functionName || '(anonymous)'}  ${short}${url ? `:${lineNumber + 1}` : ''}`;
      fn.set(key, (fn.get(key) ?? 0) + us);
      let cur: number | undefined = id;
      let owner = '(no src/ frame: event loop, GC, I/O callbacks)';
      while (cur !== undefined) {
        const c: ProfNode['callFrame'] = byId.get(cur)!.callFrame;
        if (c.url.includes(`${ROOT}/src/`)) {
          owner = `${c.functionName || '(anonymous)'}  ${shortUrl(c.url)}:${c.lineNumber + 1}`;
          break;
        }
        cur = parent.get(cur);
      }
      if (n.callFrame.functionName === '(idle)') owner = '(idle)';
      srcOf.set(owner, (srcOf.get(owner) ?? 0) + us);
      file.set(short || functionName, (file.get(short || functionName) ?? 0) + us);
    }
    const rows = (m: Map<string, number>): [string, string][] =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, us]) => [k, `${(us / 1000).toFixed(0)} ms  ${((us / total) * 100).toFixed(1)} %`]);
    printTable(
      `CPU profile ${basename(f)}: self time by file/package (${(total / 1e6).toFixed(2)} s sampled)`,
      rows(file),
    );
    printTable(`CPU profile ${basename(f)}: self time by function`, rows(fn));
    printTable(`CPU profile ${basename(f)}: time charged to the nearest src/ function on the stack`, rows(srcOf));
  }
}

function shortUrl(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    return `${pkg}/${rest.at(-1)}`;
  }
  return u.startsWith(ROOT) ? u.slice(ROOT.length + 1) : u;
}

/** Transactions in the node's logged blocks above height `h`. */
export const txsInBlocksAfter = (node: SpawnedNode, h: number): number =>
  node.blocks.reduce((a, b) => (b.height > h ? a + b.txs : a), 0);

/**
 * Resolves when every accepted transaction is in a block ('complete'), or with the reason it
 * gave up: no new transaction in a block for 20 s after submission ended, or the timeout.
 * The getters are read on every 20 ms poll (submission is still running when this starts).
 */
export async function watchInclusion(o: {
  node: SpawnedNode;
  afterHeight: number;
  accepted: () => number;
  submitted: () => boolean;
  startWall: number;
  timeoutS: number;
}): Promise<string> {
  let lastTx = 0;
  let lastChangeWall = Date.now();
  for (;;) {
    await sleep(20);
    const inBlocks = txsInBlocksAfter(o.node, o.afterHeight);
    if (inBlocks !== lastTx) {
      lastTx = inBlocks;
      lastChangeWall = Date.now();
    }
    if (o.submitted() && inBlocks >= o.accepted()) return 'complete';
    if (o.submitted() && Date.now() - lastChangeWall > 20_000)
      return 'stalled (no new transaction in a block for 20 s)';
    if (Date.now() - o.startWall > o.timeoutS * 1000) return `timed out after ${o.timeoutS} s`;
  }
}

/**
 * Throughput from the blocks that carried the run's transactions (wall-clock `time` of each
 * "block committed" log line):
 * - execRate: (included − the first block's) ÷ commit-time span first → last block: the first
 *   block's transactions were executed before the span starts;
 * - quietMsPerTx: build+commit ms per transaction of the blocks started after the last
 *   submission (the producer alone; admission competes before).
 */
export function blockRates(withTxs: BlockLog[], startWall: number, submitWallEnd: number) {
  const inBlocks = withTxs.reduce((a, b) => a + b.txs, 0);
  const first = withTxs[0];
  const last = withTxs.at(-1);
  const spanMs = first && last ? last.time - first.time : 0;
  const execRate = spanMs > 0 ? (inBlocks - first!.txs) / (spanMs / 1000) : NaN;
  const e2eMs = last ? last.time - startWall : NaN;
  const buildMs = withTxs.map((b) => b.ms).sort((a, b) => a - b);
  const buildSum = buildMs.reduce((a, b) => a + b, 0);
  const quiet = withTxs.filter((b) => b.time - b.ms > submitWallEnd);
  const quietTxs = quiet.reduce((a, b) => a + b.txs, 0);
  const quietMsPerTx = quietTxs ? quiet.reduce((a, b) => a + b.ms, 0) / quietTxs : NaN;
  return { inBlocks, first, last, spanMs, execRate, e2eMs, buildMs, buildSum, quiet, quietTxs, quietMsPerTx };
}

/**
 * SIGTERM to a whole process group, then waits for every member to exit (a launcher such as
 * npx exits before the node it started has closed RocksDB); SIGKILL after `graceMs`.
 */
export async function stopProcessGroup(
  pgid: number,
  graceMs: number,
  /** 'leader': SIGTERM to the group's leader alone (a `cairn devnet` stops its own nodes; a second SIGTERM of theirs
   * would make them exit without a clean shutdown); the grace over, SIGKILL to the whole group all the same. */
  term: 'group' | 'leader' = 'group',
): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pgid, s);
    } catch {
      /* already gone */
    }
  };
  if (!alive()) return;
  if (term === 'group') signal('SIGTERM');
  else
    try {
      process.kill(pgid, 'SIGTERM');
    } catch {
      /* the leader is gone: the grace below, then the group */
    }
  const until = Date.now() + graceMs;
  while (alive() && Date.now() < until) await sleep(100);
  if (!alive()) return;
  console.error(`node did not stop within ${graceMs / 1000} s of SIGTERM: killing it`);
  signal('SIGKILL');
  const hard = Date.now() + 5_000; // a zombie would keep the group 'alive' forever
  while (alive() && Date.now() < hard) await sleep(100);
}

/**
 * The read benchmarks' reference: bench/lib/bareServer.ts answering `answers` on a free port (their file written in
 * `dir`). `started` receives its process group as soon as it exists, so a caller stops it even if it never serves.
 */
export async function startBareServer(
  answers: CannedAnswer[],
  dir: string,
  started: (pgid: number) => void = () => {},
): Promise<{ url: string; pgid: number }> {
  const file = join(dir, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/bareServer.ts', String(port), file], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started(child.pid!);
  await new Promise<void>((res, rej) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('listening') && res());
    child.once('exit', (c) => rej(new Error(`the bare server exited (${c})`)));
  });
  return { url: `http://127.0.0.1:${port}`, pgid: child.pid! };
}
