/**
 * Memory of a real node holding 50,000 pending hybrid transactions: the resident set (VmRSS)
 * and its peak (VmHWM) of the node's whole process group, read from /proc once /mempool
 * reports every transaction pending. Absolute target: ≤ 1 GiB; no reference.
 *
 *   npx tsx bench/memory.ts [--pending 50000] [--senders 1000] [--runs 3] [--sockets 32]
 *                           [--no-cache] [--keep] [--tiny] [--results-dir DIR]
 *
 * Each run starts a fresh node (spawnNode: src/cli/main.ts node, real RocksDB in a temp dir,
 * `--dev-accounts <senders>`, `--mempool-cap <pending>` — the spec's maximum is 50,000 — and
 * the default 500 ms slots, this node the only validator) and reads its idle RSS, then
 * submits the transfers over HTTP (POST /tx, closed loop, --sockets in flight) and reads the
 * RSS again once GET /mempool counts all of them.
 *
 * Why the producer does not drain the pool: the transactions are TRANSFERs of development
 * accounts 0..senders-1 with nonces 1..pending/senders (≤ 64: the mempool's nonce-gap limit);
 * nonce 0 of each sender is never sent. Each is a valid, fully verified, admitted hybrid
 * transaction, but none can be included before its sender's nonce 0: the producer keeps
 * running its slots over the full pool (it skips a sender with a nonce gap) and commits empty
 * blocks. --slot-ms cannot hold the producer off (its maximum is 1,000 ms: a pool that drains
 * 500 per slot would never reach 50,000 at the admission rate of this machine), and the pool
 * is capped at 50,000 so that it could not hold both a full pool and a draining backlog.
 *
 * Signatures: liboqs on worker threads (bench/lib/sign.ts) before the node starts, cached in
 * the OS temp dir so that a rerun starts at once. RSS is the sum over the process group
 * (the node is one process: its verify workers are threads). The note also gives the idle
 * RSS, the peak, the V8 heap in use (GET /metrics) and the bytes per pending transaction.
 * --tiny: 2,000 pending, 1 run (numbers mean nothing).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MAX_FUTURE_NONCE_GAP, MEMPOOL_MAX } from '../src/protocol/params';
import { fmt, posInt, printTable, sleep, spawnNode, type SpawnedNode } from './lib/harness';
import { showSpread, spread, writeResults, type ResultRow } from './lib/results';
import { signDevTxs, type DevTxItem } from './lib/sign';
import { closedLoop, devAddresses, showTally, tally, txPoster, TX_TIMESTAMP0, warmConnections } from './lib/submit';
import { networkOfSpec } from '../src/chain/genesis';
import { devGenesis } from '../src/chain/devnet';

const { values } = parseArgs({
  options: {
    pending: { type: 'string', default: String(MEMPOOL_MAX) },
    senders: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    sockets: { type: 'string', default: '32' },
    'no-cache': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
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
const PENDING = TINY ? 2000 : posInt(values.pending!, 'pending', MEMPOOL_MAX);
const SENDERS = TINY ? 100 : posInt(values.senders!, 'senders', 1000); // the dev network has ≤ 1000 accounts
const RUNS = TINY ? 1 : posInt(values.runs!, 'runs', 20);
const SOCKETS = TINY ? 8 : posInt(values.sockets!, 'sockets', 1024);
const PER_SENDER = Math.ceil(PENDING / SENDERS);
if (PER_SENDER > MAX_FUTURE_NONCE_GAP)
  throw new Error(
    `--pending / --senders must be ≤ ${MAX_FUTURE_NONCE_GAP} (the mempool's nonce gap): use more senders`,
  );
const GIB = 2 ** 30;
const MIB = 2 ** 20;
const TARGET = GIB;

/** VmRSS and VmHWM (bytes) summed over every process of a process group. */
function groupMemory(pgid: number): { rss: number; hwm: number; pids: number } {
  let rss = 0;
  let hwm = 0;
  let pids = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      status = readFileSync(`/proc/${d}/status`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    if (pgrp !== pgid) continue;
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    rss += kb('VmRSS');
    hwm += kb('VmHWM');
    pids++;
  }
  return { rss, hwm, pids };
}

async function getText(base: string, path: string): Promise<string> {
  const r = await fetch(base + path);
  if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
  return r.text();
}
const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);

interface RunResult {
  idle: number;
  idleHeap: number;
  full: number;
  hwm: number;
  heap: number;
  fillS: number;
  height: number;
}

