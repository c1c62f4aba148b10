/**
 * Time to finality on a network of 4 validators: each its own process with its own RocksDB,
 * on loopback ports (`cairn devnet` through test/helpers/devnet.ts), at the production slot
 * length (500 ms) and idle pace (5 s), under a light, steady transfer load (a few hybrid-signed
 * transfers per slot from 4 dev accounts, each sent to another node).
 *
 * Measured without polling, from each node's own log: every node logs "block committed" (pino
 * `time`, height, hash, finalizedHeight) for each block it commits, its own or a peer's, and
 * finality is part of the committed state, so a node's finalizedHeight only moves at such a
 * line. For every block of a window of --blocks heights and for every node:
 *   commit → final = time of the first line with finalizedHeight ≥ h
 *                    − time of the line that committed (that node's copy of) block h.
 * p50 and p99 over all (block, node) pairs of a run; each run is a fresh devnet (fresh slot
 * timer phases); the median of the runs with min–max.
 *
 * Reference: the rule's minimum for the last block to wait. Finality is by checkpoints
 * (src/consensus/checkpoints.ts): epochs of n blocks, a checkpoint (an epoch's first block)
 * final once ⌊2n/3⌋+1 have voted in the next epoch, the blocks after it with the next
 * checkpoint. With round-robin producers, n = 4: the checkpoint waits n + 3 − 1 = 6 slots, the
 * block after it 2n + 3 − 2 = 9 (the longest wait), the others 8 and 7. Target: p99 ≤ the
 * longest wait + 1 slot.
 *
 *   npx tsx bench/finality.ts [--blocks 60] [--runs 3] [--slot-ms 500] [--txs-per-slot 4]
 *                             [--tiny] [--results-dir DIR] [--keep-logs DIR]
 *
 * --tiny: 8 blocks at the production slot, one run (numbers meaningless; 200 ms slots once
 * missed the warm-up while the rest of the test suite loaded the machine). --keep-logs: copy
 * each run's node logs there.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultNodeConfig } from '../src/config/config';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { finalityThreshold } from '../src/consensus/finality';
import { COIN } from '../src/primitives/amount';
import { startDevnet, type Devnet } from '../test/helpers/devnet';
import { fmt, groupCpu, machineCpu, pct, posInt, printTable, sleep } from './lib/harness';
import { showSpread, spread, writeResults, type ResultRow } from './lib/results';
import { signDevTxs, type DevTxItem } from './lib/sign';
import { networkAt } from './lib/harness';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '60' },
    runs: { type: 'string', default: '3' },
    'slot-ms': { type: 'string', default: String(defaultNodeConfig.slotMs) },
    'txs-per-slot': { type: 'string', default: '4' },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
    'keep-logs': { type: 'string' },
  },
});
const TINY = values.tiny;
const N = 4;
const BLOCKS = TINY ? 8 : posInt(values.blocks!, 'blocks', 2_000, 10);
// test/helpers/devnet.ts takes its ports from a range of 40 per process: 8 per devnet.
const RUNS = TINY ? 1 : posInt(values.runs!, 'runs', 4);
const SLOT_MS = TINY ? 500 : posInt(values['slot-ms']!, 'slot-ms', 1000, 50);
const TXS_PER_SLOT = TINY ? 2 : posInt(values['txs-per-slot']!, 'txs-per-slot', 100);
/** The production default (src/config): empty blocks on an idle chain every 5 s. */
const IDLE_MS = Math.max(SLOT_MS, defaultNodeConfig.idleBlockMs);
const NEED = finalityThreshold(N);
/** The devnet's development accounts (cairn devnet --dev-accounts: devSecret(i)). */
const DEV_ADDRESSES = Array.from({ length: N }, (_, i) => deriveKeys(devSecret(i)).address);
/** The longest wait of a block when every validator produces in turn: 2n + ⌊2n/3⌋+1 − 2 slots. */
const MIN_SLOTS = 2 * N + NEED - 2;
const MIN_MS = MIN_SLOTS * SLOT_MS;
const TARGET_MS = MIN_MS + SLOT_MS;
/**
 * Blocks under load before the window opens. The first ~15 s of a fresh devnet are a start-up
 * transient (4 processes compiling and JIT-warming on the same cores: imports of 1–2 s, forks),
 * not the network's steady state: 30 blocks (15 s at 500 ms slots), then the last 2n by all n.
 */
const WARMUP_BLOCKS = TINY ? 4 : Math.max(8, Math.ceil(15_000 / SLOT_MS));

interface Commit {
  time: number;
  height: number;
  hash: string;
  finalizedHeight: number;
  txs: number;
}

