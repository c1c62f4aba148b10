/**
 * FT20 token transfers per second through the whole node: pre-signed hybrid TOKEN_TRANSFER
 * envelopes submitted over keep-alive HTTP (POST /tx), admitted, put in blocks, executed,
 * committed, indexed.
 *
 *   npx tsx bench/tokens.ts [--senders 200] [--per-sender 25] [--concurrency 256]
 *                           [--slot-ms 150] [--mempool-cap 50000] [--verify-workers n]
 *                           [--wait-quiet 20] [--timeout 180] [--no-cache] [--cpu-prof] [--keep]
 *
 * It starts a node in its own process (bench/lib/harness.ts: fresh temp data dir,
 * `--dev-accounts <senders>`, `--log-level info` so that every "block committed" line is read
 * from the child's stdout). Setup, not timed: dev account 0 creates one token (TOKEN_CREATE,
 * supply 10^30) and sends each other sender a share (one TOKEN_TRANSFER each), and the
 * bench waits until all of that is in blocks and succeeded. The measured transfers are
 * signed before (bench/lib/sign.ts: worker threads, cached in the OS temp dir: fixed
 * timestamps and a seeded PRNG make the bytes the same on every run): senders × per-sender
 * TOKEN_TRANSFERs, each sender's nonces contiguous, recipients drawn at random among the
 * other senders, amounts 1..1000. Then the clock starts:
 *
 *   submit   one POST /tx per envelope, --concurrency requests in flight on keep-alive
 *            connections, in round-robin sender order (every sender's nonce n before n+1)
 *   include  the node's "block committed" log lines, read as they come, until every
 *            accepted transfer is in a block (no HTTP polling during the run)
 *   verify   (after the clock) the results of every transfer from GET /blocks/:height
 *            (success / failed), then the token's index: the balances of
 *            GET /tokens/:id/holders (every page) must add up to the supply, and
 *            GET /tokens/:id/transfers must list every transfer (the mint, the
 *            distribution and all measured ones)
 *
 * Reported: accepted / refused (by reason), accepted tx/s and request latency p50/p99,
 * EXECUTED transfers/s (included transfers minus the first block's, over the commit-time
 * span from the first to the last block holding them: the method of bench/vm.ts),
 * end-to-end rate, failed results (must be 0), block build+commit ms, node CPU per thread,
 * and other processes' CPU (the numbers only mean something on an otherwise idle machine:
 * it waits up to --wait-quiet seconds for other processes to use < 0.25 core).
 * Exits 1 when a transfer failed, was not included, or a correctness check failed.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { signTx, encodeTx } from '../src/chain/envelope';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { assetId, buildAssetTx } from '../src/sdk/assets';
import {
  fmt,
  groupCpu,
  jsonClient,
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
  type JsonClient,
  type SpawnedNode,
  blockRates,
  txsInBlocksAfter as txsInBlocksAfterOf,
  watchInclusion,
} from './lib/harness';
import { signDevTxs, type DevTxItem, type SignedEnvelope } from './lib/sign';
import { networkAt } from './lib/harness';

/** Fixed so that signatures (deterministic) and ids are the same on every run. */
const TX_TIMESTAMP = 1_767_225_600_000;
const FEE = '1000';
const SUPPLY = 10n ** 30n;
const SYMBOL = 'BENCH';

interface TxVerdict {
  accepted?: boolean;
  id?: string;
  reason?: string;
  error?: string;
}
interface BlockTx {
  id: string;
  type: string;
  result?: { status: 'success' | 'failed'; error?: string };
}
interface TokenView {
  id: string;
  symbol: string;
  supply: string;
  holders: number;
}

