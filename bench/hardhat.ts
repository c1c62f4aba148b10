/**
 * Cairn's VM JSON-RPC against a Hardhat node on the same machine, in the same run:
 *
 * 1. reads — `eth_blockNumber`, `eth_getBalance`, `eth_call` (an ERC-20 balanceOf) in req/s:
 *    the same request bodies from the same client (wrk, a Lua script rotating the bodies and
 *    checking every response; bench/lib/rpcLoad.ts), same threads and connections, runs
 *    interleaved (Cairn, Hardhat, Cairn, …). Target: Cairn ≥ 5× Hardhat.
 * 2. ERC-20 transfers (tx/s) — the same transfers (sender, nonce, recipient, amount), signed
 *    once per chain id as Ethereum EIP-1559 envelopes, sent by eth_sendRawTransaction from one
 *    keep-alive client: `--connections` lanes, each sending its senders' transfers in nonce
 *    order, one request at a time. Cairn counts a transfer when it is in a committed block
 *    (the node's "block committed" log lines; clock from the first request to the commit of
 *    the last block); Hardhat (automine) when mined, i.e. when its eth_sendRawTransaction
 *    answers. Target: Cairn ≥ 10× Hardhat.
 *
 *   npx tsx bench/hardhat.ts [--seconds 5] [--runs 3] [--connections 64] [--threads 2]
 *                            [--senders 200] [--transfers 4000] [--slot-ms 500]
 *                            [--only reads|transfers] [--profile] [--tiny] [--results-dir DIR]
 *
 * --transfers: per run (each run sends the next nonces of every sender). --profile: the Cairn
 * node under `--cpu-prof`, summarised for the last run of each read method and of the transfers.
 *
 * Setup (not timed): the same token at the same address on both chains — a fresh deployer
 * wallet, funded with coins (Cairn: from dev account 0; Hardhat: from its default account 0),
 * deploys TestToken (test/helpers/solidity.ts ERC20_SOURCE) at its nonce 0, then gives tokens
 * to `--senders` fresh wallets, which are funded with coins the same way. At the end both
 * chains must hold the same token balances: the same transfers ran on both.
 *
 * Hardhat (pinned, see bench/lib/hardhat.ts) is installed on demand from the npm registry
 * into ~/.cache/cairn-bench/hardhat-<version>, not into the repo; its request logging is off.
 * The transfers are signed with libsecp256k1 (the `secp256k1` package, RFC 6979 like ethers'
 * Wallet, checked byte for byte against Wallet.signTransaction on the first one per chain).
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  getCreateAddress,
  Interface,
  keccak256,
  Signature,
  toUtf8Bytes,
  Transaction,
  Wallet,
  type TransactionLike,
} from 'ethers';
import { devAccounts } from '../src/chain/devnet';
import { CHAIN_ID, GAS_PRICE_WEI } from '../src/protocol/params';
import { compileSolidity, ERC20_SOURCE } from '../test/helpers/solidity';
import { HARDHAT_CHAIN_ID, HARDHAT_VERSION, startHardhat, type HardhatNode } from './lib/hardhat';
import {
  groupCpu,
  jsonClient,
  monoMs,
  posInt,
  printTable,
  rpcClient,
  sleep,
  spawnNode,
  summarizeProfile,
  txsInBlocksAfter,
  watchInclusion,
  type JsonClient,
  type SpawnedNode,
} from './lib/harness';
import { showSpread, spread, writeResults, type ResultRow, type Spread } from './lib/results';
import { wrkRpc, type RpcLoadResult } from './lib/rpcLoad';
import { ensureWrk } from './lib/wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
    senders: { type: 'string', default: '200' },
    transfers: { type: 'string', default: '4000' },
    'slot-ms': { type: 'string', default: '500' },
    only: { type: 'string' },
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
const tiny = values.tiny!;
const SECONDS = tiny ? 1 : posInt(values.seconds!, 'seconds', 600);
const RUNS = tiny ? 1 : posInt(values.runs!, 'runs', 50);
const CONNECTIONS = tiny ? 8 : posInt(values.connections!, 'connections', 10_000);
const THREADS = tiny ? 1 : posInt(values.threads!, 'threads', 64);
const SENDERS = tiny ? 8 : posInt(values.senders!, 'senders', 1000);
const PER_SENDER = Math.ceil((tiny ? 40 : posInt(values.transfers!, 'transfers', 1_000_000)) / SENDERS);
const TRANSFERS = PER_SENDER * SENDERS;
const SLOT_MS = posInt(values['slot-ms']!, 'slot-ms', 1000, 50);
const PHASES = (values.only ?? 'reads,transfers').split(',');
for (const p of PHASES) if (p !== 'reads' && p !== 'transfers') throw new Error(`--only: reads or transfers, not ${p}`);
const READ_TARGET = 5;
const TRANSFER_TARGET = 10;
/** Cairn's fixed VM gas price; Hardhat's base fee starts at 1 gwei and only falls under automine. */
const FEES = { maxFeePerGas: GAS_PRICE_WEI, maxPriorityFeePerGas: 0n } as const;
const TRANSFER_GAS = 100_000n;
const COINS_EACH = 10n ** 19n; // 10 coins / ETH of gas money per wallet
const TOKENS_EACH = 10n ** 24n;