async function run(i: number, bodies: string[]): Promise<RunResult> {
  // Submitted concurrently, a sender's transactions arrive out of order: allow the whole 64-nonce gap (the pool's
  // content, not its admission rules, is measured).
  let node: SpawnedNode | null = await spawnNode({
    devAccounts: SENDERS,
    slotMs: 500,
    mempoolCap: PENDING,
    logLevel: 'warn',
    extra: ['--mempool-sender-gapped', '64'],
  });
  const stop = async () => {
    const n = node;
    node = null;
    if (n) await n.stop(values.keep!);
  };
  const onInt = () => void stop().then(() => process.exit(130));
  process.once('SIGINT', onInt);
  try {
    await node.ready;
    await sleep(TINY ? 500 : 3000); // settled: genesis written, first blocks, JIT of the idle loop
    const idleMem = groupMemory(node.pgid);
    const idleHeap = metric(await getText(node.httpUrl, '/metrics'), 'nodejs_heap_used_bytes');
    await warmConnections(node.httpUrl, SOCKETS);
    const poster = txPoster(node.httpUrl, SOCKETS);
    const s = await closedLoop(bodies, SOCKETS, (b) => poster.post(b));
    poster.close();
    const t = tally(s.outcome);
    if (t.get('accepted') !== bodies.length) throw new Error(`run ${i + 1}: ${showTally(t)}`);
    const { count } = JSON.parse(await getText(node.httpUrl, '/mempool?limit=1')) as { count: number };
    if (count !== PENDING) throw new Error(`run ${i + 1}: /mempool counts ${count} pending, expected ${PENDING}`);
    await sleep(TINY ? 500 : 3000); // the fill's garbage has a chance to be collected
    const { count: still } = JSON.parse(await getText(node.httpUrl, '/mempool?limit=1')) as { count: number };
    if (still !== PENDING)
      throw new Error(`run ${i + 1}: /mempool counts ${still} pending after the wait (the producer included some?)`);
    const mem = groupMemory(node.pgid);
    const m = await getText(node.httpUrl, '/metrics');
    const r: RunResult = {
      idle: idleMem.rss,
      idleHeap,
      full: mem.rss,
      hwm: mem.hwm,
      heap: metric(m, 'nodejs_heap_used_bytes'),
      fillS: s.wallMs / 1000,
      height: metric(m, 'cairn_height'),
    };
    console.error(
      `run ${i + 1}: idle RSS ${fmt(r.idle / MIB, 0)} MiB; ${PENDING} pending after ${fmt(r.fillS, 1)} s ` +
        `(${fmt(PENDING / r.fillS, 0)} tx/s): ` +
        `RSS ${fmt(r.full / MIB, 0)} MiB, peak ${fmt(r.hwm / MIB, 0)} MiB, V8 heap ` +
        `used ${fmt(r.heap / MIB, 0)} MiB (${mem.pids} process${mem.pids > 1 ? 'es' : ''}), head at ` +
        `height ${r.height}`,
    );
    return r;
  } finally {
    process.off('SIGINT', onInt);
    await stop();
  }
}

async function main(): Promise<void> {
  const to = devAddresses(SENDERS);
  const items: DevTxItem[] = [];
  // Nonce rounds 1..PER_SENDER (never 0: nothing is includable), every sender's nonce n before any's n+1.
  for (let nonce = 1; items.length < PENDING; nonce++)
    for (let s = 0; s < SENDERS && items.length < PENDING; s++)
      items.push({
        dev: s,
        fields: {
          type: 'TRANSFER',
          to: to[(s + 1) % SENDERS],
          amount: '1',
          fee: '1000',
          nonce,
          timestamp: TX_TIMESTAMP0 + items.length,
        },
      });
  const t0 = Date.now();
  const bodies = (
    await signDevTxs(items, {
      cache: !values['no-cache'],
      label: 'memory',
      network: await networkOfSpec(devGenesis(SENDERS).spec),
    })
  ).map((e) => e.body);
  console.error(
    `${bodies.length} transfers of ${SENDERS} senders signed or loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );

  const runs: RunResult[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await run(i, bodies));

  const rss = spread(runs.map((r) => r.full / MIB));
  const hwm = spread(runs.map((r) => r.hwm / MIB));
  const idle = spread(runs.map((r) => r.idle / MIB));
  const heap = spread(runs.map((r) => r.heap / MIB));
  const idleHeap = spread(runs.map((r) => r.idleHeap / MIB));
  const perTx = spread(runs.map((r) => (r.full - r.idle) / PENDING));
  const heapPerTx = spread(runs.map((r) => (r.heap - r.idleHeap) / PENDING));
  printTable(
    `node memory with ${PENDING.toLocaleString('en')} pending transactions (MiB, median (min–max) of ${RUNS})`,
    [
      ['idle RSS (before the fill)', showSpread(idle)],
      ['RSS with the pool full', showSpread(rss)],
      ['peak RSS (VmHWM)', showSpread(hwm)],
      ['V8 heap used: idle → full', `${showSpread(idleHeap)} → ${showSpread(heap)}`],
      ['RSS growth per pending tx (bytes)', showSpread(perTx)],
      ['V8 heap growth per pending tx (bytes)', showSpread(heapPerTx)],
      ['fill rate (tx/s)', showSpread(spread(runs.map((r) => PENDING / r.fillS)))],
    ],
  );
  const row: ResultRow = {
    metric: `memory with ${PENDING.toLocaleString('en')} pending transactions (RSS, MiB)`,
    unit: 'MiB',
    cairn: rss,
    reference: null,
    target: '≤ 1 GiB (1,024 MiB)',
    met: rss.max <= TARGET / MIB && hwm.max <= TARGET / MIB,
    note:
      `VmRSS of the node's process group from /proc once GET /mempool counted ${PENDING.toLocaleString('en')} ` +
      `pending hybrid TRANSFERs of ${SENDERS} senders ` +
      `(nonces 1..${PER_SENDER}, nonce 0 never sent, so the producer — running its 500 ms slots — cannot ` +
      `include them; fresh node per run); ` +
      `peak (VmHWM) ${showSpread(hwm)} MiB; idle node before the fill ${showSpread(idle)} MiB; ` +
      `≈ ${fmt(perTx.median, 0)} bytes RSS per pending tx ` +
      `(V8 heap ${showSpread(idleHeap)} → ${showSpread(heap)} MiB, ≈ ${fmt(heapPerTx.median, 0)} bytes per tx); ` +
      `met = every run's RSS and peak ≤ 1 GiB`,
  };
  const out = writeResults('memory', [row], values['results-dir']);
  console.log(JSON.stringify(out, null, 2));
}

await main();
