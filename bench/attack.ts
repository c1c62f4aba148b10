/**
 * Issue 23: what each flood a stranger can send costs an honest client, against a real node.
 *
 *   npx tsx bench/attack.ts [--only calls,deploys,metatx,squat,reads] [--seconds 8] [--runs 1] [--tiny] [--results-dir DIR]
 *
 * Each flood runs on a fresh `cairn node` process (500 ms slots, an empty block every slot or two), the
 * attackers on their own loopback addresses (test/adversarial/attacks/*), and an honest client
 * on another polling GET /status 20 times a second (test/adversarial/lib.ts honestClient). Each
 * is measured twice in the same run: the honest load alone (the reference), then with the flood.
 * - calls: two clients send batches of 50 looping eth_calls (5,190,000 gas) back to back (row 2);
 * - deploys: 40 looping VM deployments, 5,190,000 gas each, both envelopes (row 3);
 * - metatx: 500 META_TXs, each relaying a transfer (row 4);
 * - squat: 80 accounts with 100 base units each send nonces 1–64, fee 0 (row 7), then honest
 *   fee-paying transfers.
 * - reads (issue 49 part 2): over a chain of 8 blocks of 500 hybrid transfers, one client NOT
 *   exempt, honouring Retry-After, reads JSON `/chain?limit=2000` pages and sends batches of 50
 *   `eth_getBlockByNumber(…, true)`, 8 in flight, for three rate-limit windows; before it, the
 *   serving thread's CPU per kind of request (what the limit's weights are derived from).
 * Targets: the honest client's /status p99 ≤ 100 ms and blocks keep their slots (largest gap
 * between consecutive blocks ≤ 2 slots); deploys: no block over 200 ms to produce; metatx: the
 * slowest META_TX block within 1.5 × a block of as many transfers; squat: honest transfers
 * included within 2 slots.
 */
import { parseArgs } from 'node:util';
import { encodeTx, signTx } from '../src/chain/envelope';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import {
  ATTACKER,
  HONEST,
  honestClient,
  requestFrom,
  spawnTarget,
  waitFor,
  type HonestReport,
  type Target,
} from '../test/adversarial/lib';
import { startVmCallFlood } from '../test/adversarial/attacks/vmCalls';
import { blockMsOf, startDeployFlood } from '../test/adversarial/attacks/vmDeploys';
import { prepareSquat } from '../test/adversarial/attacks/mempoolSquat';
import { metaTxFlood, postAll, transferBlock } from '../test/adversarial/attacks/metaTx';
import { fastHybridSigner } from './lib/sign';
import type { HybridTx } from '../src/protocol/types';
import { RESULTS_DIR, spread, writeResults, type ResultRow } from './lib/results';
import {
  blockBatch,
  buildHeavyChain,
  startHeavyReadFlood,
  type HeavyChain,
} from '../test/adversarial/attacks/heavyReads';
import { CHAIN_PAGE_MEDIA } from '../src/protocol/peers';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seconds: { type: 'string', default: '8' },
    runs: { type: 'string', default: '1' },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
  },
});
const tiny = values.tiny;
const seconds = tiny ? 1 : Number(values.seconds);
const runs = tiny ? 1 : Number(values.runs);
const SLOT_MS = 500;
const OBSERVER = '127.0.0.12'; // the bench's own reads (exempt): never counted against the honest client