// ─────────────────────────────────────────────────────────────────────────── signing

interface NativeSigner {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}
const nativeSigner: NativeSigner | null = (() => {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSigner;
  } catch {
    return null;
  }
})();
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** Wallet.signTransaction's bytes, with libsecp256k1 doing the signing (4× faster than noble here). */
async function signAll(wallet: Wallet, txs: TransactionLike[]): Promise<string[]> {
  if (!nativeSigner || txs.length === 0) return Promise.all(txs.map((t) => wallet.signTransaction(t)));
  const key = Buffer.from(wallet.privateKey.slice(2), 'hex');
  const out = txs.map((t) => {
    const tx = Transaction.from(t);
    const s = nativeSigner.ecdsaSign(Buffer.from(tx.unsignedHash.slice(2), 'hex'), key);
    tx.signature = Signature.from({
      r: hex(s.signature.subarray(0, 32)),
      s: hex(s.signature.subarray(32)),
      yParity: s.recid as 0 | 1,
    });
    return tx.serialized;
  });
  if ((await wallet.signTransaction(txs[0])) !== out[0])
    throw new Error('libsecp256k1 and ethers Wallet sign differently');
  return out;
}

// ─────────────────────────────────────────────────────────────────────────── chains

type Rpc = ReturnType<typeof rpcClient>;
interface Receipt {
  status: string;
  contractAddress: string | null;
  blockNumber: string;
}

interface Chain {
  name: string;
  url: string;
  chainId: number;
  pgid: number;
  /** Hardhat runs the calls of a batch concurrently: under automine a nonce sequence must go one call at a time. */
  batchInOrder: boolean;
  client: JsonClient;
  rpc: Rpc;
  /** Sends `wei` to each address (setup). */
  fund(addrs: string[], wei: bigint): Promise<void>;
}

/** Sends raw transactions in order (batches of 50: Cairn's MAX_RPC_BATCH), then waits for every receipt. */
async function sendAndWait(chain: Chain, raws: string[], what: string): Promise<Receipt[]> {
  const hashes: string[] = [];
  const per = chain.batchInOrder ? 50 : 1;
  for (let i = 0; i < raws.length; i += per) {
    const replies = await chain.rpc.batch<string>(raws.slice(i, i + per).map((r) => ['eth_sendRawTransaction', [r]]));
    for (const r of replies) {
      if (r.error) throw new Error(`${chain.name}: ${what} refused: ${r.error.message}`);
      hashes.push(r.result!);
    }
  }
  return receipts(chain, hashes, what, 60_000);
}