/** The "block committed" lines of a node's log (pino JSON). */
function commitsOf(logFile: string): Commit[] {
  const out: Commit[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"block committed"')) continue;
    try {
      const j = JSON.parse(line) as Commit & { msg: string };
      if (j.msg === 'block committed')
        out.push({ time: j.time, height: j.height, hash: j.hash, finalizedHeight: j.finalizedHeight, txs: j.txs });
    } catch {
      /* a line cut by the copy */
    }
  }
  return out;
}

interface RunResult {
  /** commit → final, ms, one per (block, node) */
  lat: number[];
  /** block timestamp (the producer's slot tick) → final on each node, ms */
  fromTs: number[];
  /** the producer's own commit → final on the producer, ms */
  own: number[];
  heights: [number, number];
  emptyBlocks: number;
  missedSlots: number;
  reorgs: number;
  refused: number;
  sent: number;
  /** per validator: median of (block timestamp mod slot) over its blocks, ms (its slot timer's phase) */
  phases: number[];
  /** median ms from the producer's commit to the other nodes' commits (gossip + import) */
  importLag: number;
  /** CPU of each node process over the window, in cores; the whole machine's busy cores */
  nodeCpu: number[];
  machineCores: number;
}

async function oneRun(run: number): Promise<RunResult> {
  // Transfers from dev accounts 0..3 (the devnet's), each to the next account, one nonce after another.
  const slots = BLOCKS + WARMUP_BLOCKS + 120; // margin: a slow start, the tail that finalizes the window
  const count = slots * TXS_PER_SLOT;
  const items: DevTxItem[] = [];
  for (let i = 0; i < count; i++) {
    const dev = i % N;
    items.push({
      dev,
      fields: {
        type: 'TRANSFER',
        to: DEV_ADDRESSES[(dev + 1) % N],
        amount: String(1_000 + i),
        nonce: Math.floor(i / N),
        fee: String(COIN),
      },
    });
  }
  console.error(`run ${run + 1}/${RUNS}: starting 4 validators (slot ${SLOT_MS} ms, idle ${IDLE_MS} ms)…`);
  const net: Devnet = await startDevnet(N, { slotMs: SLOT_MS, idleBlockMs: IDLE_MS });
  let stopLoad = false;
  try {
    // Signed for the devnet's genesis (liboqs on worker threads) before the warm-up: nothing competes with the measured
    // window.
    const envs = await signDevTxs(items, { label: 'finality', network: await networkAt(net.nodes[0].http) });
    if (net.accounts.slice(0, N).some((a, i) => a.address !== DEV_ADDRESSES[i]))
      throw new Error("the devnet's dev accounts are not devSecret(0..3)");

    // The load: one transfer every slot/TXS_PER_SLOT ms, on an absolute schedule, to nodes in turn.
    let sent = 0;
    let refused = 0;
    let firstRefusal = '';
    const load = (async () => {
      const t0 = performance.now();
      const gap = SLOT_MS / TXS_PER_SLOT;
      const inflight: Promise<void>[] = [];
      for (let i = 0; i < envs.length && !stopLoad; i++) {
        const wait = t0 + i * gap - performance.now();
        if (wait > 0) await sleep(wait);
        const target = (i + Math.floor(i / N)) % N; // each sender's next transfer to another node
        sent++;
        inflight.push(
          fetch(`${net.nodes[target].http}/tx`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: envs[i].body,
            signal: AbortSignal.timeout(10_000),
          })
            .then((r) => r.json() as Promise<{ accepted?: boolean; reason?: string }>)
            .then((r) => {
              if (r.accepted !== true) {
                refused++;
                firstRefusal ||= JSON.stringify(r).slice(0, 200);
              }
            })
            .catch((e: Error) => {
              refused++;
              firstRefusal ||= e.message;
            }),
        );
      }
      await Promise.all(inflight);
    })();

    const status = (i: number) => net.get(i, '/status') as Promise<{ height: number; finalizedHeight: number }>;
    const startHead = (await status(0)).height;
    // Warm-up: WARMUP_BLOCKS under load, the last 2N by all N producers.
    const warmDeadline = Date.now() + 60_000 + WARMUP_BLOCKS * SLOT_MS * 4;
    let from = 0;
    for (;;) {
      if (Date.now() > warmDeadline)
        throw new Error('the devnet did not settle into producing in every slot within the warm-up');
      const head = (await status(0)).height;
      if (head >= startHead + WARMUP_BLOCKS) {
        const producers = new Set<string>();
        for (let h = head - 2 * N + 1; h <= head; h++) producers.add((await net.get(0, `/blocks/${h}`)).producer);
        if (producers.size === N) {
          from = head + 1;
          break;
        }
      }
      await sleep(SLOT_MS);
    }
    const to = from + BLOCKS - 1;
    const cpuAt = () => ({
      wall: Date.now(),
      nodes: net.nodes.map((n) => groupCpu(n.pid, true).total),
      machine: machineCpu()?.busy ?? NaN,
    });
    const cpu0 = cpuAt();
    console.error(`run ${run + 1}: window heights ${from}..${to}`);
    // Until every node has the window's last block final (and the load still running meanwhile).
    const endDeadline = Date.now() + (BLOCKS + 40) * SLOT_MS * 3 + 30_000;
    let warned = false;
    for (;;) {
      const ss = await Promise.all(
        net.nodes.map((n) => status(n.index).catch(() => ({ height: 0, finalizedHeight: 0 }))),
      );
      if (ss.every((s) => s.finalizedHeight >= to)) break;
      if (Date.now() > endDeadline) throw new Error(`window end ${to} not final on every node: ${JSON.stringify(ss)}`);
      if (sent >= envs.length && !warned) {
        warned = true;
        console.error(
          'warning: the pre-signed load ran out before the window was final (its last blocks may be empty)',
        );
      }
      await sleep(SLOT_MS);
    }
    const cpu1 = cpuAt();
    stopLoad = true;
    await load;
    // Let the last log lines reach the files.
    await sleep(300);

    // The window's blocks as node 0 has them final (the same on every node: the devnet helper checks).
    const blocks = new Map<number, { hash: string; producer: string; timestamp: number; txs: number }>();
    for (let h = from - 1; h <= to; h++) {
      const b = await net.get(0, `/blocks/${h}`);
      blocks.set(h, {
        hash: b.hash,
        producer: b.producer,
        timestamp: b.timestamp,
        txs: b.txCount ?? b.txs?.length ?? 0,
      });
    }
    const validators = net.nodes.map((n) => n.validator);
    const logs = net.nodes.map((n) => commitsOf(join(n.dataDir, 'node.log')));
    if (values['keep-logs']) {
      const dir = join(values['keep-logs'], `run${run + 1}`);
      mkdirSync(dir, { recursive: true });
      for (const n of net.nodes) copyFileSync(join(n.dataDir, 'node.log'), join(dir, `node${n.index}.log`));
      console.error(`logs kept in ${dir}`);
    }

    const lat: number[] = [];
    const fromTs: number[] = [];
    const own: number[] = [];
    const lags: number[] = [];
    let reorgs = 0;
    const commitAt = logs.map(() => new Map<string, number>()); // hash → commit time, per node
    for (let j = 0; j < N; j++)
      for (const c of logs[j]) if (c.height >= from && c.height <= to) commitAt[j].set(c.hash, c.time);
    for (let j = 0; j < N; j++) {
      const perHeight = new Map<number, number>();
      for (const c of logs[j])
        if (c.height >= from && c.height <= to) perHeight.set(c.height, (perHeight.get(c.height) ?? 0) + 1);
      for (const k of perHeight.values()) reorgs += k - 1;
    }
    for (let h = from; h <= to; h++) {
      const b = blocks.get(h)!;
      const producer = validators.indexOf(b.producer);
      for (let j = 0; j < N; j++) {
        const c = commitAt[j].get(b.hash);
        const f = logs[j].find((x) => x.finalizedHeight >= h);
        if (c === undefined || !f)
          throw new Error(`node ${j}: no log line committing or finalizing block ${h} (${b.hash})`);
        lat.push(f.time - c);
        fromTs.push(f.time - b.timestamp);
        if (j === producer) own.push(f.time - c);
        else if (producer >= 0) {
          const pc = commitAt[producer].get(b.hash);
          if (pc !== undefined) lags.push(c - pc);
        }
      }
    }
    let missedSlots = 0;
    let emptyBlocks = 0;
    for (let h = from; h <= to; h++) {
      const b = blocks.get(h)!;
      missedSlots += Math.max(
        0,
        Math.floor(b.timestamp / SLOT_MS) - Math.floor(blocks.get(h - 1)!.timestamp / SLOT_MS) - 1,
      );
      if (b.txs === 0) emptyBlocks++;
    }
    const median = (xs: number[]) =>
      xs.length
        ? pct(
            [...xs].sort((a, b) => a - b),
            0.5,
          )
        : NaN;
    const phases = validators.map((v) =>
      median([...blocks.values()].filter((b) => b.producer === v).map((b) => b.timestamp % SLOT_MS)),
    );
    if (refused) console.error(`run ${run + 1}: ${refused} of ${sent} transfers refused (first: ${firstRefusal})`);
    const wallS = (cpu1.wall - cpu0.wall) / 1000;
    const nodeCpu = cpu1.nodes.map((c, i) => (c - cpu0.nodes[i]) / wallS);
    const machineCores = (cpu1.machine - cpu0.machine) / wallS;
    return {
      lat,
      fromTs,
      own,
      heights: [from, to],
      emptyBlocks,
      missedSlots,
      reorgs,
      refused,
      sent,
      phases,
      importLag: median(lags),
      nodeCpu,
      machineCores,
    };
  } finally {
    stopLoad = true;
    await net.stop();
  }
}

