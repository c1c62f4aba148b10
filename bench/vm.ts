/**
 * ERC-20 transfers per second through the whole node: raw Ethereum transactions submitted
 * over JSON-RPC (or POST /vm/tx), admitted, put in blocks, executed by the EVM, committed.
 *
 *   npx tsx bench/vm.ts [--txs 5000] [--senders 200] [--slot-ms 150] [--submit rpc|http]
 *                       [--batch 50] [--concurrency 8] [--recipients 0] [--tx-type 2]
 *                       [--mempool-cap 50000] [--verify-workers n] [--cpu-prof] [--keep]
 *                       [--node-flags "--max-semi-space-size=32"]
 *                       [--wait-quiet 30] [--timeout 180]
 *
 * It starts a node in its own process (fresh temp data dir, `--dev-accounts <senders>`,
 * `--log-level info` so that every "block committed" line, with its build+commit ms, is read
 * from the child's stdout), deploys TestToken (test/helpers/solidity.ts) from dev account 0,
 * gives every other sender tokens (account 0's transfers, in nonce order, then waits for
 * them), and pre-signs --txs `transfer(to, value)` calls spread over the senders (each
 * sender's nonces contiguous; `to` random: a fresh address per transfer, or one of
 * --recipients fixed addresses when > 0). Only then the clock starts:
 *
 *   submit   batches of --batch eth_sendRawTransaction calls (JSON-RPC batch, ≤ 50), --concurrency
 *            batches in flight on keep-alive connections, in round-robin sender order; or with
 *            --submit http, one POST /vm/tx per transaction with --concurrency × --batch in flight
 *   include  the node's "block committed" log lines (txs per block), read as they come, until
 *            every accepted transaction is in a block (no HTTP polling: the native API is
 *            rate-limited per IP, and polling would compete with the node)
 *   verify   eth_getTransactionReceipt for every accepted hash (after the clock): included / failed
 *
 * Reported: accepted / refused (by reason), admission rate, executed transfers/s (included
 * transfers between the first and the last block holding them, by the node's commit log
 * times), end-to-end rate (first submit → last inclusion), blocks and txs per block, block
 * build+commit ms from the node's log, node CPU per thread. --cpu-prof runs the node with
 * `node --cpu-prof` and prints self time by file and function over the measured window.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Interface, Wallet } from 'ethers';
import { compileSolidity, ERC20_SOURCE } from '../test/helpers/solidity';
import {
  fmt,
  groupCpu,
  jsonClient,
  machineCpu,
  monoMs,
  pct,
  posInt,
  printTable,
  rpcClient,
  sleep,
  spawnNode,
  summarizeProfile,
  threadRows,
  waitQuiet,
  type RpcReply,
  type SpawnedNode,
  blockRates,
  watchInclusion,
} from './lib/harness';

const CHAIN_ID = 72020;
const GAS_PRICE = 10_000_000_000n; // fixed 10 gwei
const TRANSFER_GAS = 100_000n;

interface DevAccount {
  address: string;
  secp256k1PrivateKey: string;
}
interface Receipt {
  status: string;
  gasUsed: string;
  blockNumber: string;
  contractAddress: string | null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      txs: { type: 'string', default: '5000' },
      senders: { type: 'string', default: '200' },
      'slot-ms': { type: 'string', default: '150' },
      'mempool-cap': { type: 'string', default: '50000' },
      submit: { type: 'string', default: 'rpc' },
      batch: { type: 'string', default: '50' },
      concurrency: { type: 'string', default: '8' },
      recipients: { type: 'string', default: '0' },
      'tx-type': { type: 'string', default: '2' },
      'verify-workers': { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'node-flags': { type: 'string', default: '' },
      keep: { type: 'boolean', default: false },
      'wait-quiet': { type: 'string', default: '30' },
      timeout: { type: 'string', default: '180' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
    return;
  }
  const N = posInt(values.txs!, 'txs', 200_000);
  const S = posInt(values.senders!, 'senders', 1000, 2);
  const slotMs = posInt(values['slot-ms']!, 'slot-ms', 1000, 50);
  const batchSize = posInt(values.batch!, 'batch', 50);
  const concurrency = posInt(values.concurrency!, 'concurrency', 1024);
  const nRecipients = posInt(values.recipients!, 'recipients', 1_000_000, 0);
  const txType = Number(values['tx-type']);
  if (txType !== 0 && txType !== 2) throw new Error('--tx-type must be 0 or 2');
  const submitMode = values.submit!;
  if (submitMode !== 'rpc' && submitMode !== 'http') throw new Error('--submit must be rpc or http');
  const perSender = Math.ceil(N / S);
  if (perSender > 64)
    console.error(
      `warning: ${perSender} txs per sender exceeds the nonce gap (64): out-of-order arrival may be refused; ` +
        `use more --senders`,
    );

  const extra = values['verify-workers'] ? ['--verify-workers', values['verify-workers']] : [];
  const node: SpawnedNode = await spawnNode({
    devAccounts: S,
    slotMs,
    mempoolCap: posInt(values['mempool-cap']!, 'mempool-cap', 50_000),
    logLevel: 'info',
    extra,
    cpuProf: values['cpu-prof'],
    nodeFlags: values['node-flags']!.split(' ').filter(Boolean),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await node.stop(values.keep!);
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));

  try {
    const { TestToken } = compileSolidity(ERC20_SOURCE);
    const token = new Interface(TestToken.abi);
    await node.ready;
    const dev = JSON.parse(readFileSync(join(node.dataDir, 'dev-accounts.json'), 'utf8')) as DevAccount[];
    if (dev.length < S) throw new Error(`dev-accounts.json has ${dev.length} accounts, need ${S}`);
    const wallets = dev.slice(0, S).map((a) => new Wallet(a.secp256k1PrivateKey));
    const sockets = submitMode === 'rpc' ? concurrency + 4 : concurrency * batchSize + 4;
    const rpcHttp = jsonClient(node.rpcUrl, sockets);
    const rpc = rpcClient(rpcHttp);
    const api = jsonClient(node.httpUrl, Math.max(8, submitMode === 'http' ? sockets : 8));
    const chainId = await rpc.call<string>('eth_chainId');
    if (Number(chainId) !== CHAIN_ID) throw new Error(`chain id ${chainId}, expected ${CHAIN_ID}`);

    const sign = (w: Wallet, nonce: number, to: string | null, data: string, gasLimit: bigint) =>
      w.signTransaction(
        txType === 2
          ? {
              type: 2,
              chainId: CHAIN_ID,
              nonce,
              to,
              data,
              gasLimit,
              maxFeePerGas: GAS_PRICE,
              maxPriorityFeePerGas: 0n,
              value: 0n,
            }
          : { type: 0, chainId: CHAIN_ID, nonce, to, data, gasLimit, gasPrice: GAS_PRICE, value: 0n },
      );
    const sendAll = async (raws: string[]): Promise<string[]> => {
      const hashes: string[] = [];
      for (let i = 0; i < raws.length; i += 50) {
        const replies = await rpc.batch<string>(raws.slice(i, i + 50).map((r) => ['eth_sendRawTransaction', [r]]));
        for (const r of replies) {
          if (r.error) throw new Error(`setup transaction refused: ${r.error.message}`);
          hashes.push(r.result!);
        }
      }
      return hashes;
    };
    const receipts = async (hashes: string[], lanes = 4): Promise<(Receipt | null)[]> => {
      const out: (Receipt | null)[] = new Array(hashes.length).fill(null);
      let next = 0;
      await Promise.all(
        Array.from({ length: lanes }, async () => {
          while (next < hashes.length) {
            const i = next;
            next += 50;
            const replies = await rpc.batch<Receipt | null>(
              hashes.slice(i, i + 50).map((h) => ['eth_getTransactionReceipt', [h]]),
            );
            for (const [k, r] of replies.entries()) out[i + k] = r.result ?? null;
          }
        }),
      );
      return out;
    };
    const waitReceipts = async (hashes: string[], what: string, timeoutMs = 60_000): Promise<Receipt[]> => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const rs = await receipts(hashes);
        if (rs.every((r) => r !== null)) {
          const failed = rs.filter((r) => r!.status !== '0x1').length;
          if (failed) throw new Error(`${what}: ${failed} of ${hashes.length} setup transactions failed`);
          return rs as Receipt[];
        }
        if (Date.now() > until)
          throw new Error(
            `${what}: ${rs.filter((r) => r === null).length} of ${hashes.length} not included after ${timeoutMs} ms`,
          );
        await sleep(Math.max(50, slotMs / 2));
      }
    };

    // ── setup: deploy, distribute
    const t0 = performance.now();
    const supply = 10n ** 30n;
    const deployData = TestToken.bytecode + token.encodeDeploy([supply]).slice(2);
    const [deployHash] = await sendAll([await sign(wallets[0], 0, null, deployData, 3_000_000n)]);
    const [deployed] = await waitReceipts([deployHash], 'deploy');
    const tokenAddr = deployed.contractAddress!;
    const share = supply / BigInt(S) / 2n;
    const dist: string[] = [];
    for (let i = 1; i < S; i++)
      dist.push(
        await sign(
          wallets[0],
          i,
          tokenAddr,
          token.encodeFunctionData('transfer', [wallets[i].address, share]),
          TRANSFER_GAS,
        ),
      );
    await waitReceipts(await sendAll(dist), 'distribution');
    const bal = await rpc.call<string>('eth_call', [
      { to: tokenAddr, data: token.encodeFunctionData('balanceOf', [wallets[S - 1].address]) },
      'latest',
    ]);
    if (BigInt(bal) !== share)
      throw new Error(`distribution check: balanceOf(sender ${S - 1}) = ${BigInt(bal)}, expected ${share}`);
    console.error(
      `setup: TestToken at ${tokenAddr}, ${S - 1} senders funded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // ── pre-sign the measured transfers (round-robin over senders by nonce)
    const t1 = performance.now();
    const startNonce = (s: number) => (s === 0 ? S : 0);
    const fixed = Array.from({ length: nRecipients }, () => `0x${randomBytes(20).toString('hex')}`);
    const order: string[] = [];
    for (let n = 0; n < perSender && order.length < N; n++) {
      for (let s = 0; s < S && order.length < N; s++) {
        const to = nRecipients
          ? fixed[Math.floor(Math.random() * nRecipients)]
          : `0x${randomBytes(20).toString('hex')}`;
        const value = BigInt(1 + Math.floor(Math.random() * 1000));
        order.push(
          await sign(
            wallets[s],
            startNonce(s) + n,
            tokenAddr,
            token.encodeFunctionData('transfer', [to, value]),
            TRANSFER_GAS,
          ),
        );
      }
    }
    console.error(`signed ${order.length} transfers in ${((performance.now() - t1) / 1000).toFixed(1)} s`);

    // Warm the connections.
    await Promise.all(Array.from({ length: Math.min(sockets, 64) }, () => rpc.call('eth_blockNumber')));
    const othersIdle = await waitQuiet(Number(values['wait-quiet']), node.pgid);
    // Let the chain settle (finality blocks of the setup) so the window holds only our blocks.
    const settleUntil = Date.now() + 3_000;
    while (Date.now() < settleUntil) await sleep(200);
    if (node.blocks.length === 0)
      throw new Error('no "block committed" line in the node log: cannot watch inclusion (log format changed?)');
    const before = { height: Number(await rpc.call<string>('eth_blockNumber')) };

    // ── submit, and watch inclusion at the same time
    const outcome: string[] = new Array(order.length);
    const hashes: (string | null)[] = new Array(order.length).fill(null);
    const reqLat: number[] = [];
    const cpu0 = process.cpuUsage();
    const n0 = groupCpu(node.pgid);
    const m0 = machineCpu();
    const startMono = monoMs();
    const startWall = Date.now();
    let submitWallEnd = 0;
    let submitted = false;
    let accepted = 0;

    const unit = submitMode === 'rpc' ? batchSize : 1;
    const lanes = submitMode === 'rpc' ? concurrency : concurrency * batchSize;
    let next = 0;
    const lane = async () => {
      while (next < order.length) {
        const i = next;
        next += unit;
        const t = performance.now();
        if (submitMode === 'rpc') {
          const chunk = order.slice(i, i + unit);
          let replies: RpcReply<string>[];
          try {
            replies = await rpc.batch<string>(chunk.map((r) => ['eth_sendRawTransaction', [r]]));
          } catch (e) {
            replies = chunk.map((_, k) => ({
              id: k,
              error: { code: 0, message: `transport: ${(e as Error).message}` },
            }));
          }
          replies.forEach((r, k) => {
            if (r.result) {
              hashes[i + k] = r.result;
              outcome[i + k] = 'accepted';
              accepted++;
            } else outcome[i + k] = `refused: ${r.error?.message}`;
          });
        } else {
          try {
            const r = await api.post<{ accepted?: boolean; id?: string; reason?: string; error?: string }>('/vm/tx', {
              raw: order[i],
            });
            if (r.status === 200 && r.body.accepted) {
              hashes[i] = r.body.id!;
              outcome[i] = 'accepted';
              accepted++;
            } else outcome[i] = r.status === 200 ? `refused: ${r.body.reason}` : `HTTP ${r.status}: ${r.body.error}`;
          } catch (e) {
            outcome[i] = `transport: ${(e as Error).message}`;
          }
        }
        reqLat.push(performance.now() - t);
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
    await Promise.all(Array.from({ length: lanes }, lane));
    submitWallEnd = Date.now();
    const submitEndMono = monoMs();
    submitted = true;
    const cpuSubmit = process.cpuUsage(cpu0);
    const end = await watcher;
    const endHeight = node.blocks.at(-1)?.height ?? before.height;
    const endMono = monoMs();
    const n1 = groupCpu(node.pgid);
    const m1 = machineCpu();
    const wallMs = endMono - startMono;
    const submitWall = submitWallEnd - startWall;
    const cpuAll = process.cpuUsage(cpu0);

    // ── after the clock: receipts, blocks
    const acceptedIdx = hashes.map((h, i) => (h ? i : -1)).filter((i) => i >= 0);
    const tr0 = performance.now();
    const receiptStartMono = monoMs();
    const rs = await receipts(acceptedIdx.map((i) => hashes[i]!));
    const receiptEndMono = monoMs();
    const receiptMs = performance.now() - tr0;
    const included = rs.filter((r) => r !== null) as Receipt[];
    const failed = included.filter((r) => r.status !== '0x1').length;
    const gasUsed = included.reduce((a, r) => a + Number(BigInt(r.gasUsed)), 0) / Math.max(1, included.length);

    const blocks = node.blocks.filter((b) => b.height > before.height && b.height <= endHeight);
    const withTxs = blocks.filter((b) => b.txs > 0);
    const { inBlocks, first, spanMs, execRate, e2eMs, buildMs, buildSum, quiet, quietTxs, quietMsPerTx } = blockRates(
      withTxs,
      startWall,
      submitWallEnd,
    );

    const counts = new Map<string, number>();
    for (const o of outcome) counts.set(o ?? 'not sent', (counts.get(o ?? 'not sent') ?? 0) + 1);
    reqLat.sort((a, b) => a - b);
    const nodeCpuS = n1.total - n0.total;
    const clientCpuS = (cpuSubmit.user + cpuSubmit.system) / 1e6;
    const busyS = m0 && m1 ? m1.busy - m0.busy : NaN;
    // other processes' CPU during the run, in % of a core
    const othersPct = ((Math.max(0, busyS - nodeCpuS - (cpuAll.user + cpuAll.system) / 1e6) * 1000) / wallMs) * 100;

    const rows: [string, string][] = [
      [
        'submission',
        submitMode === 'rpc'
          ? `eth_sendRawTransaction, JSON-RPC batches of ${batchSize}, ${concurrency} in flight (keep-alive)`
          : `POST /vm/tx, ${lanes} in flight (keep-alive)`,
      ],
      [
        'senders / transfers / per sender',
        `${S} / ${order.length} / ${perSender}; ` +
          `recipients ${nRecipients ? `${nRecipients} fixed` : 'fresh random'}; tx type ${txType}`,
      ],
      [
        'node',
        `slot ${slotMs} ms, mempool cap ${values['mempool-cap']}` +
          (extra.length ? `, ${extra.join(' ')}` : '') +
          (values['node-flags'] ? `, node flags: ${values['node-flags']}` : ''),
      ],
      ['accepted', `${accepted} of ${order.length}`],
    ];
    for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1]))
      if (k !== 'accepted') rows.push([`  ${k}`, String(v)]);
    rows.push(
      [
        'submission wall time',
        `${(submitWall / 1000).toFixed(2)} s → admission ${(accepted / (submitWall / 1000)).toFixed(0)} tx/s`,
      ],
      [
        `request latency p50 / p99 (per ${submitMode === 'rpc' ? 'batch' : 'tx'})`,
        `${fmt(pct(reqLat, 0.5))} / ${fmt(pct(reqLat, 0.99))} ms`,
      ],
      ['inclusion', `${end}`],
      [
        'included (receipts)',
        `${included.length} of ${accepted} accepted${included.length < accepted ? '  ← INCOMPLETE' : ''}`,
      ],
      ['failed receipts (status 0x0)', `${failed}`],
      [
        'receipt lookups (after the clock)',
        `${rs.length} eth_getTransactionReceipt in ${(receiptMs / 1000).toFixed(2)} s ` +
          `= ${(rs.length / (receiptMs / 1000)).toFixed(0)}/s (batches of 50, 4 in flight)`,
      ],
      ['mean gasUsed per transfer', gasUsed.toFixed(0)],
      [
        'blocks in window / with txs',
        `${blocks.length} / ${withTxs.length}; txs per block ` +
          `mean ${(inBlocks / Math.max(1, withTxs.length)).toFixed(0)}, ` +
          `max ${Math.max(0, ...withTxs.map((b) => b.txs))}`,
      ],
      [
        'EXECUTED transfers/s',
        `${fmt(execRate, 0)}  ((included − first block's) ÷ commit-time span first→last ` +
          `block: ${inBlocks - (first?.txs ?? 0)} / ${(spanMs / 1000).toFixed(2)} s)`,
      ],
      ['  included ÷ span (naive)', spanMs > 0 ? `${(inBlocks / (spanMs / 1000)).toFixed(0)} tx/s` : '–'],
      [
        'end-to-end transfers/s',
        `${fmt(included.length / (e2eMs / 1000), 0)}  (first submit → last inclusion: ${(e2eMs / 1000).toFixed(2)} s)`,
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
        'producer busy',
        spanMs > 0
          ? `${((withTxs.slice(1).reduce((a, b) => a + b.ms, 0) / spanMs) * 100).toFixed(0)} % of the span ` +
            `building/committing`
          : '–',
      ],
      [
        'node CPU',
        `${nodeCpuS.toFixed(2)} s over ${(wallMs / 1000).toFixed(2)} s ` +
          `= ${(((nodeCpuS * 1000) / wallMs) * 100).toFixed(0)} % of a core ` +
          `(2 cores), ${((nodeCpuS * 1e6) / Math.max(1, included.length)).toFixed(0)} µs per included tx`,
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
    printTable('ERC-20 transfers through the node (bench/vm.ts)', rows);
    if (withTxs.length) {
      console.log(
        `\nblocks (height: txs @ build+commit ms): ${withTxs.map((b) => `${b.height}:${b.txs}@${b.ms}`).join('  ')}`,
      );
    }
    const problems = node.problems.filter((l) => !/npm warn/.test(l));
    if (problems.length)
      console.log(`\nnode warnings/errors (last ${Math.min(10, problems.length)}):\n${problems.slice(-10).join('\n')}`);
    rpcHttp.close();
    api.close();
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
      console.log(
        `\n════ node CPU profile, receipt lookups after the clock ` +
          `(${((receiptEndMono - receiptStartMono) / 1000).toFixed(2)} s)`,
      );
      summarizeProfile(node.cpuProfDir, { from: receiptStartMono, to: receiptEndMono }, 15);
    }
    const target = 1000;
    console.log(
      `\ntarget ≥ ${target} executed ERC-20 transfers/s: ${execRate >= target ? 'MET' : 'MISSED'} ` +
        `(${fmt(execRate, 0)})`,
    );
  } finally {
    await stop();
  }
}

await main();