/** mulberry32: a small seeded PRNG, so that the signed bytes (and the cache) are reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      senders: { type: 'string', default: '200' },
      'per-sender': { type: 'string', default: '25' },
      concurrency: { type: 'string', default: '256' },
      'slot-ms': { type: 'string', default: '150' },
      'mempool-cap': { type: 'string', default: '50000' },
      'verify-workers': { type: 'string' },
      'wait-quiet': { type: 'string', default: '20' },
      timeout: { type: 'string', default: '180' },
      'no-cache': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
    return;
  }
  const S = posInt(values.senders!, 'senders', 1000, 2);
  // The mempool takes nonces at most 64 ahead of a sender's next one (MAX_FUTURE_NONCE_GAP).
  const perSender = posInt(values['per-sender']!, 'per-sender', 64);
  const concurrency = posInt(values.concurrency!, 'concurrency', 4096);
  const slotMs = posInt(values['slot-ms']!, 'slot-ms', 1000, 50);
  const mempoolCap = posInt(values['mempool-cap']!, 'mempool-cap', 50_000);
  const N = S * perSender;

  const extra = values['verify-workers'] ? ['--verify-workers', values['verify-workers']] : [];
  const node: SpawnedNode = await spawnNode({
    devAccounts: S,
    slotMs,
    mempoolCap,
    logLevel: 'info',
    extra,
    cpuProf: values['cpu-prof'],
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await node.stop(values.keep!);
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));
  let api: JsonClient | null = null;
  let ok = true;
  const check = (cond: boolean) => {
    if (!cond) ok = false;
    return cond ? 'OK' : 'FAILED';
  };

  try {
    // ── sign everything while the node starts: the create (its id names the token), then
    // the distribution and the measured transfers on worker threads
    const t0 = performance.now();
    const addr = Array.from({ length: S }, (_, s) => deriveKeys(devSecret(s)).address);
    const network = await networkAt(node.httpUrl);
    const create = signTx(
      deriveKeys(devSecret(0)),
      {
        ...buildAssetTx({ type: 'TOKEN_CREATE', name: 'Bench Token', symbol: SYMBOL, decimals: 18, supply: SUPPLY }),
        nonce: 0,
        timestamp: TX_TIMESTAMP,
        fee: FEE,
      },
      network,
    );
    const token = assetId(create.id);
    const transfer = (from: number, nonce: number, to: number, amount: bigint): DevTxItem => ({
      dev: from,
      fields: {
        ...buildAssetTx({ type: 'TOKEN_TRANSFER', token, to: addr[to], amount }),
        nonce,
        timestamp: TX_TIMESTAMP,
        fee: FEE,
      },
    });
    const share = SUPPLY / BigInt(S) / 2n;
    const items: DevTxItem[] = [];
    for (let s = 1; s < S; s++) items.push(transfer(0, s, s, share)); // distribution: account 0, nonces 1..S-1
    const rand = prng(0xca1e + S * 65_536 + perSender);
    const startNonce = (s: number) => (s === 0 ? S : 0);
    for (let s = 0; s < S; s++) {
      for (let n = 0; n < perSender; n++) {
        let to = Math.floor(rand() * (S - 1));
        if (to >= s) to++; // any other sender: TOKEN_TRANSFER to oneself is refused
        items.push(transfer(s, startNonce(s) + n, to, BigInt(1 + Math.floor(rand() * 1000))));
      }
    }
    const signed = await signDevTxs(items, { cache: !values['no-cache'], label: 'tokens', network });
    const setup: SignedEnvelope[] = [{ id: create.id, body: encodeTx(create) }, ...signed.slice(0, S - 1)];
    const measured = signed.slice(S - 1); // sender-major: measured[s * perSender + n]
    console.error(`signed ${items.length + 1} envelopes in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    await node.ready;
    api = jsonClient(node.httpUrl, concurrency + 4);
    const status = () => api!.get<{ height: number; finalizedHeight: number }>('/status');
    const txsInBlocksAfter = (h: number) => txsInBlocksAfterOf(node, h);
    /** Results of the transactions in blocks `heights`, by id (GET /blocks/:height, 8 in flight). */
    const resultsIn = async (heights: number[]): Promise<Map<string, BlockTx>> => {
      const out = new Map<string, BlockTx>();
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < heights.length) {
            const h = heights[next++];
            const b = await api!.get<{ txs: BlockTx[] }>(`/blocks/${h}`);
            for (const t of b.txs) out.set(t.id, t);
          }
        }),
      );
      return out;
    };
    const post = async (body: string): Promise<string> => {
      try {
        const r = await api!.post<TxVerdict>('/tx', body);
        return r.status === 200
          ? r.body.accepted
            ? 'accepted'
            : `refused: ${r.body.reason}`
          : `HTTP ${r.status}: ${r.body?.error}`;
      } catch (e) {
        return `transport: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
      }
    };

    // ── setup: create and distribute (account 0's nonces in order, 16 in flight), wait for them
    const t1 = performance.now();
    if (node.blocks.length === 0) await sleep(slotMs * 3);
    if (node.blocks.length === 0)
      throw new Error('no "block committed" line in the node log: cannot watch inclusion (log format changed?)');
    const h0 = (await status()).height;
    let nextSetup = 0;
    const setupOutcome: string[] = new Array(setup.length);
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (nextSetup < setup.length) {
          const i = nextSetup++;
          setupOutcome[i] = await post(setup[i].body);
        }
      }),
    );
    const setupRefused = setupOutcome.map((o, i) => [i, o] as const).filter(([, o]) => o !== 'accepted');
    if (setupRefused.length)
      throw new Error(
        `setup: ${setupRefused.length} of ${setup.length} refused, e.g. #${setupRefused[0][0]}: ${setupRefused[0][1]}`,
      );
    for (const until = Date.now() + 60_000; txsInBlocksAfter(h0) < setup.length; await sleep(50)) {
      if (Date.now() > until) throw new Error(`setup: ${txsInBlocksAfter(h0)} of ${setup.length} in blocks after 60 s`);
    }
    const setupResults = await resultsIn(node.blocks.filter((b) => b.height > h0 && b.txs > 0).map((b) => b.height));
    const setupBad = setup.filter((e) => setupResults.get(e.id)?.result?.status !== 'success');
    if (setupBad.length) {
      const r = setupResults.get(setupBad[0].id);
      throw new Error(
        `setup: ${setupBad.length} of ${setup.length} not successful, ` +
          `e.g. ${setupBad[0].id}: ${r ? `${r.result?.status} ${r.result?.error ?? ''}` : 'not in the blocks'}`,
      );
    }
    const tokenAfterSetup = await api.get<TokenView>(`/tokens/${token}`);
    console.error(
      `setup: token ${SYMBOL} ${token}, ${S - 1} senders funded ` +
        `in ${((performance.now() - t1) / 1000).toFixed(1)} s (${tokenAfterSetup.holders} holders)`,
    );

    // Warm the connections; wait for a quiet machine; let the chain settle (finality blocks of
    // the setup) so that the window holds only the measured blocks.
    await Promise.all(Array.from({ length: concurrency }, () => status()));
    const othersIdle = await waitQuiet(Number(values['wait-quiet']), node.pgid);
    const settleUntil = Date.now() + 3_000;
    while (Date.now() < settleUntil) await sleep(200);
    const before = { height: (await status()).height };
    const order: SignedEnvelope[] = [];
    for (let n = 0; n < perSender; n++) for (let s = 0; s < S; s++) order.push(measured[s * perSender + n]);

    // ── submit, and watch inclusion at the same time
    const outcome: string[] = new Array(order.length);
    const lat = new Float64Array(order.length);
    const cpu0 = process.cpuUsage();
    const n0 = groupCpu(node.pgid);
    const m0 = machineCpu();
    const startMono = monoMs();
    const startWall = Date.now();
    let submitted = false;
    let accepted = 0;
    let next = 0;
    const lane = async () => {
      while (next < order.length) {
        const i = next++;
        const t = performance.now();
        outcome[i] = await post(order[i].body);
        lat[i] = performance.now() - t;
        if (outcome[i] === 'accepted') accepted++;
      }
    };
    const watcher = watchInclusion({
      node,
      afterHeight: before.height,
      accepted: () => accepted,
      submitted: () => submitted,
      startWall,
      timeoutS: Number(values.timeout),
    });
    await Promise.all(Array.from({ length: concurrency }, lane));
    const submitWallEnd = Date.now();
    const submitEndMono = monoMs();
    submitted = true;
    const cpuSubmit = process.cpuUsage(cpu0);
    const end = await watcher;
    const endHeight = node.blocks.at(-1)?.height ?? before.height;
    const endMono = monoMs();
    const n1 = groupCpu(node.pgid);
    const m1 = machineCpu();
    const cpuAll = process.cpuUsage(cpu0);
    const wallMs = endMono - startMono;
    const submitWall = submitWallEnd - startWall;

    // ── after the clock: results from the blocks
    const blocks = node.blocks.filter((b) => b.height > before.height && b.height <= endHeight);
    const withTxs = blocks.filter((b) => b.txs > 0);
    const results = await resultsIn(withTxs.map((b) => b.height));
    const acceptedIdx = order.map((_, i) => i).filter((i) => outcome[i] === 'accepted');
    let included = 0;
    let failed = 0;
    const failReasons = new Map<string, number>();
    for (const i of acceptedIdx) {
      const r = results.get(order[i].id);
      if (!r) continue;
      included++;
      if (r.result?.status !== 'success') {
        failed++;
        const why = r.result?.error ?? r.result?.status ?? 'no result';
        failReasons.set(why, (failReasons.get(why) ?? 0) + 1);
      }
    }
    const ours = new Set<string>(order.map((e) => e.id));
    const strangers = [...results.keys()].filter((id) => !ours.has(id)).length;

    const { inBlocks, first, spanMs, execRate, e2eMs, buildMs, buildSum, quiet, quietTxs, quietMsPerTx } = blockRates(
      withTxs,
      startWall,
      submitWallEnd,
    );

    // ── correctness: the token's index against its supply and the transfers made
    const sumHolders = async () => {
      let sum = 0n;
      let count = 0;
      let pages = 0;
      let before = '';
      for (;;) {
        const p = await api!.get<{ holders: { address: string; balance: string }[]; nextBefore: string | null }>(
          `/tokens/${token}/holders?limit=100${before ? `&before=${encodeURIComponent(before)}` : ''}`,
        );
        pages++;
        for (const h of p.holders) sum += BigInt(h.balance);
        count += p.holders.length;
        if (!p.nextBefore) return { sum, count, pages };
        before = p.nextBefore;
      }
    };
    const listTransfers = async () => {
      const ids = new Set<string>();
      let rows = 0;
      let pages = 0;
      let before = '';
      for (;;) {
        const p = await api!.get<{ transfers: { txId: string }[]; nextBefore: string | null }>(
          `/tokens/${token}/transfers?limit=100${before ? `&before=${encodeURIComponent(before)}` : ''}`,
        );
        pages++;
        rows += p.transfers.length;
        for (const t of p.transfers) ids.add(t.txId);
        if (!p.nextBefore) return { ids, rows, pages };
        before = p.nextBefore;
      }
    };
    const successIds = acceptedIdx
      .map((i) => order[i].id)
      .filter((id) => results.get(id)?.result?.status === 'success');
    const expectedTransfers = 1 + (S - 1) + successIds.length; // the mint at creation, the distribution, the measured
    // The asset index is written with the block; allow it a moment in case it trails the log line.
    let view = await api.get<TokenView>(`/tokens/${token}`);
    let holders = await sumHolders();
    let feed = await listTransfers();
    for (let tries = 0; tries < 10 && (holders.sum !== SUPPLY || feed.rows < expectedTransfers); tries++) {
      await sleep(500);
      view = await api.get<TokenView>(`/tokens/${token}`);
      holders = await sumHolders();
      feed = await listTransfers();
    }
    const missingInFeed = [...setup.slice(1).map((e) => e.id), ...successIds].filter((id) => !feed.ids.has(id)).length;

    const counts = new Map<string, number>();
    for (const o of outcome) counts.set(o ?? 'not sent', (counts.get(o ?? 'not sent') ?? 0) + 1);
    const acceptedLat = [...lat].filter((_, i) => outcome[i] === 'accepted').sort((a, b) => a - b);
    const nodeCpuS = n1.total - n0.total;
    const clientCpuS = (cpuSubmit.user + cpuSubmit.system) / 1e6;
    const busyS = m0 && m1 ? m1.busy - m0.busy : NaN;
    // other processes' CPU during the run, in % of a core
    const othersPct = ((Math.max(0, busyS - nodeCpuS - (cpuAll.user + cpuAll.system) / 1e6) * 1000) / wallMs) * 100;

    const rows: [string, string][] = [
      ['submission', `POST /tx (hybrid envelopes), ${concurrency} in flight (keep-alive)`],
      [
        'senders × per sender',
        `${S} × ${perSender} = ${N} TOKEN_TRANSFERs of ${SYMBOL} ${token}; recipients random among the senders`,
      ],
      ['node', `slot ${slotMs} ms, mempool cap ${mempoolCap}${extra.length ? `, ${extra.join(' ')}` : ''}`],
      ['accepted', `${accepted} of ${order.length}`],
    ];
    for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1]))
      if (k !== 'accepted') rows.push([`  ${k}`, String(v)]);
    rows.push(
      [
        'submission wall time',
        `${(submitWall / 1000).toFixed(2)} s → accepted ${(accepted / (submitWall / 1000)).toFixed(0)} tx/s`,
      ],
      [
        'latency p50 / p99 / max (accepted)',
        `${fmt(pct(acceptedLat, 0.5))} / ${fmt(pct(acceptedLat, 0.99))} / ${fmt(acceptedLat.at(-1))} ms`,
      ],
      ['inclusion', end],
      [
        'included (from the blocks)',
        `${included} of ${accepted} accepted` +
          (included < accepted ? '  ← INCOMPLETE' : '') +
          (strangers ? `; ${strangers} other txs in the window` : ''),
      ],
      [
        'failed results',
        `${failed}${failed ? `  ← ${[...failReasons].map(([k, v]) => `${v}× ${k}`).join('; ')}` : ''}`,
      ],
      [
        'blocks in window / with txs',
        `${blocks.length} / ${withTxs.length}; txs per block ` +
          `mean ${(inBlocks / Math.max(1, withTxs.length)).toFixed(0)}, ` +
          `max ${Math.max(0, ...withTxs.map((b) => b.txs))}`,
      ],
      [
        'EXECUTED TOKEN_TRANSFERs/s',
        `${fmt(execRate, 0)}  ((included − first block's) ÷ commit-time span first→last ` +
          `block: ${inBlocks - (first?.txs ?? 0)} / ${(spanMs / 1000).toFixed(2)} s)`,
      ],
      [
        'end-to-end transfers/s',
        `${fmt(included / (e2eMs / 1000), 0)}  (first submit → last inclusion: ${(e2eMs / 1000).toFixed(2)} s)`,
      ],
      [
        'block build+commit ms (blocks with txs)',
        `mean ${fmt(buildSum / Math.max(1, buildMs.length))}, p50 ${fmt(pct(buildMs, 0.5), 0)}, ` +
          `max ${fmt(buildMs.at(-1), 0)}`,
      ],
      [
        '  blocks started after the last submission',
        quiet.length
          ? `${quiet.length} blocks, ${quietTxs} txs: ${fmt(quietMsPerTx, 3)} ms per tx → producer ceiling ` +
            `~${fmt(1000 / quietMsPerTx, 0)} tx/s`
          : 'none (every block overlapped submission)',
      ],
      [
        'node CPU',
        `${nodeCpuS.toFixed(2)} s over ${(wallMs / 1000).toFixed(2)} s ` +
          `= ${(((nodeCpuS * 1000) / wallMs) * 100).toFixed(0)} % of a core ` +
          `(${availableParallelism()} cores), ${((nodeCpuS * 1e6) / Math.max(1, included)).toFixed(0)} µs per ` +
          `included tx`,
      ],
    );
    rows.push(...threadRows(n0, n1, wallMs));
    rows.push(
      [
        'bench client CPU during submission',
        `${clientCpuS.toFixed(2)} s (${(((clientCpuS * 1000) / submitWall) * 100).toFixed(0)} % of a core)`,
      ],
      [
        'other processes',
        Number.isNaN(busyS)
          ? '–'
          : `${othersPct.toFixed(0)} % of a core during the run ` +
            `(${(othersIdle * 100).toFixed(0)} % before); should be ~0`,
      ],
    );
    printTable('FT20 TOKEN_TRANSFERs through the node (bench/tokens.ts)', rows);

    printTable('correctness (after the clock)', [
      ['no failed results', `${check(failed === 0)} (${failed})`],
      ['every accepted transfer included', `${check(included === accepted)} (${included} of ${accepted})`],
      ['every transfer accepted', `${check(accepted === order.length)} (${accepted} of ${order.length})`],
      [
        'Σ /holders balances = supply',
        `${check(holders.sum === SUPPLY && BigInt(view.supply) === SUPPLY)} (Σ ${holders.sum} ` +
          `over ${holders.count} holders in ${holders.pages} pages; token supply ${view.supply}; ` +
          `created ${SUPPLY})`,
      ],
      [
        'holder count',
        `${check(holders.count === view.holders)} (${holders.count} listed, token view says ${view.holders})`,
      ],
      [
        '/transfers covers all transfers',
        `${check(feed.rows === expectedTransfers && missingInFeed === 0)} (${feed.rows} rows in ${feed.pages} ` +
          `pages; expected ${expectedTransfers} = 1 mint + ${S - 1} distribution + ${successIds.length} ` +
          `measured; ${missingInFeed} missing)`,
      ],
    ]);
    if (withTxs.length)
      console.log(
        `\nblocks (height: txs @ build+commit ms): ${withTxs.map((b) => `${b.height}:${b.txs}@${b.ms}`).join('  ')}`,
      );
    const problems = node.problems.filter((l) => !/npm warn/.test(l));
    if (problems.length)
      console.log(`\nnode warnings/errors (last ${Math.min(10, problems.length)}):\n${problems.slice(-10).join('\n')}`);
    api.close();
    api = null;
    await stop();
    if (node.cpuProfDir) {
      console.log(
        `\n════ node CPU profile, submission window ` +
          `(${((submitEndMono - startMono) / 1000).toFixed(2)} s: admission and the blocks built meanwhile)`,
      );
      summarizeProfile(node.cpuProfDir, { from: startMono, to: submitEndMono });
      console.log(
        `\n════ node CPU profile, after the last submission until the last inclusion ` +
          `(${((endMono - submitEndMono) / 1000).toFixed(2)} s: block production only)`,
      );
      summarizeProfile(node.cpuProfDir, { from: submitEndMono, to: endMono });
    }
    console.log(`\nresult: ${ok ? 'all checks passed' : 'CHECKS FAILED'}`);
    if (!ok) process.exitCode = 1;
  } finally {
    api?.close();
    await stop();
  }
}

await main();
