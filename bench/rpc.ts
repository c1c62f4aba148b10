/**
 * JSON-RPC read throughput: requests/s and latency of eth_blockNumber, eth_getBalance and
 * eth_call (TestToken.balanceOf), each for --duration seconds, with a concurrent keep-alive
 * client.
 *
 *   npx tsx bench/rpc.ts [--url http://127.0.0.1:7070] [--token 0x…] [--connections 128]
 *                        [--duration 10] [--client auto|wrk|node] [--threads 2] [--pipeline 8]
 *                        [--methods eth_blockNumber,eth_getBalance,eth_call] [--slot-ms 500]
 *                        [--cpu-prof] [--keep] [--wait-quiet 30]
 *
 * Without --url it starts its own node (fresh temp data dir, 10 dev accounts), deploys
 * TestToken from dev account 0 and gives tokens to accounts 1..9. With --url it deploys
 * TestToken there from the published dev account 0 key, unless --token names one already
 * deployed. eth_getBalance and eth_call rotate over the 10 dev-account addresses.
 * Extra methods accepted by --methods: eth_chainId, eth_getTransactionReceipt (the deploy
 * transaction), eth_getBlockByNumber (latest, no txs).
 *
 * Client: wrk (C, epoll; `apt-get install -y wrk`) with a generated Lua script that sets
 * method, body and headers, rotates request bodies and checks every response (HTTP 200 and no
 * JSON-RPC "error"; bench/lib/rpcLoad.ts, shared with bench/hardhat.ts); --client auto uses wrk when it is on PATH.
 * Fallback (--client node): a
 * pipelined HTTP/1.1 client on raw keep-alive sockets in this process (--pipeline requests
 * outstanding per connection; no undici here). Which client ran is printed. The node's CPU
 * per thread and the client's CPU are reported next to the rates, so a client bottleneck
 * shows.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Interface, Wallet } from 'ethers';
import { devAccounts } from '../src/chain/devnet';
import { compileSolidity, ERC20_SOURCE } from '../test/helpers/solidity';
import {
  fmt,
  groupCpu,
  jsonClient,
  machineCpu,
  monoMs,
  posInt,
  printTable,
  rpcClient,
  sleep,
  spawnNode,
  summarizeProfile,
  threadRows,
  waitQuiet,
  type SpawnedNode,
} from './lib/harness';
import { wrkRpc, type RpcLoadResult } from './lib/rpcLoad';

const CHAIN_ID = 72020;
const GAS_PRICE = 10_000_000_000n;

type RunResult = RpcLoadResult;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      connections: { type: 'string', default: '128' },
      duration: { type: 'string', default: '10' },
      client: { type: 'string', default: 'auto' },
      threads: { type: 'string', default: '2' },
      pipeline: { type: 'string', default: '8' },
      methods: { type: 'string', default: 'eth_blockNumber,eth_getBalance,eth_call' },
      'slot-ms': { type: 'string', default: '500' },
      'cpu-prof': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      'wait-quiet': { type: 'string', default: '30' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
    return;
  }
  const connections = posInt(values.connections!, 'connections', 10_000);
  const duration = posInt(values.duration!, 'duration', 3600);
  const threads = posInt(values.threads!, 'threads', 64);
  const pipeline = posInt(values.pipeline!, 'pipeline', 1024);
  const methods = values
    .methods!.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  let client = values.client!;
  const haveWrk = spawnSync('wrk', ['--version']).error === undefined;
  if (client === 'auto') client = haveWrk ? 'wrk' : 'node';
  if (client === 'wrk' && !haveWrk)
    throw new Error('wrk is not on PATH (apt-get install -y wrk), or use --client node');
  if (client !== 'wrk' && client !== 'node') throw new Error('--client must be auto, wrk or node');

  let node: SpawnedNode | null = null;
  let stopped = false;
  const stop = async () => {
    if (stopped || !node) return;
    stopped = true;
    await node.stop(values.keep!);
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));

  try {
    let rpcUrl = values.url?.replace(/\/+$/, '');
    if (!rpcUrl) {
      node = await spawnNode({
        devAccounts: 10,
        slotMs: posInt(values['slot-ms']!, 'slot-ms', 1000, 50),
        mempoolCap: 5000,
        logLevel: 'warn',
        cpuProf: values['cpu-prof'],
      });
      await node.ready;
      rpcUrl = node.rpcUrl;
    }
    const c = jsonClient(rpcUrl, 8);
    const rpc = rpcClient(c);
    const chainId = Number(await rpc.call<string>('eth_chainId'));
    if (chainId !== CHAIN_ID) throw new Error(`chain id ${chainId}, expected ${CHAIN_ID}`);
    const dev = devAccounts(10).map((a) => a.file);
    const addrs = dev.map((a) => a.address.toLowerCase());

    // ── TestToken: deploy (and spread some tokens) unless given
    const { TestToken } = compileSolidity(ERC20_SOURCE);
    const token = new Interface(TestToken.abi);
    let tokenAddr = values.token?.toLowerCase();
    let deployHash: string | undefined;
    if (!tokenAddr) {
      const w = new Wallet(dev[0].secp256k1PrivateKey);
      let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [w.address, 'pending']));
      const fee = { type: 2, chainId: CHAIN_ID, maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 0n, value: 0n } as const;
      const raws = [
        await w.signTransaction({
          ...fee,
          nonce: nonce++,
          to: null,
          data: TestToken.bytecode + token.encodeDeploy([10n ** 30n]).slice(2),
          gasLimit: 3_000_000n,
        }),
      ];
      const predicted = (await import('ethers')).getCreateAddress({ from: w.address, nonce: nonce - 1 }).toLowerCase();
      for (const a of addrs.slice(1))
        raws.push(
          await w.signTransaction({
            ...fee,
            nonce: nonce++,
            to: predicted,
            data: token.encodeFunctionData('transfer', [a, 10n ** 21n]),
            gasLimit: 100_000n,
          }),
        );
      const replies = await rpc.batch<string>(raws.map((r) => ['eth_sendRawTransaction', [r]]));
      for (const r of replies) if (r.error) throw new Error(`setup refused: ${r.error.message}`);
      deployHash = replies[0].result!;
      const last = replies.at(-1)!.result!;
      const until = Date.now() + 60_000;
      let receipt: { status: string; contractAddress: string | null } | null = null;
      while (!(receipt = await rpc.call('eth_getTransactionReceipt', [last]))) {
        if (Date.now() > until) throw new Error('setup transactions not included within 60 s');
        await sleep(200);
      }
      const dr = await rpc.call<{ status: string; contractAddress: string }>('eth_getTransactionReceipt', [deployHash]);
      if (dr.status !== '0x1' || receipt.status !== '0x1') throw new Error('setup transactions failed');
      tokenAddr = dr.contractAddress.toLowerCase();
      console.error(`TestToken deployed at ${tokenAddr}`);
    }

    const bodiesOf = (m: string): string[] => {
      const one = (params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: m, params });
      switch (m) {
        case 'eth_blockNumber':
        case 'eth_chainId':
          return [one([])];
        case 'eth_getBalance':
          return addrs.map((a) => one([a, 'latest']));
        case 'eth_call':
          return addrs.map((a) => one([{ to: tokenAddr, data: token.encodeFunctionData('balanceOf', [a]) }, 'latest']));
        case 'eth_getTransactionReceipt':
          if (!deployHash) throw new Error('eth_getTransactionReceipt needs the deploy done by this run (no --token)');
          return [one([deployHash])];
        case 'eth_getBlockByNumber':
          return [one(['latest', false])];
        default:
          throw new Error(`method ${m} is not in this bench`);
      }
    };
    // Check every body once: a bench of error replies would measure the wrong thing.
    const plan = methods.map((m) => ({ method: m, bodies: bodiesOf(m) }));
    for (const p of plan) {
      for (const b of p.bodies) {
        const r = await c.post<{ result?: unknown; error?: { message: string } }>('/', b);
        if (r.status !== 200 || r.body.error || r.body.result === undefined)
          throw new Error(`${p.method} check failed: ${JSON.stringify(r.body)}`);
      }
      const sample = (await c.post<{ result?: unknown }>('/', p.bodies[p.bodies.length - 1])).body.result;
      console.error(
        `${p.method}: ${p.bodies.length} distinct bodies, e.g. result ${JSON.stringify(sample).slice(0, 80)}`,
      );
    }
    c.close();

    const results: {
      method: string;
      r: RunResult;
      nodeCpu: number;
      nodeMain: number;
      others: number;
      threadLines: [string, string][];
    }[] = [];
    let profWindow: { from: number; to: number } | null = null;
    for (const p of plan) {
      await waitQuiet(Number(values['wait-quiet']), node?.pgid ?? null);
      const n0 = node ? groupCpu(node.pgid) : null;
      const m0 = machineCpu();
      const t0 = monoMs();
      const r =
        client === 'wrk'
          ? await wrkRpc(rpcUrl, p.bodies, { connections, threads, duration })
          : await runPipelined(rpcUrl, p.bodies, { connections, pipeline, duration });
      const t1 = monoMs();
      const m1 = machineCpu();
      const n1 = node ? groupCpu(node.pgid) : null;
      profWindow = profWindow ?? { from: t0, to: t1 };
      const wall = t1 - t0;
      const nodeCpu = n0 && n1 ? n1.total - n0.total : NaN;
      const mainKey = node ? `${node.pgid}/${node.pgid}` : '';
      const nodeMain = n0 && n1 ? (n1.threads.get(mainKey)?.s ?? 0) - (n0.threads.get(mainKey)?.s ?? 0) : NaN;
      const others =
        m0 && m1 ? Math.max(0, m1.busy - m0.busy - (Number.isNaN(nodeCpu) ? 0 : nodeCpu) - r.clientCpuS) : NaN;
      results.push({
        method: p.method,
        r,
        nodeCpu: (nodeCpu * 1000) / wall,
        nodeMain: (nodeMain * 1000) / wall,
        others: (others * 1000) / wall,
        threadLines: n0 && n1 ? threadRows(n0, n1, wall, 3) : [],
      });
      console.error(`${p.method}: ${(r.ok / r.seconds).toFixed(0)} req/s`);
    }

    const clientDesc =
      client === 'wrk'
        ? `wrk (C, epoll) ${threads} threads, ${connections} keep-alive connections, Lua: POST / with JSON ` +
          `body, every response checked`
        : `node pipelined HTTP/1.1 client (raw sockets, this process), ${connections} keep-alive connections ` +
          `× ${pipeline} in flight`;
    const rows: [string, string][] = [
      ['client', clientDesc],
      ['target', `${rpcUrl}${node ? ' (own node, 10 dev accounts, idle chain)' : ''}; ${duration} s per method`],
    ];
    for (const { method, r, nodeCpu, nodeMain, others, threadLines } of results) {
      rows.push(
        [
          method,
          `${(r.ok / r.seconds).toFixed(0)} req/s   p50 ${fmt(r.p50us / 1000, 2)} ms   ` +
            `p90 ${fmt(r.p90us / 1000, 2)} ms   p99 ${fmt(r.p99us / 1000, 2)} ms   ` +
            `max ${fmt(r.maxUs / 1000, 1)} ms`,
        ],
        ['  requests / errors', `${r.requests} / ${r.errors}${r.errors ? ` (${r.errorKinds})` : ''}`],
        [
          '  CPU (% of one core)',
          `node ${fmt(nodeCpu * 100, 0)} % (main thread ${fmt(nodeMain * 100, 0)} %), ` +
            `client ${(((r.clientCpuS * 1000) / (r.seconds * 1000)) * 100).toFixed(0)} %, other ` +
            `processes ${fmt(others * 100, 0)} %`,
        ],
      );
      if (threadLines.length && values['cpu-prof']) rows.push(...threadLines);
    }
    printTable('JSON-RPC reads (bench/rpc.ts)', rows);
    const bn = results.find((x) => x.method === 'eth_blockNumber');
    if (bn)
      console.log(
        `\ntarget ≥ 15,000 req/s for eth_blockNumber: ${bn.r.ok / bn.r.seconds >= 15_000 ? 'MET' : 'MISSED'} ` +
          `(${(bn.r.ok / bn.r.seconds).toFixed(0)})`,
      );
    if (node) {
      const problems = node.problems.filter((l) => !/npm warn/.test(l));
      if (problems.length)
        console.log(
          `\nnode warnings/errors (last ${Math.min(10, problems.length)}):\n${problems.slice(-10).join('\n')}`,
        );
      await stop();
      if (node.cpuProfDir && profWindow) {
        console.log(`\n════ node CPU profile during the ${results[0].method} run`);
        summarizeProfile(node.cpuProfDir, profWindow);
      }
    }
  } finally {
    await stop();
  }
}

// ─────────────────────────────────────────────────────────────────────────── pipelined Node client

/** HTTP/1.1 keep-alive with `pipeline` requests outstanding per connection; content-length responses. */
async function runPipelined(
  url: string,
  bodies: string[],
  o: { connections: number; pipeline: number; duration: number },
): Promise<RunResult> {
  const u = new URL(url);
  const reqs = bodies.map((b) =>
    Buffer.from(
      `POST / HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`,
    ),
  );
  const lat: number[] = [];
  let ok = 0;
  let errors = 0;
  const kinds = new Map<string, number>();
  const fail = (k: string) => {
    errors++;
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  };
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const endAt = start + o.duration * 1000;
  let ri = 0;
  const conn = () =>
    new Promise<void>((resolve) => {
      const sock = net.connect(Number(u.port), u.hostname);
      sock.setNoDelay(true);
      const sent: number[] = [];
      let head = 0;
      let buf: Buffer = Buffer.alloc(0);
      const pump = () => {
        const now = performance.now();
        if (now >= endAt) return;
        const chunks: Buffer[] = [];
        while (sent.length - head < o.pipeline) {
          chunks.push(reqs[ri++ % reqs.length]);
          sent.push(now);
        }
        if (chunks.length) sock.write(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      };
      sock.on('connect', pump);
      sock.on('data', (d: Buffer) => {
        buf = buf.length ? Buffer.concat([buf, d]) : d;
        for (;;) {
          const he = buf.indexOf('\r\n\r\n');
          if (he < 0) break;
          const headText = buf.subarray(0, he).toString('latin1');
          const m = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
          if (!m) {
            fail('no content-length');
            sock.destroy();
            return;
          }
          const len = Number(m[1]);
          if (buf.length < he + 4 + len) break;
          const body = buf.subarray(he + 4, he + 4 + len).toString('utf8');
          buf = buf.subarray(he + 4 + len);
          const t = sent[head++];
          const now = performance.now();
          if (now <= endAt) {
            lat.push(now - t);
            if (headText.startsWith('HTTP/1.1 200') && body.includes('"result"') && !body.includes('"error"')) ok++;
            else fail(`HTTP ${headText.slice(9, 12)} ${body.slice(0, 60)}`);
          }
        }
        if (head > 4096) {
          sent.splice(0, head);
          head = 0;
        }
        if (performance.now() >= endAt) {
          if (head >= sent.length) sock.end();
          return;
        }
        pump();
      });
      sock.on('error', (e) => {
        fail(`socket: ${(e as NodeJS.ErrnoException).code ?? e.message}`);
      });
      sock.on('close', () => resolve());
      setTimeout(() => sock.destroy(), o.duration * 1000 + 10_000).unref();
    });
  await Promise.all(Array.from({ length: o.connections }, conn));
  const seconds = Math.min(performance.now(), endAt) / 1000 - start / 1000;
  const c = process.cpuUsage(cpu0);
  lat.sort((a, b) => a - b);
  const p = (q: number) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] * 1000 : NaN);
  return {
    requests: ok + errors,
    ok,
    errors,
    errorKinds: [...kinds].map(([k, v]) => `${k} ×${v}`).join(', '),
    seconds,
    p50us: p(0.5),
    p90us: p(0.9),
    p99us: p(0.99),
    maxUs: (lat.at(-1) ?? NaN) * 1000,
    clientCpuS: (c.user + c.system) / 1e6,
  };
}

await main();