async function main(): Promise<void> {
  const results: RunResult[] = [];
  for (let r = 0; r < RUNS; r++) {
    const res = await oneRun(r);
    results.push(res);
    const s = [...res.lat].sort((a, b) => a - b);
    const t = [...res.fromTs].sort((a, b) => a - b);
    printTable(`run ${r + 1}: heights ${res.heights[0]}..${res.heights[1]}, ${s.length} (block, node) pairs`, [
      [
        'commit → final p50 / p99 / max (ms)',
        `${s.length ? pct(s, 0.5) : '–'} / ${pct(s, 0.99)} / ${s.at(-1)}  ` +
          `(${fmt(pct(s, 0.5) / SLOT_MS, 2)} / ${fmt(pct(s, 0.99) / SLOT_MS, 2)} slots)`,
      ],
      ['block timestamp → final p50 / p99 (ms)', `${pct(t, 0.5)} / ${pct(t, 0.99)}`],
      ['slot timer phase per validator (ms into its slot)', res.phases.map((p) => fmt(p, 0)).join(', ')],
      ['gossip + import lag, median (ms)', fmt(res.importLag, 0)],
      ['missed slots / reorged commits / empty blocks', `${res.missedSlots} / ${res.reorgs} / ${res.emptyBlocks}`],
      ['transfers sent / refused', `${res.sent} / ${res.refused}`],
      [
        'CPU per node / whole machine busy (cores)',
        `${res.nodeCpu.map((c) => fmt(c, 2)).join(', ')} / ${fmt(res.machineCores, 2)}`,
      ],
    ]);
  }
  const p50s = results.map((r) =>
    pct(
      [...r.lat].sort((a, b) => a - b),
      0.5,
    ),
  );
  const p99s = results.map((r) =>
    pct(
      [...r.lat].sort((a, b) => a - b),
      0.99,
    ),
  );
  const ts50 = results.map((r) =>
    pct(
      [...r.fromTs].sort((a, b) => a - b),
      0.5,
    ),
  );
  const ts99 = results.map((r) =>
    pct(
      [...r.fromTs].sort((a, b) => a - b),
      0.99,
    ),
  );
  const p50 = spread(p50s);
  const p99 = spread(p99s);
  const ref = {
    name: `rule's longest wait: epochs of ${N}, ${NEED} votes = ${MIN_SLOTS} slots of ${SLOT_MS} ms`,
    value: spread([MIN_MS]),
  };
  const target = `≤ ${TARGET_MS} ms (the rule's longest wait + 1 slot)`;
  const met = p99.median <= TARGET_MS;
  const missed = results.reduce((a, r) => a + r.missedSlots, 0);
  const reorgs = results.reduce((a, r) => a + r.reorgs, 0);
  const slots = (v: number) => `${(v / SLOT_MS).toFixed(2)} slots`;
  const how =
    `${N} validator processes on loopback, ${SLOT_MS} ms slots, ${TXS_PER_SLOT} transfers per slot sent round ` +
    `the nodes; ${RUNS} fresh devnets × ${BLOCKS} blocks × ${N} nodes; after ${WARMUP_BLOCKS} warm-up blocks; ` +
    `measured from each node's own "block committed" log lines ` +
    `(its commit of the block → its first commit with finalizedHeight ≥ it), no polling`;
  const rows: ResultRow[] = [
    {
      metric: 'multi-node, 4 validators: time to finality p50 (ms)',
      unit: 'ms',
      cairn: p50,
      reference: ref,
      target,
      met: p50.median <= TARGET_MS,
      note:
        `${slots(p50.median)}; from the block's timestamp (producer's slot tick) ` +
        `p50 ${Math.round(spread(ts50).median)} ms. ${how}`,
    },
    {
      metric: 'multi-node, 4 validators: time to finality p99 (ms)',
      unit: 'ms',
      cairn: p99,
      reference: ref,
      target,
      met,
      note:
        `${slots(p99.median)}; from the block's timestamp p99 ${Math.round(spread(ts99).median)} ms; ${missed} ` +
        `missed slots and ${reorgs} re-committed heights in the windows`,
    },
  ];
  writeResults('finality', rows, values['results-dir']);
  printTable('time to finality, 4 validators (median of runs, min–max)', [
    ['p50 (ms)', `${showSpread(p50)}  = ${slots(p50.median)}`],
    ['p99 (ms)', `${showSpread(p99)}  = ${slots(p99.median)}`],
    ["rule's longest wait (ms)", `${MIN_MS} (${MIN_SLOTS} slots)`],
    ['target: p99 ≤ (ms)', `${TARGET_MS} → ${met ? 'met' : 'MISSED'}`],
  ]);
}

await main();
