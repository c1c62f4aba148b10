/**
 * The soak: a network left running under load, with a node killed and restarted every few minutes and one node
 * pruning, reported per window: what a validator running for months meets, compressed.
 *
 *   npm run soak -- [--minutes 120] [--rate 300] [--window-minutes 10] [--kill-every 5] [--history 2000]
 *                   [--state-cache-mb 128] [--results-dir DIR] [--keep] [--sign-during]
 *   npm run soak -- --report DIR/soak-run.json [--results-dir DIR]     (a run reported again: what it recorded)
 *
 * - `cairn devnet --validators 4` (each node its own process), node 3 with `--history <n>` (it prunes history and
 *   collects state), 500 ms slots.
 * - Load: `--rate` hybrid transfers per second (default 300: 30 % of the 1,000 tx/s ceiling) from 300 development
 *   accounts, all signed on worker threads before the measured window (--sign-during: 20 s ahead, during it),
 *   posted round-robin to the live nodes; one refused for capacity (mempool full, 503) is posted again as a client
 *   honouring Retry-After does (after 1, 2, 4, 8, 16 s), one refused `nonce too far ahead` once its sender's
 *   previous nonce is accepted (each sender a wallet).
 * - Faults: every `--kill-every` minutes node 1 is killed (SIGKILL) and restarted 30 s later with its command.
 * - Sampled every 10 s: each node's RSS, V8 heap and external (Buffer) memory (GET /metrics), its store's size on disk, its missed slots,
 *   its CPU time (/proc/<pid>/stat) and the machine's (/proc/stat); node 0's head and finalized height (each height's
 *   finality: from when it was first seen to when it was seen final); error lines (pino level ≥ 50) in every log.
 * Per window: RSS per node (median and max), heap, external memory and state cache (max), disk growth per node,
 * transactions included, disk per transaction, finality p50/p99 (s), missed slots, CPU (cores used by each node and
 * by the load generator, and how busy the machine was). At the end: whether RSS stayed flat after warm-up — each
 * node's window medians within 10 % of each other (node 1, restarted every few minutes, left out), warm-up lasting
 * until node 0's state cache first dropped a generation (it had filled its budget) — and finality never stopped,
 * and what the rate cost in CPU: the ceiling of this machine for the soak. With --results-dir, what the run recorded
 * (samples, finality) is kept there as soak-run.json, for --report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { COIN } from '../src/primitives/amount';
import { STATE_CACHE_MB_DEFAULT } from '../src/protocol/params';
import { freePort, ROOT, sleep, stopProcessGroup } from './lib/harness';
import { spread, writeResults, type ResultRow } from './lib/results';
import { signDevTxs, type DevTxItem } from './lib/sign';
import { band, warmupEnd } from './lib/soakRules';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '120' },
    rate: { type: 'string', default: '300' },
    'window-minutes': { type: 'string', default: '10' },
    'kill-every': { type: 'string', default: '5' },
    history: { type: 'string', default: '2000' },
    'state-cache-mb': { type: 'string', default: String(STATE_CACHE_MB_DEFAULT) },
    'results-dir': { type: 'string' },
    report: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'sign-during': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const WINDOW_MS = Number(values['window-minutes']) * 60_000;
const KILL_EVERY_MS = Number(values['kill-every']) * 60_000;
const CACHE_BYTES = Number(values['state-cache-mb']) * 2 ** 20;
const SENDERS = 300;
const DEV_ACCOUNTS = SENDERS;
const SAMPLE_MS = 10_000;
const SIGN_AHEAD_S = 20;
/** The whole load is signed before the measured window (--sign-during: 20 s ahead, on the same cores as the nodes). */
const PRESIGN = !values['sign-during'];

interface DevnetNode {
  index: number;
  pid: number;
  http: string;
  dataDir: string;
  command: string[];
}

const get = async (url: string): Promise<any> => {
  const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return r.headers.get('content-type')?.includes('json') ? r.json() : r.text();
};

/** Bytes under `dir`, recursively. */
function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    try {
      n += e.isDirectory() ? du(p) : statSync(p).size;
    } catch {
      /* a file RocksDB just removed */
    }
  }
  return n;
}

const metric = (text: string, name: string): number => {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
};

