/**
 * Issue 23: what each flood a stranger can send costs an honest client, against a real node.
 *
 *   npx tsx bench/attack.ts [--only calls,deploys,metatx,squat] [--seconds 8] [--runs 1] [--tiny] [--results-dir DIR]
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
import { spread, writeResults, type ResultRow } from './lib/results';

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
writeResults('attack', rows, values['results-dir']);