interface Measured {
  quiet: HonestReport;
  flood: HonestReport;
  /** The flood's own figure, where it has one (ms or slots), and what it is. */
  extra?: {
    metric: string;
    unit: string;
    value: number;
    reference?: { name: string; value: number };
    target: string;
    met: boolean;
    note?: string;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const read = async (t: Target, path: string): Promise<any> => (await requestFrom(OBSERVER, `${t.url}${path}`)).json;

/**
 * The honest client alone for `ms`, and on until it has seen two consecutive blocks (a short
 * --tiny window can fall between two idle blocks and measure no gap at all); 30 s at most.
 */
async function honestFor(t: Target, ms: number): Promise<HonestReport> {
  const h = honestClient(t.url);
  await sleep(ms);
  for (const deadline = Date.now() + 30_000; h.maxBlockGapMs() === 0 && Date.now() < deadline; ) await sleep(50);
  return h.stop();
}

async function withNode<T>(extra: string[], f: (t: Target) => Promise<T>): Promise<T> {
  // The idle pace at one slot: a block every slot or every other (an idle turn that comes a few ms short waits a slot).
  const t = await spawnTarget([
    '--slot-ms',
    String(SLOT_MS),
    '--idle-block-ms',
    String(SLOT_MS),
    '--log-level',
    'info',
    '--rate-limit-exempt',
    OBSERVER,
    ...extra,
  ]);
  try {
    await waitFor('block 2', async () => (await read(t, '/status')).height >= 2, 60_000);
    return await f(t);
  } finally {
    await t.cleanup();
  }
}

/** The node process's CPU time so far (ms: user + system, every thread), from /proc. */
function cpuMsOf(t: Target): number {
  const f = readFileSync(`/proc/${t.proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms
}

/**
 * The node's CPU per request of each heavy kind, sent one after another from the exempt observer (net of the idle
 * node's own, measured just before): what web/rateLimit.ts COST derives the weights from.
 */
async function readCosts(t: Target, chain: HeavyChain): Promise<string> {
  const idle0 = cpuMsOf(t);
  await sleep(2_000);
  const idlePerMs = (cpuMsOf(t) - idle0) / 2_000;
  const h = (i: number) => chain.heavy[i % chain.heavy.length];
  const kinds: [string, number, (i: number) => Promise<number>][] = [
    ['GET /status', 200, async () => (await requestFrom(OBSERVER, `${t.url}/status`)).text.length],
    ['GET /blocks/:full', 20, async (i) => (await requestFrom(OBSERVER, `${t.url}/blocks/${h(i)}`)).text.length],
    [
      'JSON /chain?limit=2000',
      10,
      async (i) => (await requestFrom(OBSERVER, `${t.url}/chain?from=${h(i)}&limit=2000`)).text.length,
    ],
    [
      'binary /chain?limit=2000',
      10,
      async (i) =>
        (
          await requestFrom(OBSERVER, `${t.url}/chain?from=${h(i)}&limit=2000`, {
            headers: { accept: CHAIN_PAGE_MEDIA },
          })
        ).text.length,
    ],
    [
      'eth_blockNumber',
      200,
      async () =>
        (await requestFrom(OBSERVER, t.rpcUrl, { body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' } })).text
          .length,
    ],
    [
      '50 × eth_getBlockByNumber(full)',
      6,
      async (i) => (await requestFrom(OBSERVER, t.rpcUrl, { body: blockBatch(chain.heavy, i) })).text.length,
    ],
  ];
  const out: string[] = [];
  for (const [name, n, f] of kinds) {
    const c0 = cpuMsOf(t);
    const w0 = performance.now();
    let chars = 0;
    for (let i = 0; i < n; i++) chars += await f(i);
    const cpu = Math.max(0, cpuMsOf(t) - c0 - idlePerMs * (performance.now() - w0)) / n;
    out.push(`${name} ${cpu.toFixed(2)} ms CPU, ${(chars / n / 1e6).toFixed(3)} MB`);
  }
  return out.join('; ');
}

const SCENARIOS: Record<string, { title: string; run(): Promise<Measured> }> = {
  calls: {
    title: 'two clients flooding looping 50-call eth_call batches',
    run: () => {
      const flooders = ['127.0.0.66', '127.0.0.67'];
      // The flooders are exempt from the rate limit: the flood at full strength tests isolation, not the limiter.
      return withNode(['--rate-limit-exempt', [OBSERVER, ...flooders].join(',')], async (t) => {
        const quiet = await honestFor(t, seconds * 1000);
        const attack = startVmCallFlood(t.rpcUrl, flooders);
        const flood = await honestFor(t, seconds * 1000);
        const hits = await attack.stop();
        return {
          quiet,
          flood,
          extra: {
            metric: 'eth_call flood: looping batches answered',
            unit: 'batches',
            value: hits.batches,
            target: 'never a hang',
            met: true,
            note: `errors: ${JSON.stringify(hits.errors)}`,
          },
        };
      });
    },
  },
  deploys: {
    title: '40 looping VM deployments (5,190,000 gas each)',
    run: () =>
      withNode(['--rate-limit-exempt', `${OBSERVER},127.0.0.66`], async (t) => {
        const quiet = await honestFor(t, seconds * 1000);
        const honest = honestClient(t.url);
        const deploys = await startDeployFlood(t, { count: tiny ? 4 : 40 });
        const stats = await deploys.stop(240_000);
        const flood = await honest.stop();
        const ms = await blockMsOf(
          t.output,
          stats.blocks.map((b) => b.height),
        );
        // A block the log does not name (a line lost to a busy pipe) is left out rather than turning every figure into
        // NaN.
        const floodMs = stats.blocks.map((b) => ms.get(b.height)).filter((x): x is number => x !== undefined);
        const others = [...ms].filter(([h]) => !stats.blocks.some((b) => b.height === h)).map(([, v]) => v);
        const slowest = Math.max(...floodMs);
        const quietMedian = others.sort((a, b) => a - b)[others.length >> 1] ?? NaN;
        return {
          quiet,
          flood,
          extra: {
            metric: 'looping deployments: slowest block to produce',
            unit: 'ms',
            value: slowest,
            reference: { name: 'median empty block, same run', value: quietMedian },
            target: '≤ 200 ms',
            met: slowest <= 200,
            note:
              `${stats.included.size}/${stats.sent} included over ${stats.blocks.length} blocks; their ` +
              `median ${[...floodMs].sort((a, b) => a - b)[floodMs.length >> 1]} ms (${floodMs.join(', ')})`,
          },
        };
      }),
  },
  metatx: {
    title: '500 META_TXs relaying transfers',
    run: () =>
      withNode(['--dev-accounts', '1000', '--rate-limit-exempt', `${OBSERVER},${ATTACKER}`], async (t) => {
        const count = tiny ? 20 : 500;
        const sign = await fastHybridSigner();
        // The honest twin first (the users' transfers, nonce 0), then the flood (their relayed transfers, nonce 1).
        const twin = transferBlock({ count, sign, network: t.network });
        const flood = metaTxFlood({ count, sign, userNonce: 1, network: t.network });
        /** Block production per transaction (ms), over the blocks that carried `txs`. */
        const perTx = async (txs: HybridTx[]): Promise<number> => {
          const sent = await postAll(t.url, txs, { from: ATTACKER });
          await waitFor('all included', async () => (await read(t, '/mempool?limit=1')).count === 0, 120_000, 200);
          const heights = new Set<number>();
          for (const id of sent.accepted) heights.add((await read(t, `/tx/${id}`)).blockHeight as number);
          const ms = await blockMsOf(t.output, heights);
          let total = 0;
          let n = 0;
          for (const h of heights) {
            total += ms.get(h) ?? NaN;
            n += (await read(t, `/blocks/${h}`)).txCount as number;
          }
          return total / n;
        };
        const quiet = await honestFor(t, seconds * 1000);
        const transfers = await perTx(twin);
        const honest = honestClient(t.url);
        const metas = await perTx(flood);
        const floodReport = await honest.stop();
        const ratio = metas / transfers;
        return {
          quiet,
          flood: floodReport,
          extra: {
            metric: 'META_TX blocks: production per transaction',
            unit: 'ms',
            value: metas,
            reference: { name: 'transfer blocks, same node', value: transfers },
            target: '≤ 1.5 × transfers',
            met: ratio <= 1.5,
            note: `× ${ratio.toFixed(2)}`,
          },
        };
      }),
  },
  squat: {
    title: 'mempool squat: 80 accounts × nonces 1–64, fee 0',
    run: () =>
      withNode(['--rate-limit-exempt', OBSERVER], async (t) => {
        const quiet = await honestFor(t, seconds * 1000);
        const honest = honestClient(t.url);
        const squat = await prepareSquat(
          t.url,
          tiny ? { accounts: 8, nonces: 20, from: OBSERVER } : { from: OBSERVER },
        );
        const report = await squat.flood();
        // Honest users (development accounts 1–3): one fee-paying transfer each, inclusion in slots after submission.
        const users = [1, 2, 3].map((i) => deriveKeys(devSecret(i)));
        const slots: number[] = [];
        for (const k of users) {
          const acc = await read(t, `/address/${k.address}`);
          const tx = signTx(
            k,
            { type: 'TRANSFER', to: users[0].address, amount: '5', fee: '1000', nonce: acc.nextNonce },
            t.network,
          );
          const sent = Date.now();
          const v = await requestFrom(HONEST, `${t.url}/tx`, { body: encodeTx(tx) });
          if (!v.json?.accepted) throw new Error(`honest transfer refused under the squat: ${JSON.stringify(v.json)}`);
          const at = await waitFor(
            'honest transfer included',
            async () => {
              const r = await read(t, `/tx/${tx.id}`);
              return r?.blockHeight !== undefined ? (r.blockHeight as number) : undefined;
            },
            30_000,
            50,
          );
          const block = await read(t, `/blocks/${at}`);
          slots.push(Math.max(0, Math.floor(block.timestamp / SLOT_MS) - Math.floor(sent / SLOT_MS)));
        }
        const flood = await honest.stop();
        const worst = Math.max(...slots);
        return {
          quiet,
          flood,
          extra: {
            metric: 'mempool squat: honest transfer included after',
            unit: 'slots',
            value: worst,
            target: '≤ 2 slots',
            met: worst <= 2,
            note:
              `squat: ${report.accepted} accepted of ${report.sent}, cost ${report.costBaseUnits} base units; ` +
              `refused ${JSON.stringify(report.refused)}`,
          },
        };
      }),
  },
  reads: {
    title: 'one client at the limit reading JSON /chain pages and 50-call full-block batches',
    run: () =>
      // Only the observer is exempt: the reader is limited like any client.
      withNode(['--dev-accounts', '500'], async (t) => {
        const chain = await buildHeavyChain(t, { blocks: tiny ? 2 : 8, from: OBSERVER });
        const costs = await readCosts(t, chain);
        console.error(`  CPU per request: ${costs}`);
        const floodMs = tiny ? 3_000 : Math.max(seconds * 1000, 30_000); // three windows of the limit
        const c0 = cpuMsOf(t);
        const quiet = await honestFor(t, floodMs);
        const c1 = cpuMsOf(t);
        const w1 = performance.now();
        const attack = startHeavyReadFlood(t, chain, { pagesInFlight: 1, batchesInFlight: 8 });
        const flood = await honestFor(t, floodMs);
        const hits = await attack.stop();
        const cpuQuiet = (c1 - c0) / (floodMs / 1000);
        const cpuFlood = (cpuMsOf(t) - c1) / ((performance.now() - w1) / 1000);
        return {
          quiet,
          flood,
          extra: {
            metric: "heavy reads: the node's CPU while one client reads at the limit",
            unit: 'ms per s',
            value: cpuFlood,
            reference: { name: 'the honest load alone', value: cpuQuiet },
            target: '≤ quiet + 100 ms per s (a tenth of a core)',
            met: cpuFlood <= cpuQuiet + 100,
            note:
              `the reader got ${hits.pages} JSON pages (${hits.pageBlocks} blocks, ${(hits.pageBytes / 1e6).toFixed(1)} MB) ` +
              `and ${hits.batches} batches (${(hits.batchBytes / 1e6).toFixed(1)} MB) in ${floodMs / 1000} s, ` +
              `${hits.refused} 429s, errors ${JSON.stringify(hits.errors)}; CPU per request: ${costs}`,
          },
        };
      }),
  },
};

const chosen = Object.keys(SCENARIOS).filter((k) => !values.only || values.only.split(',').includes(k));
const rows: ResultRow[] = [];
for (const name of chosen) {
  const s = SCENARIOS[name];
  const results: Measured[] = [];
  for (let i = 0; i < runs; i++) {
    console.error(`== ${name} (run ${i + 1}/${runs}): ${s.title}`);
    results.push(await s.run());
  }
  const p99 = spread(results.map((r) => r.flood.p99));
  const quietP99 = spread(results.map((r) => r.quiet.p99));
  const gap = spread(results.map((r) => r.flood.maxBlockGapMs));
  const quietGap = spread(results.map((r) => r.quiet.maxBlockGapMs));
  const f = (x: number) => x.toFixed(1);
  rows.push({
    metric: `attack, ${s.title}: honest GET /status p99`,
    unit: 'ms',
    cairn: p99,
    reference: { name: 'the same honest load, no flood', value: quietP99 },
    target: '≤ 100 ms',
    met: p99.median <= 100,
    note:
      `p50 ${f(results[0].flood.p50)} ms under the flood ` +
      `(${f(results[0].quiet.p50)} without); ${results[0].flood.failures} failed ` +
      `of ${results[0].flood.requests}`,
  });
  rows.push({
    metric: `attack, ${s.title}: largest gap between blocks`,
    unit: 'ms',
    cairn: gap,
    reference: { name: 'the same honest load, no flood', value: quietGap },
    // Quiet, the idle pace gives a block every 1–2 slots; more than 2 slots (+10 % for timer jitter) is a slot lost.
    target: `blocks keep their slots (≤ 2 slots, ${2 * SLOT_MS} ms +10 %)`,
    met: gap.median <= 2.2 * SLOT_MS,
  });
  const extras = results.map((r) => r.extra).filter((x) => x !== undefined);
  if (extras.length) {
    const e = extras[0]!;
    const v = spread(extras.map((x) => x!.value));
    rows.push({
      metric: `attack, ${e.metric}`,
      unit: e.unit,
      cairn: v,
      reference: e.reference ? { name: e.reference.name, value: spread(extras.map((x) => x!.reference!.value)) } : null,
      target: e.target,
      met: extras.every((x) => x!.met),
      note: e.note,
    });
  }
  for (const r of rows.slice(-3))
    console.error(
      `  ${r.metric}: ${f(r.cairn.median)} ${r.unit} ` +
        `(reference ${r.reference ? f(r.reference.value.median) : '–'}) ` +
        `target ${r.target}: ${r.met ? 'met' : 'NOT met'}`,
    );
}
// A run of some floods keeps the other floods' rows of the file (this run's rows replace those of the same metric).
const previous = join(values['results-dir'] ?? RESULTS_DIR, 'attack.json');
const ran = new Set(rows.map((r) => r.metric));
const kept: ResultRow[] =
  values.only && existsSync(previous)
    ? (JSON.parse(readFileSync(previous, 'utf8')).rows as ResultRow[]).filter((r) => !ran.has(r.metric))
    : [];
writeResults('attack', [...kept, ...rows], values['results-dir']);