/** CPU seconds a process has used (utime + stime of /proc/<pid>/stat); NaN when it is gone. */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** The machine's busy and total CPU seconds since boot (/proc/stat's first line: idle and iowait are not busy). */
function machineCpu(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux this runs on

const pct = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

interface Sample {
  t: number;
  rss: number[];
  heap: number[];
  /** Buffers and other memory outside the V8 heap. */
  external: number[];
  /** Bytes in each node's state trie cache: warm-up ends when node 0's first drops a generation (soakRules.ts). */
  cache: number[];
  disk: number[];
  missed: number;
  txs: number;
  /** CPU seconds used so far by each node (summed over its restarts) and by the load generator. */
  cpu: number[];
  loadCpu: number;
  machine: { busy: number; total: number };
  /** Each node's event-loop lag (s, mean of its last second) and its transactions shed for load so far. */
  lag?: number[];
  shed?: number[];
}

/** What a soak recorded: enough to report it again (`--report FILE`) under a changed rule. */
interface SoakRun {
  options: { minutes: number; rate: number; windowMs: number; killEvery: string; cacheBytes: number };
  started: number;
  end: number;
  samples: Sample[];
  finality: { t: number; s: number }[];
  longestStall: number;
  errors: number[];
  /** What became of the accepted transactions, by status (and reason when dropped), read from node 0 at the end. */
  fates?: Record<string, number>;
  /** Each reorganization any node logged: when, and how many blocks it undid. */
  reorgs?: { t: number; depth: number }[];
  posted: number;
  refused: number;
  /** Posts made again after a refusal for capacity (mempool full, 503, no answer). */
  retried?: number;
}

const median = (xs: number[]) => pct(xs, 50);

/** The report of a run: the table per window, the verdict, and the row for bench/results.md. */
function report(run: SoakRun): void {
  const { options: o, started, end, samples, finality, longestStall, errors, posted, refused, retried = 0 } = run;
  const reorgs = run.reorgs ?? [];
  const windows: string[][] = [];
  // RSS per node after warm-up, per window: the median of its 10 s samples (the trend), and the highest (peaks:
  // a major GC that has not run yet, a burst of sync pages served to the restarted node).
  const medianAfterWarmup: number[][] = [];
  const peakAfterWarmup: number[][] = [];
  const warm = warmupEnd(samples, o.cacheBytes) ?? end;
  const warmMin = (warm - started) / 60_000;
  for (let w = 0; started + w * o.windowMs < end; w++) {
    const from = started + w * o.windowMs;
    const to = Math.min(end, from + o.windowMs);
    const inW = samples.filter((s) => s.t >= from && s.t < to);
    if (inW.length < 2) continue;
    const first = inW[0];
    const last = inW[inW.length - 1];
    const maxOf = (f: (s: Sample) => number[]) => [0, 1, 2, 3].map((i) => Math.max(...inW.map((s) => f(s)[i] || 0)));
    const rss = maxOf((s) => s.rss);
    const rssMedian = [0, 1, 2, 3].map((i) => median(inW.map((s) => s.rss[i]).filter((v) => v > 0)));
    if (from >= warm) {
      medianAfterWarmup.push(rssMedian);
      peakAfterWarmup.push(rss);
    }
    const txs = last.txs - first.txs;
    const grew = last.disk.map((d, i) => d - first.disk[i]);
    const f = finality.filter((x) => x.t >= from && x.t < to).map((x) => x.s);
    const seconds = (last.t - first.t) / 1000;
    const cores = last.cpu.map((c, i) => (c - first.cpu[i]) / seconds);
    const busy = (last.machine.busy - first.machine.busy) / (last.machine.total - first.machine.total);
    const mib = (xs: number[]) => xs.map((b) => (b / 2 ** 20).toFixed(0)).join(' / ');
    const undone = reorgs.filter((r) => r.t >= from && r.t < to).map((r) => r.depth);
    const shed = (last.shed ?? []).reduce((a, v, i) => a + Math.max(0, v - (first.shed?.[i] ?? 0)), 0);
    windows.push([
      `${w * (o.windowMs / 60_000)}–${+((to - started) / 60_000).toFixed(1)} min`,
      mib(rssMedian),
      mib(rss),
      mib(maxOf((s) => s.heap)),
      mib(maxOf((s) => s.external)),
      mib(maxOf((s) => s.cache)),
      grew.map((b) => (b / 1e6).toFixed(1)).join(' / '),
      String(txs),
      txs > 0 ? (grew[0] / txs).toFixed(0) : '–',
      `${pct(f, 50).toFixed(1)} / ${pct(f, 99).toFixed(1)}`,
      String(last.missed - first.missed),
      `${cores.map((c) => c.toFixed(2)).join(' / ')} / ${((last.loadCpu - first.loadCpu) / seconds).toFixed(2)}`,
      `${(100 * busy).toFixed(0)} %`,
      `${undone.length} / ${undone.length > 0 ? Math.max(...undone) : 0}`,
      maxOf((s) => s.lag ?? [])
        .map((l) => (1000 * l).toFixed(0))
        .join(' / '),
      String(shed),
    ]);
  }
  const header = [
    'window',
    'RSS MiB median (nodes 0–3)',
    'RSS MiB max',
    'heap used MiB max',
    'external MiB max',
    'state cache MiB max',
    'disk growth MB (node 3 prunes)',
    'txs',
    'bytes/tx (node 0)',
    'finality p50/p99 s',
    'missed slots',
    'CPU cores (nodes 0–3 / load)',
    'machine busy',
    'reorgs / deepest (all nodes)',
    'event-loop lag ms max (nodes 0–3)',
    'shed for load',
  ];
  const md = [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...windows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  console.log(md);
  // Flat: each node's window medians after warm-up stay within a band of 10 % of the lowest (node 1, restarted every
  // few minutes, left out); the peaks are reported beside it.
  const drift = band(medianAfterWarmup, [0, 2, 3]);
  const peakDrift = band(peakAfterWarmup, [0, 2, 3]);
  const warmup =
    warm < end
      ? `warm-up ${warmMin.toFixed(0)} min (until node 0's state cache first dropped a generation, its ` +
        `${(o.cacheBytes / 2 ** 20).toFixed(0)} MiB budget filled), RSS after it (window medians) within ` +
        `${(100 * drift).toFixed(1)} % over ${medianAfterWarmup.length} windows (window peaks: ${(100 * peakDrift).toFixed(1)} %)`
      : 'the state cache never filled its budget: no window after warm-up';
  // What the rate cost: the four nodes' CPU per included transaction (idle work — empty blocks, polls — included),
  // and the rate that cost would fill this machine's cores with.
  const [s0, sN] = [samples[0], samples[samples.length - 1]];
  const nodeSeconds = sN.cpu.reduce((a, c, i) => a + c - s0.cpu[i], 0);
  const loadSeconds = sN.loadCpu - s0.loadCpu;
  const included = sN.txs - s0.txs;
  const msPerTx = (1000 * nodeSeconds) / included;
  const machineBusy = (sN.machine.busy - s0.machine.busy) / (sN.machine.total - s0.machine.total);
  const cores = availableParallelism();
  const cost =
    `the 4 nodes used ${(nodeSeconds / ((sN.t - s0.t) / 1000)).toFixed(2)} of ${cores} cores ` +
    `(${msPerTx.toFixed(1)} CPU ms per included transaction, all 4 nodes), the load generator ` +
    `${(loadSeconds / ((sN.t - s0.t) / 1000)).toFixed(2)}, the machine was ${(100 * machineBusy).toFixed(0)} % busy: ` +
    `at that cost this machine's cores hold about ${Math.floor((cores * 1000) / msPerTx)} tx/s ` +
    `(${o.rate} asked)`;
  const fates = Object.entries(run.fates ?? {})
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  const deepest = reorgs.reduce((m, r) => Math.max(m, r.depth), 0);
  console.log(
    `\naccepted transactions at the end (each on the node that accepted it): ${fates || 'not recorded'}; ${reorgs.length} reorganizations, ` +
      `deepest ${deepest} blocks`,
  );
  console.log(
    `\nposted ${posted} (${refused} refused at first, ${retried} posts again), errors in logs ${errors.join(' / ')}, ` +
      `longest finality stall ${(longestStall / 1000).toFixed(1)} s, ${warmup}; ` +
      cost,
  );
  if (values['results-dir']) {
    const fAll = finality.map((x) => x.s);
    const rows: ResultRow[] = [
      {
        metric:
          `soak: ${o.minutes} min, 4 validators at ${o.rate} tx/s, node 1 killed every ${o.killEvery} min, ` +
          'node 3 pruning: finality p99 (s)',
        unit: 's',
        cairn: spread([pct(fAll, 99)]),
        reference: null,
        target: 'RSS flat within 10 % after warm-up; finality never stuck',
        met: drift <= 0.1 && longestStall < 60_000,
        note:
          `finality p50 ${pct(fAll, 50).toFixed(1)} s, p99 ${pct(fAll, 99).toFixed(1)} s, longest stall ` +
          `${(longestStall / 1000).toFixed(1)} s; ${warmup}; errors ${errors.join('/')}; ` +
          `${posted} posted, ${refused} refused at first, ${retried} posted again; ${cost}; per window below`,
        detail: md,
      },
    ];
    writeResults('soak', rows, values['results-dir']);
  }
}

/**
 * What became of each accepted transaction: the lifecycle of it on the node that accepted it, once the chain has
 * settled (node 0's finalized height caught up with its head, 60 s at most). `unknown` and `pending` after that are
 * what the soak calls lost.
 */
async function fatesOf(accepted: Map<string, string>): Promise<Record<string, number>> {
  const ids = [...accepted.keys()];
  const url = accepted.values().next().value;
  if (!url) return {};
  const settleBy = Date.now() + 60_000;
  for (;;) {
    const s = await get(`${url}/status`).catch(() => undefined);
    if ((s && s.finalizedHeight >= s.height - 2) || Date.now() > settleBy) break;
    await sleep(1_000);
  }
  const fates: Record<string, number> = {};
  let at = 0;
  const worker = async () => {
    while (at < ids.length) {
      const id = ids[at++];
      const r = await fetch(`${accepted.get(id)}/tx/${id}`, { signal: AbortSignal.timeout(10_000) }).catch(
        () => undefined,
      );
      const v = r?.ok ? ((await r.json()) as { status?: string; reason?: string }) : undefined;
      const fate = !v ? 'unknown' : v.status === 'dropped' ? `dropped (${v.reason ?? 'no reason'})` : String(v.status);
      fates[fate] = (fates[fate] ?? 0) + 1;
      if (fates[fate] === 1 && fate !== 'finalized') console.error(`first ${fate}: ${accepted.get(id)}/tx/${id}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return fates;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-soak-'));
  const httpBase = await freePort();
  let rpcBase = await freePort();
  while (Math.abs(rpcBase - httpBase) < 8) rpcBase = await freePort();
  let p2pBase = await freePort();
  while (Math.abs(p2pBase - httpBase) < 8 || Math.abs(p2pBase - rpcBase) < 8) p2pBase = await freePort();
  const devnet = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', 'src/cli/main.ts', 'devnet', '--validators', '4', '--dir', dir],
      ...['--http-base-port', String(httpBase), '--rpc-base-port', String(rpcBase), '--p2p-base-port', String(p2pBase)],
      ...['--slot-ms', '500'],
      ...['--idle-block-ms', '2000', '--dev-accounts', String(DEV_ACCOUNTS), '--log-level', 'info'],
      ...['--history', values.history, '--history-nodes', '3'],
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, STATE_CACHE_MB: values['state-cache-mb'] },
    },
  );
  const restarted = new Map<number, ChildProcess>();
  let started = Date.now();
  let stopping = false;
  try {
    let nodes: DevnetNode[] | undefined;
    for (let i = 0; i < 600 && !nodes; i++) {
      try {
        nodes = JSON.parse(readFileSync(join(dir, 'devnet.json'), 'utf8')).nodes;
      } catch {
        await sleep(100);
      }
    }
    if (!nodes) throw new Error('the devnet did not start');
    for (const n of nodes)
      for (let i = 0; ; i++) {
        if (
          (await fetch(`${n.http}/status`)
            .then((r) => r.ok)
            .catch(() => false)) === true
        )
          break;
        if (i > 600) throw new Error(`node ${n.index} did not start`);
        await sleep(100);
      }
    console.error(`devnet of 4 in ${dir}; soak of ${MINUTES} min at ${RATE} tx/s`);
    const alive = new Set(nodes.map((n) => n.index));
    const status0 = await get(`${nodes[0].http}/status`);
    const network = { chainId: status0.chainId as number, genesisHash: status0.genesisHash as `0x${string}` };

    // --- load: signed before the measured window (all of it: signing is not the nodes' cost, and on this machine it
    // took a core from them), posted at RATE round-robin to the live nodes. A transaction refused for capacity
    // (`mempool full`, a 503, no answer) is posted again a second later, as a client does: dropped, its sender's later
    // nonces would wait for ever and the refusals would feed on themselves.
    const nonces = new Array<number>(SENDERS).fill(0);
    const addresses = Array.from({ length: SENDERS }, (_, i) => deriveKeys(devSecret(i)).address);
    let next = 0;
    const chunk = async (count: number) => {
      const items: DevTxItem[] = [];
      for (let k = 0; k < count; k++) {
        const s = next++ % SENDERS;
        items.push({
          dev: s,
          fields: {
            type: 'TRANSFER',
            to: addresses[(s + 1) % SENDERS],
            amount: '1',
            nonce: nonces[s]++,
            fee: String(COIN),
          },
        });
      }
      return signDevTxs(items, { cache: false, label: 'soak', network });
    };
    const signStarted = Date.now();
    const presigned = PRESIGN ? await chunk(RATE * MINUTES * 60) : [];
    if (PRESIGN)
      console.error(`signed ${presigned.length} transactions in ${Math.round((Date.now() - signStarted) / 1000)} s`);
    started = Date.now();
    let posted = 0;
    let refused = 0;
    let retried = 0;
    /** Every transaction a node answered `accepted`: at the end, each must be final or dropped with its reason. */
    const accepted = new Map<string, string>(); // id → the node that accepted it
    // Posts in flight at most: past it the generator waits (the offered rate falls, and `posted` says so) instead of
    // opening sockets without end while the nodes are slow (a 200 tx/s run died of EMFILE at 20,000 descriptors).
    const MAX_IN_FLIGHT = 1_000;
    // A refused post is sent again as a client honouring Retry-After (1 s) does: after 1 s, then 2, 4, 8, 16 at most.
    // A fixed 1 s retry made the generator post three times the offered rate under overload (a core of this machine).
    const RETRY_MS = 1_000;
    const MAX_RETRY_MS = 16_000;
    const MAX_TRIES = 30;
    let inFlight = 0;
    const retries: { at: number; body: string; tries: number; item: number }[] = [];
    // Each sender is a wallet with presigned nonces (item k: sender k % SENDERS, nonce ⌊k / SENDERS⌋). One refused
    // `nonce too far ahead` waits for its predecessor's acceptance and is then posted again (retried on a clock, its
    // sender's later nonces bounced by the thousand and the generator took a core); one refused for capacity
    // (`mempool full`, a 503, no answer) is retried as above.
    const parked = new Map<number, Map<number, { body: string; tries: number; item: number }>>();
    const acceptedNonces = new Map<number, Set<number>>();
    const senderOf = (item: number) => item % SENDERS;
    const nonceOf = (item: number) => Math.floor(item / SENDERS);
    const capacity = (reason: unknown) => typeof reason === 'string' && /mempool full|retry/.test(reason);
    let rr = 0; // nodes in turn
    const retry = (body: string, tries: number, item: number) => {
      if (tries + 1 >= MAX_TRIES) return;
      retried++;
      const at = Date.now() + Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** tries);
      let i = retries.length;
      while (i > 0 && retries[i - 1].at > at) i--;
      retries.splice(i, 0, { at, body, tries: tries + 1, item });
    };
    const send = (body: string, tries: number, item: number) => {
      const live = [...alive];
      const url = nodes![live[rr++ % live.length]].http;
      const post = async (): Promise<'accepted' | 'capacity' | 'ahead' | 'refused'> => {
        const r = await fetch(`${url}/tx`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        const v = (await r.json().catch(() => ({}))) as {
          accepted?: boolean;
          id?: string;
          reason?: string;
          error?: string;
        };
        if (v.accepted) {
          if (v.id) accepted.set(v.id, url);
          return 'accepted';
        }
        if (r.status === 503 || capacity(v.reason ?? v.error)) return 'capacity';
        return v.reason === 'nonce too far ahead' ? 'ahead' : 'refused';
      };
      inFlight++;
      const [sender, nonce] = [senderOf(item), nonceOf(item)];
      post()
        .catch(() => 'capacity' as const)
        .then((out) => {
          if (out === 'accepted') {
            let done = acceptedNonces.get(sender);
            if (!done) acceptedNonces.set(sender, (done = new Set()));
            done.add(nonce);
            const next = parked.get(sender)?.get(nonce + 1);
            if (next) {
              parked.get(sender)!.delete(nonce + 1);
              retried++;
              send(next.body, next.tries + 1, next.item);
            }
            return;
          }
          if (tries === 0) refused++;
          if (out === 'capacity') retry(body, tries, item);
          else if (out === 'ahead') {
            // Its predecessor accepted meanwhile (the refusal crossed it): offered again on the clock.
            if (acceptedNonces.get(sender)?.has(nonce - 1)) retry(body, tries, item);
            else {
              let waiting = parked.get(sender);
              if (!waiting) parked.set(sender, (waiting = new Map()));
              waiting.set(nonce, { body, tries, item });
            }
          }
        })
        .finally(() => inFlight--);
    };
    const load = (async () => {
      let ready = PRESIGN ? Promise.resolve(presigned) : chunk(RATE * SIGN_AHEAD_S);
      let k = 0;
      const t0 = Date.now();
      while (!stopping) {
        const batch = await ready;
        if (!PRESIGN) ready = chunk(RATE * SIGN_AHEAD_S);
        for (let i = 0; i < batch.length && !stopping; i++, k++) {
          const wait = t0 + (k * 1000) / RATE - Date.now();
          if (wait > 0) await sleep(wait);
          while (inFlight >= MAX_IN_FLIGHT && !stopping) await sleep(5);
          while (retries.length > 0 && retries[0].at <= Date.now()) {
            const r = retries.shift()!;
            send(r.body, r.tries, r.item);
          }
          send(batch[i].body, 0, k);
          posted++;
        }
        if (PRESIGN) break;
      }
      // Past the window, the retries still due are sent (a minute at most): each sender's later nonces wait on them.
      const drainBy = Date.now() + 60_000;
      while (retries.length > 0 && Date.now() < drainBy) {
        while (retries.length > 0 && retries[0].at <= Date.now()) {
          const r = retries.shift()!;
          send(r.body, r.tries, r.item);
        }
        await sleep(100);
      }
    })();

    // --- faults: node 1 killed and restarted.
    const faults = (async () => {
      for (let k = 1; !stopping; k++) {
        while (!stopping && Date.now() < started + k * KILL_EVERY_MS) await sleep(500);
        if (stopping) break;
        alive.delete(1);
        const pid = restarted.get(1)?.pid ?? nodes![1].pid;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
        console.error(`${Math.round((Date.now() - started) / 60_000)} min: node 1 killed`);
        await sleep(30_000);
        const [cmd, ...args] = nodes![1].command;
        const log = openSync(join(nodes![1].dataDir, 'node.log'), 'a');
        restarted.set(
          1,
          spawn(cmd, args, {
            detached: true,
            stdio: ['ignore', log, log],
            env: { ...process.env, STATE_CACHE_MB: values['state-cache-mb'] },
          }),
        );
        alive.add(1);
      }
    })();

    // --- samples and finality.
    const seenAt = new Map<number, number>();
    const finality: { t: number; s: number }[] = [];
    let finalSeen = 0;
    let lastFinalMove = Date.now();
    let longestStall = 0;
    const samples: Sample[] = [];
    // CPU per node, summed over incarnations: a restarted node's counter starts again from 0.
    const cpuDone = [0, 0, 0, 0];
    const cpuLast = [0, 0, 0, 0];
    const nodeCpu = (i: number) => {
      const now = cpuOf(i === 1 ? (restarted.get(1)?.pid ?? nodes![1].pid) : nodes![i].pid);
      if (Number.isNaN(now)) return cpuDone[i] + cpuLast[i];
      if (now < cpuLast[i]) cpuDone[i] += cpuLast[i];
      cpuLast[i] = now;
      return cpuDone[i] + now;
    };
    const load0 = process.cpuUsage();
    const errorsAt = (n: DevnetNode) =>
      readFileSync(join(n.dataDir, 'node.log'), 'utf8')
        .split('\n')
        .filter((l) => /"level":(5\d|6\d)/.test(l)).length;
    // Reorganizations a node logged (consensusActor.ts: from the head's height back to the fork point).
    const reorgsAt = (n: DevnetNode) =>
      readFileSync(join(n.dataDir, 'node.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"reorganization: switching'))
        .map((l) => JSON.parse(l) as { time: number; from: number; fork: number })
        .map((r) => ({ t: r.time, depth: r.from - r.fork }));
    const end = started + MINUTES * 60_000;
    let nextSample = Date.now();
    while (Date.now() < end) {
      try {
        const s = await get(`${nodes[0].http}/status`);
        const now = Date.now();
        for (let h = Math.max(1, s.height - 50); h <= s.height; h++) if (!seenAt.has(h)) seenAt.set(h, now);
        for (let h = finalSeen + 1; h <= s.finalizedHeight; h++) {
          const seen = seenAt.get(h);
          if (seen !== undefined) finality.push({ t: now, s: (now - seen) / 1000 });
          seenAt.delete(h);
        }
        if (s.finalizedHeight > finalSeen) {
          longestStall = Math.max(longestStall, now - lastFinalMove);
          lastFinalMove = now;
          finalSeen = s.finalizedHeight;
        }
      } catch {
        /* node 0 busy: next poll */
      }
      if (Date.now() >= nextSample) {
        nextSample += SAMPLE_MS;
        const per = await Promise.all(
          nodes.map(async (n) => {
            const m = alive.has(n.index) ? await get(`${n.http}/metrics`).catch(() => '') : '';
            return {
              rss: metric(m, 'process_resident_memory_bytes'),
              heap: metric(m, 'nodejs_heap_used_bytes'),
              external: metric(m, 'nodejs_external_memory_bytes'),
              cache: metric(m, 'cairn_state_cache_bytes'),
              missed: metric(m, 'cairn_own_missed_slots_total'),
              lag: metric(m, 'cairn_event_loop_lag_seconds'),
              shed: metric(m, 'cairn_admission_shed_total'),
              disk: du(join(n.dataDir, 'chain')),
            };
          }),
        );
        const stats = await get(`${nodes[0].http}/stats`).catch(() => ({}));
        samples.push({
          t: Date.now(),
          rss: per.map((p) => p.rss),
          heap: per.map((p) => p.heap),
          external: per.map((p) => p.external),
          cache: per.map((p) => p.cache),
          disk: per.map((p) => p.disk),
          missed: per.reduce((a, p) => a + (Number.isNaN(p.missed) ? 0 : p.missed), 0),
          txs: Number((stats as { transactions?: number }).transactions ?? NaN),
          cpu: [0, 1, 2, 3].map(nodeCpu),
          loadCpu: (() => {
            const u = process.cpuUsage(load0);
            return (u.user + u.system) / 1e6;
          })(),
          machine: machineCpu(),
          lag: per.map((p) => (Number.isNaN(p.lag) ? 0 : p.lag)),
          shed: per.map((p) => (Number.isNaN(p.shed) ? 0 : p.shed)),
        });
      }
      await sleep(500);
    }
    longestStall = Math.max(longestStall, Date.now() - lastFinalMove);
    stopping = true;
    await Promise.all([load, faults]);
    const fates = await fatesOf(accepted);
    const run: SoakRun = {
      options: {
        minutes: MINUTES,
        rate: RATE,
        windowMs: WINDOW_MS,
        killEvery: values['kill-every'],
        cacheBytes: CACHE_BYTES,
      },
      started,
      end,
      samples,
      finality,
      longestStall,
      errors: nodes.map(errorsAt),
      reorgs: nodes.flatMap(reorgsAt),
      fates,
      posted,
      refused,
      retried,
    };
    if (values['results-dir']) {
      // A run is 2 hours of the machine: its record must not be lost to a folder not made yet.
      mkdirSync(values['results-dir'], { recursive: true });
      writeFileSync(join(values['results-dir'], 'soak-run.json'), JSON.stringify(run));
    }
    report(run);
  } finally {
    stopping = true;
    for (const c of restarted.values()) c.kill('SIGKILL');
    await stopProcessGroup(devnet.pid!, 20_000, 'leader');
    // --keep: the nodes' data directories and logs stay, for reading what happened.
    if (values.keep) console.log(`kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

(values.report ? Promise.resolve().then(() => report(JSON.parse(readFileSync(values.report!, 'utf8')))) : main()).catch(
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