async function receipts(chain: Chain, hashes: string[], what: string, timeoutMs: number): Promise<Receipt[]> {
  const out: (Receipt | null)[] = hashes.map(() => null);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const missing = out.map((r, i) => (r ? -1 : i)).filter((i) => i >= 0);
    if (missing.length === 0) break;
    for (let k = 0; k < missing.length; k += 50) {
      const part = missing.slice(k, k + 50);
      const replies = await chain.rpc.batch<Receipt | null>(
        part.map((i) => ['eth_getTransactionReceipt', [hashes[i]]]),
      );
      for (const [j, r] of replies.entries()) out[part[j]] = r.result ?? null;
    }
    if (out.every(Boolean)) break;
    if (Date.now() > until)
      throw new Error(
        `${chain.name}: ${what}: ${out.filter((r) => !r).length} of ${hashes.length} transactions not ` +
          `included within ${timeoutMs / 1000} s`,
      );
    await sleep(200);
  }
  const failed = out.filter((r) => r!.status !== '0x1').length;
  if (failed) throw new Error(`${chain.name}: ${what}: ${failed} of ${hashes.length} transactions failed`);
  return out as Receipt[];
}

function cairnChain(node: SpawnedNode): Chain {
  const client = jsonClient(node.rpcUrl, CONNECTIONS);
  const rpc = rpcClient(client);
  const dev0 = new Wallet(devAccounts(1)[0].file.secp256k1PrivateKey);
  const chain: Chain = {
    name: 'Cairn',
    url: node.rpcUrl,
    chainId: CHAIN_ID,
    pgid: node.pgid,
    batchInOrder: true,
    client,
    rpc,
    async fund(addrs, wei) {
      let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [dev0.address, 'pending']));
      const raws = await signAll(
        dev0,
        addrs.map((to) => ({ type: 2, chainId: CHAIN_ID, nonce: nonce++, to, value: wei, gasLimit: 21_000n, ...FEES })),
      );
      await sendAndWait(chain, raws, 'funding from dev account 0');
    },
  };
  return chain;
}

function hardhatChain(hh: HardhatNode): Chain {
  const client = jsonClient(hh.url, CONNECTIONS);
  const rpc = rpcClient(client);
  const chain: Chain = {
    name: 'Hardhat',
    url: hh.url,
    chainId: HARDHAT_CHAIN_ID,
    pgid: hh.pgid,
    batchInOrder: false,
    client,
    rpc,
    async fund(addrs, wei) {
      const [from] = await rpc.call<string[]>('eth_accounts');
      const hashes: string[] = [];
      for (let i = 0; i < addrs.length; i += 50) {
        const replies = await rpc.batch<string>(
          addrs
            .slice(i, i + 50)
            .map((to) => ['eth_sendTransaction', [{ from, to, value: `0x${wei.toString(16)}`, gas: '0x5208' }]]),
        );
        for (const r of replies) {
          if (r.error) throw new Error(`Hardhat: funding refused: ${r.error.message}`);
          hashes.push(r.result!);
        }
      }
      await receipts(chain, hashes, 'funding from default account 0', 60_000);
    },
  };
  return chain;
}

// ─────────────────────────────────────────────────────────────────────────── transfers

const wallet = (label: string) => new Wallet(keccak256(toUtf8Bytes(`cairn-bench/hardhat/${label}`)));

interface Plan {
  deployer: Wallet;
  senders: Wallet[];
  token: Interface;
  tokenAddr: string;
  bytecode: string;
}

/** Funds the deployer and the senders, deploys the token at the deployer's nonce 0 and gives each sender tokens. */
async function setUp(chain: Chain, p: Plan): Promise<void> {
  const t0 = Date.now();
  await chain.fund([p.deployer.address, ...p.senders.map((s) => s.address)], COINS_EACH);
  const base = { type: 2, chainId: chain.chainId, value: 0n, ...FEES };
  const txs: TransactionLike[] = [
    {
      ...base,
      nonce: 0,
      to: null,
      data: p.bytecode + p.token.encodeDeploy([10n ** 30n]).slice(2),
      gasLimit: 3_000_000n,
    },
  ];
  for (const [i, s] of p.senders.entries()) {
    txs.push({
      ...base,
      nonce: i + 1,
      to: p.tokenAddr,
      data: p.token.encodeFunctionData('transfer', [s.address, TOKENS_EACH]),
      gasLimit: TRANSFER_GAS,
    });
  }
  const r = await sendAndWait(chain, await signAll(p.deployer, txs), 'token deploy and distribution');
  if (r[0].contractAddress?.toLowerCase() !== p.tokenAddr.toLowerCase())
    throw new Error(`${chain.name}: token at ${r[0].contractAddress}, expected ${p.tokenAddr}`);
  console.error(
    `${chain.name}: ${p.senders.length + 1} wallets funded, token deployed at ${p.tokenAddr} and distributed ` +
      `(${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
}

/**
 * The transfers of run `run` signed for `chainId`, in lanes: lane k sends for senders k, k+L, …, round by round in
 * nonce order.
 */
async function signRun(p: Plan, chainId: number, run: number, lanes: number): Promise<string[][]> {
  const S = p.senders.length;
  const bySender = await Promise.all(
    p.senders.map((w, s) => {
      const txs: TransactionLike[] = [];
      for (let k = 0; k < PER_SENDER; k++) {
        const nonce = run * PER_SENDER + k;
        const to = p.senders[(s + 1 + (nonce % (S - 1))) % S].address;
        txs.push({
          type: 2,
          chainId,
          nonce,
          to: p.tokenAddr,
          value: 0n,
          data: p.token.encodeFunctionData('transfer', [to, BigInt(1 + ((s + nonce) % 7))]),
          gasLimit: TRANSFER_GAS,
          ...FEES,
        });
      }
      return signAll(w, txs);
    }),
  );
  const out: string[][] = Array.from({ length: lanes }, () => []);
  for (let k = 0; k < PER_SENDER; k++) for (let s = 0; s < S; s++) out[s % lanes].push(bySender[s][k]);
  return out;
}

interface Pushed {
  accepted: number;
  refused: string[];
  startWall: number;
  lastReplyWall: number;
  hashesLast: string[];
}

/** Every lane sends its transactions one request at a time; all lanes at once. */
async function push(chain: Chain, lanes: string[][], state: { done: boolean; accepted: number }): Promise<Pushed> {
  const refused: string[] = [];
  const startWall = Date.now();
  let lastReplyWall = startWall;
  const last = new Map<number, string>();
  await Promise.all(
    lanes.map(async (raws, lane) => {
      for (const raw of raws) {
        const r = await chain.client.post<{ result?: string; error?: { message: string } }>(
          '/',
          `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["${raw}"]}`,
        );
        lastReplyWall = Date.now();
        if (r.status === 200 && r.body.result) {
          state.accepted++;
          last.set(lane, r.body.result);
        } else refused.push(r.body.error?.message ?? `HTTP ${r.status}`);
      }
    }),
  );
  state.done = true;
  return { accepted: state.accepted, refused, startWall, lastReplyWall, hashesLast: [...last.values()] };
}

interface TransferRun {
  rate: number;
  /** Cairn: build + commit ms of its blocks of ≥ 400 transfers. */
  blockMs?: number[];
  accepted: number;
  refused: string[];
  note: string;
}

async function cairnTransfers(chain: Chain, node: SpawnedNode, lanes: string[][]): Promise<TransferRun> {
  const h0 = Number(await chain.rpc.call<string>('eth_blockNumber'));
  const logged0 = node.blocks.length ? node.blocks.at(-1)!.height : 0;
  const afterHeight = Math.max(h0, logged0);
  const state = { done: false, accepted: 0 };
  const startWall = Date.now();
  const pushed = push(chain, lanes, state);
  const outcome = await watchInclusion({
    node,
    afterHeight,
    accepted: () => state.accepted,
    submitted: () => state.done,
    startWall,
    timeoutS: 300,
  });
  const p = await pushed;
  const blocks = node.blocks.filter((b) => b.height > afterHeight && b.txs > 0);
  const included = txsInBlocksAfter(node, afterHeight);
  const end = blocks.at(-1)?.time ?? Date.now();
  await receipts(chain, p.hashesLast, 'the last transfer of each lane', 30_000);
  const rate = outcome === 'complete' ? included / ((end - startWall) / 1000) : NaN;
  const submitRate = p.accepted / ((p.lastReplyWall - startWall) / 1000);
  return {
    rate,
    accepted: p.accepted,
    refused: p.refused,
    blockMs: blocks.filter((b) => b.txs >= 400).map((b) => b.ms),
    note:
      `${outcome}; ${blocks.length} blocks (largest ${Math.max(0, ...blocks.map((b) => b.txs))} tx); ` +
      `admission ${submitRate.toFixed(0)} tx/s`,
  };
}

async function hardhatTransfers(chain: Chain, lanes: string[][]): Promise<TransferRun> {
  const h0 = Number(await chain.rpc.call<string>('eth_blockNumber'));
  const state = { done: false, accepted: 0 };
  const p = await push(chain, lanes, state);
  const h1 = Number(await chain.rpc.call<string>('eth_blockNumber'));
  await receipts(chain, p.hashesLast, 'the last transfer of each lane', 10_000);
  // Automine: eth_sendRawTransaction answers once its block is mined.
  const rate = p.accepted / ((p.lastReplyWall - p.startWall) / 1000);
  return { rate, accepted: p.accepted, refused: p.refused, note: `${h1 - h0} blocks` };
}

// ─────────────────────────────────────────────────────────────────────────── main

async function main(): Promise<void> {
  ensureWrk();
  const hhPromise = startHardhat();
  hhPromise.catch(() => {});
  const node = await spawnNode({
    devAccounts: 1,
    slotMs: SLOT_MS,
    mempoolCap: 50_000,
    logLevel: 'info',
    cpuProf: values.profile,
  });
  let hh: HardhatNode | null = null;
  const windows: { label: string; from: number; to: number }[] = [];
  try {
    hh = await hhPromise;
    await node.ready;
    const cairn = cairnChain(node);
    const hardhat = hardhatChain(hh);
    const chains = [cairn, hardhat];

    const { TestToken } = compileSolidity(ERC20_SOURCE);
    const deployer = wallet('deployer');
    const plan: Plan = {
      deployer,
      senders: Array.from({ length: SENDERS }, (_, i) => wallet(`sender/${i}`)),
      token: new Interface(TestToken.abi),
      tokenAddr: getCreateAddress({ from: deployer.address, nonce: 0 }),
      bytecode: TestToken.bytecode,
    };
    await Promise.all(chains.map((c) => setUp(c, plan)));
    const rows: ResultRow[] = [];
    const hhVersion = `Hardhat ${HARDHAT_VERSION}${hh.edrVersion ? ` (EDR ${hh.edrVersion})` : ''}`;
    const hhName = `${hhVersion}: hardhat node, automine, request logging off`;

    // ── reads
    if (PHASES.includes('reads')) {
      const addrs = plan.senders.slice(0, 16).map((s) => s.address.toLowerCase());
      const one = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      const reads: [string, string[]][] = [
        ['eth_blockNumber', [one('eth_blockNumber', [])]],
        ['eth_getBalance', addrs.map((a) => one('eth_getBalance', [a, 'latest']))],
        [
          'eth_call',
          addrs.map((a) =>
            one('eth_call', [
              { to: plan.tokenAddr.toLowerCase(), data: plan.token.encodeFunctionData('balanceOf', [a]) },
              'latest',
            ]),
          ),
        ],
      ];
      // Every body once on both: a bench of error replies would measure the wrong thing; the token reads must agree.
      for (const [method, bodies] of reads) {
        const answers = await Promise.all(
          chains.map(async (c) => {
            const got: unknown[] = [];
            for (const b of bodies) {
              const r = await c.client.post<{ result?: unknown; error?: { message: string } }>('/', b);
              if (r.status !== 200 || r.body.error || r.body.result === undefined)
                throw new Error(`${c.name} ${method} check failed: ${JSON.stringify(r.body)}`);
              got.push(r.body.result);
            }
            return JSON.stringify(got);
          }),
        );
        if (method === 'eth_call' && answers[0] !== answers[1])
          throw new Error(`eth_call answers differ:\n${answers.join('\n')}`);
      }
      for (const [method, bodies] of reads) {
        const rps: Record<string, number[]> = { Cairn: [], Hardhat: [] };
        const cpuUs: Record<string, number[]> = { Cairn: [], Hardhat: [] };
        let p99 = 0;
        let failures = 0;
        for (let i = 0; i < RUNS; i++) {
          // Interleaved: a slow spell of the shared machine hits both sides.
          for (const c of chains) {
            const c0 = groupCpu(c.pgid).total;
            const t0 = monoMs();
            const r: RpcLoadResult = await wrkRpc(c.url, bodies, {
              connections: CONNECTIONS,
              threads: THREADS,
              duration: SECONDS,
            });
            if (c === cairn) windows.push({ label: `${method} (wrk, run ${i + 1})`, from: t0, to: monoMs() });
            cpuUs[c.name].push(((groupCpu(c.pgid).total - c0) * 1e6) / Math.max(1, r.requests));
            rps[c.name].push(r.ok / r.seconds);
            if (c === cairn) p99 = Math.max(p99, r.p99us / 1000);
            failures += r.errors;
            if (r.errors) console.error(`${c.name} ${method}: ${r.errors} errors (${r.errorKinds})`);
          }
        }
        const cs = spread(rps.Cairn);
        const hs = spread(rps.Hardhat);
        const ratio = cs.median / hs.median;
        rows.push({
          metric: `${method} (req/s)`,
          unit: 'req/s',
          cairn: cs,
          reference: { name: hhName, value: hs },
          target: `≥ ${READ_TARGET}× the reference`,
          met: ratio >= READ_TARGET && failures === 0,
          note:
            `${ratio.toFixed(1)}× ${hhVersion}; wrk ${THREADS} threads, ${CONNECTIONS} ` +
            `connections, ${bodies.length} bodies rotated, ${SECONDS} s × ${RUNS} runs interleaved; Cairn ` +
            `p99 ${p99.toFixed(1)} ms; server CPU per request ${spread(cpuUs.Cairn).median.toFixed(0)} µs ` +
            `vs ${spread(cpuUs.Hardhat).median.toFixed(0)} µs${failures ? `; ${failures} errors` : ''}`,
        });
        console.error(
          `${method}: Cairn ${showSpread(cs)} req/s, Hardhat ${showSpread(hs)} req/s → ${ratio.toFixed(1)}×`,
        );
      }
    }

    // ── ERC-20 transfers
    if (PHASES.includes('transfers')) {
      const lanes = Math.min(CONNECTIONS, SENDERS);
      const t0 = Date.now();
      const signed = await Promise.all(
        Array.from({ length: RUNS }, async (_, run) => ({
          cairn: await signRun(plan, cairn.chainId, run, lanes),
          hardhat: await signRun(plan, hardhat.chainId, run, lanes),
        })),
      );
      console.error(
        `signed ${2 * RUNS * TRANSFERS} transfers (${RUNS} runs × ${TRANSFERS} × 2 chain ids) ` +
          `in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      const runs: Record<string, TransferRun[]> = { Cairn: [], Hardhat: [] };
      for (let run = 0; run < RUNS; run++) {
        const tc = monoMs();
        const c = await cairnTransfers(cairn, node, signed[run].cairn);
        windows.push({ label: `ERC-20 transfers (run ${run + 1})`, from: tc, to: monoMs() });
        const h = await hardhatTransfers(hardhat, signed[run].hardhat);
        for (const [name, r] of [
          ['Cairn', c],
          ['Hardhat', h],
        ] as const) {
          if (r.refused.length || r.accepted !== TRANSFERS)
            throw new Error(
              `${name}: ${r.accepted} of ${TRANSFERS} transfers accepted; ` +
                `refusals: ${[...new Set(r.refused)].slice(0, 5).join('; ')}`,
            );
          if (!(r.rate > 0)) throw new Error(`${name}: transfers did not complete (${r.note})`);
          runs[name].push(r);
        }
        console.error(
          `transfers run ${run + 1}: Cairn ${c.rate.toFixed(0)} tx/s (${c.note}), ` +
            `Hardhat ${h.rate.toFixed(0)} tx/s (${h.note})`,
        );
      }
      // The same transfers ran on both: the same token balances.
      const balances = await Promise.all(
        chains.map(async (c) => {
          const out: string[] = [];
          for (let i = 0; i < SENDERS; i += 50) {
            const r = await c.rpc.batch<string>(
              plan.senders
                .slice(i, i + 50)
                .map((s) => [
                  'eth_call',
                  [{ to: plan.tokenAddr, data: plan.token.encodeFunctionData('balanceOf', [s.address]) }, 'latest'],
                ]),
            );
            out.push(...r.map((x) => x.result ?? `error ${x.error?.message}`));
          }
          return out;
        }),
      );
      const differ = balances[0].filter((b, i) => b !== balances[1][i]).length;
      if (differ)
        throw new Error(`after the transfers, ${differ} of ${SENDERS} token balances differ between Cairn and Hardhat`);
      const cs: Spread = spread(runs.Cairn.map((r) => r.rate));
      const hs: Spread = spread(runs.Hardhat.map((r) => r.rate));
      const ratio = cs.median / hs.median;
      const mid = runs.Cairn[Math.floor(RUNS / 2)];
      const blockMs = runs.Cairn.flatMap((r) => r.blockMs ?? []);
      const buildNote = blockMs.length
        ? `; a block of ≥ 400 transfers takes ${spread(blockMs).median.toFixed(0)} ms ` +
          `(median of ${blockMs.length}) to build and commit`
        : '';
      rows.push({
        metric: 'ERC-20 transfers (tx/s)',
        unit: 'tx/s',
        cairn: cs,
        reference: { name: hhName, value: hs },
        target: `≥ ${TRANSFER_TARGET}× the reference`,
        met: ratio >= TRANSFER_TARGET,
        note:
          `${ratio.toFixed(1)}× ${hhVersion}; ${TRANSFERS} signed EIP-1559 transfers per run from ${SENDERS} ` +
          `senders over ${lanes} keep-alive connections, eth_sendRawTransaction one at a time per connection; ` +
          `Cairn counted in committed blocks (${SLOT_MS} ms slots, ≤ 500 tx per block: a ceiling ` +
          `of ${((500 * 1000) / SLOT_MS).toFixed(0)} tx/s; ${mid.note}${buildNote}), Hardhat when mined; ` +
          `balances equal on both after ${RUNS} runs`,
      });
    }

    const out = writeResults('hardhat', rows, values['results-dir']);
    printTable(
      `Cairn JSON-RPC vs ${hh.clientVersion}`,
      rows.map((r) => [
        r.metric,
        `Cairn ${showSpread(r.cairn)}   ` +
          `Hardhat ${r.reference ? showSpread(r.reference.value) : '–'}   ${r.target}: ${r.met ? 'met' : 'MISSED'}`,
      ]),
    );
    console.log(JSON.stringify(out, null, 2));
    const problems = node.problems.filter((l) => !/npm warn/.test(l));
    if (problems.length)
      console.error(
        `\nCairn node warnings/errors (last ${Math.min(10, problems.length)}):\n${problems.slice(-10).join('\n')}`,
      );
    for (const c of chains) c.client.close();
  } finally {
    await hh?.stop();
    await node.stop(false);
  }
  if (node.cpuProfDir) {
    // The last run of each kind.
    const last = new Map(windows.map((w) => [w.label.replace(/ \(.*$/, ''), w]));
    for (const w of last.values()) {
      console.log(`\n════ Cairn node CPU profile: ${w.label}`);
      summarizeProfile(node.cpuProfDir, w);
    }
  }
}

await main();
