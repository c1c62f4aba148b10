import { freePort } from '../../helpers/testNode';
import { REFUSAL } from '../../../src/protocol/txRefusals';
import { AbiCoder, JsonRpcProvider, Network, Transaction, Wallet } from 'ethers';
import pino from 'pino';
import { createPublicClient, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genesisHeader, signHeader, txRootOf, ZERO_ADDRESS, ZERO_HASH } from '../../../src/chain/block';
import { signTx } from '../../../src/chain/envelope';
import { CHAIN_ID, FEES } from '../../../src/protocol/params';
import type { Address, Block, EthTx, HybridTx, SignedTx, TxResult } from '../../../src/protocol/types';
import { keccakHex } from '../../../src/crypto/hash';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import { fromHex, toHex, utf8, type Hex } from '../../../src/primitives/hex';
import type {
  RpcBackend,
  RpcCallMessage,
  RpcCallOutcome,
  RpcLog,
  RpcLogFilter,
  RpcTxLocation,
} from '../../../src/api/rpcPort';
import { bloomMayContain, logsBloom } from '../../../src/rpc/format';
import { createRpcServer, type RpcServer } from '../../../src/rpc/server';
import { DEV_NETWORK } from '../../../src/chain/devnet';

// ---------------------------------------------------------------------------------------------
// Fixtures: real Cairn blocks (signed headers, hybrid-signed native txs) and real Ethereum
// transactions signed by ethers for chain 72020.

const k0 = deriveKeys(devSecret(0));
const k1 = deriveKeys(devSecret(1));
const kP = deriveKeys(devSecret(2)); // block producer
const wallet = new Wallet(toHex(k0.secp256k1.privateKey));
const CONTRACT: Address = `0x${'cc'.repeat(20)}`;
const DEPLOYED: Address = `0x${'dd'.repeat(20)}`;
const BOOM: Address = `0x${'ee'.repeat(20)}`; // the backend throws on this address
const TRANSFER_TOPIC: Hex = keccakHex(utf8('Transfer(address,address,uint256)'));
const pad32 = (a: string): Hex => `0x${a.slice(2).padStart(64, '0')}`;
const GAS_PRICE = (FEES.VM_TRANSFER * 10n ** 12n) / 21_000n;
const REVERT_SELECTOR = '0xdeadbeef';
const OOG_SELECTOR = '0x0badc0de';
const revertData = (reason: string): Hex =>
  `0x08c379a0${AbiCoder.defaultAbiCoder().encode(['string'], [reason]).slice(2)}` as Hex;
const T0 = 1_700_000_000_000;

function ethTxFromRaw(raw: string, timestamp: number): EthTx {
  const t = Transaction.from(raw);
  const price = t.maxFeePerGas ?? t.gasPrice ?? 0n;
  const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
  return {
    envelope: 'eth',
    chainId: CHAIN_ID,
    type: t.to === null ? 'VM_DEPLOY' : t.data === '0x' ? 'VM_TRANSFER' : 'VM_CALL',
    from: t.from!.toLowerCase() as Address,
    to: t.to ? (t.to.toLowerCase() as Address) : null,
    amount: ceilDiv(t.value, 10n ** 12n).toString(),
    nonce: t.nonce,
    timestamp,
    fee: ceilDiv(t.gasLimit * price, 10n ** 12n).toString(),
    data: null,
    id: t.hash! as Hex,
    raw: raw as Hex,
    gasLimit: t.gasLimit.toString(),
    gasPrice: price.toString(),
    valueWei: t.value.toString(),
    input: t.data as Hex,
  };
}

function makeBlock(parent: Block, txs: SignedTx[], results: TxResult[]): Block {
  const height = parent.header.height + 1;
  const header = signHeader(kP, {
    height,
    parentHash: parent.header.hash,
    timestamp: T0 + height * 1_500,
    producer: kP.address,
    txRoot: txRootOf(txs),
    stateRoot: keccakHex(utf8(`state ${height}`)),
    txCount: txs.length,
  });
  return { header, txs, results };
}

const ok = (vm?: TxResult['vm']): TxResult => ({
  status: 'success',
  energyUsed: '100',
  burned: '0',
  ...(vm ? { vm } : {}),
});

interface Fixture {
  blocks: Block[];
  hybridTransfer: HybridTx;
  hybridCall: HybridTx;
  pendingHybrid: HybridTx;
  ethLegacy: EthTx;
  ethDeploy: EthTx;
  eth2930Failed: EthTx;
  knownRaw: string;
}

async function buildFixture(): Promise<Fixture> {
  const genesis: Block = {
    header: genesisHeader({
      height: 0,
      parentHash: ZERO_HASH,
      timestamp: T0,
      producer: ZERO_ADDRESS,
      txRoot: txRootOf([]),
      stateRoot: keccakHex(utf8('genesis')),
      txCount: 0,
    }),
    txs: [],
    results: [],
  };
  const hybridTransfer = signTx(
    k0,
    { type: 'TRANSFER', to: k1.address, amount: '1500000', nonce: 0, timestamp: T0 + 10, fee: '1000' },
    DEV_NETWORK,
  );
  const ethLegacy = ethTxFromRaw(
    await wallet.signTransaction({
      type: 0,
      chainId: CHAIN_ID,
      nonce: 1,
      to: k1.address,
      value: 10n ** 18n,
      gasLimit: 21_000,
      gasPrice: GAS_PRICE,
    }),
    T0 + 20,
  );
  const hybridCall = signTx(
    k1,
    {
      type: 'VM_CALL',
      to: CONTRACT,
      amount: '0',
      nonce: 0,
      timestamp: T0 + 30,
      fee: '5000',
      data: { gasLimit: '100000', input: '0xa9059cbb0000000000000000000000000000000000000000000000000000000000000001' },
    },
    DEV_NETWORK,
  );
  const block1 = makeBlock(
    genesis,
    [hybridTransfer, ethLegacy, hybridCall],
    [
      ok(),
      ok({ gasUsed: '21000', logs: [] }),
      ok({
        gasUsed: '51234',
        logs: [
          { address: CONTRACT, topics: [TRANSFER_TOPIC, pad32(k1.address), pad32(k0.address)], data: pad32('0x2a') },
        ],
      }),
    ],
  );

  const ethDeploy = ethTxFromRaw(
    await wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: 2,
      to: null,
      data: '0x6080604052348015600f57600080fd5b50',
      value: 0n,
      gasLimit: 500_000,
      maxFeePerGas: 2n * GAS_PRICE,
      maxPriorityFeePerGas: 0n,
    }),
    T0 + 40,
  );
  const eth2930Failed = ethTxFromRaw(
    await wallet.signTransaction({
      type: 1,
      chainId: CHAIN_ID,
      nonce: 3,
      to: CONTRACT,
      data: `${REVERT_SELECTOR}00`,
      value: 0n,
      gasLimit: 90_000,
      gasPrice: GAS_PRICE,
      accessList: [{ address: CONTRACT, storageKeys: [pad32('0x01')] }],
    }),
    T0 + 50,
  );
  const block2 = makeBlock(
    block1,
    [ethDeploy, eth2930Failed],
    [
      ok({
        gasUsed: '120000',
        logs: [{ address: DEPLOYED, topics: [keccakHex(utf8('Deployed()'))], data: '0x' }],
        contractAddress: DEPLOYED,
      }),
      {
        status: 'failed',
        error: 'execution reverted',
        energyUsed: '300',
        burned: '0',
        vm: { gasUsed: '30000', logs: [], returnData: revertData('nope') },
      },
    ],
  );
  const block3 = makeBlock(block2, [], []);
  const pendingHybrid = signTx(
    k1,
    { type: 'TRANSFER', to: k0.address, amount: '7', nonce: 1, timestamp: T0 + 60, fee: '1000' },
    DEV_NETWORK,
  );
  const knownRaw = ethLegacy.raw;
  return {
    blocks: [genesis, block1, block2, block3],
    hybridTransfer,
    hybridCall,
    pendingHybrid,
    ethLegacy,
    ethDeploy,
    eth2930Failed,
    knownRaw,
  };
}

/** An RpcBackend over in-memory blocks; logs are filtered independently of the RPC code. */
class TestBackend implements RpcBackend {
  readonly chainId = CHAIN_ID;
  readonly clientVersion = 'cairn/0.1.0-test';
  headOverride?: number;
  bigLogs = false;
  readonly pending = new Map<Hex, SignedTx>();
  readonly sent: Hex[] = [];
  lastCall?: { msg: RpcCallMessage; height: number };
  finalized = 1;
  finalizedHeight(): number {
    return this.finalized;
  }
  keptFrom = 0;
  historyFrom(): number {
    return this.keptFrom;
  }
  stateKeptFrom = 0;
  stateFrom(): number {
    return this.stateKeptFrom;
  }

  constructor(readonly blocks: Block[]) {}

  headHeight(): number {
    return this.headOverride ?? this.blocks.length - 1;
  }
  async block(ref: number | Hex) {
    const b = typeof ref === 'number' ? this.blocks[ref] : this.blocks.find((x) => x.header.hash === ref);
    return b ? { block: b, size: Buffer.byteLength(JSON.stringify(b)) } : undefined;
  }
  async balanceWei(addr: Address, _height: number): Promise<bigint> {
    if (addr === BOOM) throw new Error('disk on fire at /secret/path');
    return addr === k0.address ? 5n * 10n ** 18n + 7n : 0n;
  }
  async code(addr: Address): Promise<Hex> {
    return addr === CONTRACT ? '0x6080604052' : '0x';
  }
  async nonce(addr: Address, at: number | 'pending'): Promise<number> {
    const n = addr === k0.address ? 4 : addr === k1.address ? 1 : 0;
    return at === 'pending' && addr === k1.address ? n + 1 : n;
  }
  async tx(hash: Hex): Promise<RpcTxLocation | undefined> {
    for (const b of this.blocks) {
      const index = b.txs.findIndex((t) => t.id === hash);
      if (index >= 0)
        return {
          tx: b.txs[index],
          block: {
            height: b.header.height,
            hash: b.header.hash,
            index,
            result: b.results[index],
            timestamp: b.header.timestamp,
          },
        };
    }
    const p = this.pending.get(hash);
    return p ? { tx: p } : undefined;
  }
  async logs(f: RpcLogFilter): Promise<RpcLog[]> {
    if (this.bigLogs) {
      return Array.from({ length: f.limit }, (_, i) => ({
        address: CONTRACT,
        topics: [],
        data: '0x',
        blockHeight: 1,
        blockHash: this.blocks[1].header.hash,
        txHash: this.blocks[1].txs[0].id,
        txIndex: 0,
        logIndex: i,
      }));
    }
    const out: RpcLog[] = [];
    for (let h = f.fromHeight; h <= Math.min(f.toHeight, this.blocks.length - 1); h++) {
      const b = this.blocks[h];
      let logIndex = 0;
      b.results.forEach((r, txIndex) => {
        for (const l of r.vm?.logs ?? []) {
          const idx = logIndex++;
          if (f.addresses.length > 0 && !f.addresses.includes(l.address)) continue;
          if (f.topics.some((want, i) => want !== null && !want.includes(l.topics[i]))) continue;
          if (out.length < f.limit)
            out.push({
              ...l,
              blockHeight: h,
              blockHash: b.header.hash,
              txHash: b.txs[txIndex].id,
              txIndex,
              logIndex: idx,
            });
        }
      });
    }
    return out;
  }
  async call(msg: RpcCallMessage, height: number): Promise<RpcCallOutcome> {
    this.lastCall = { msg, height };
    const input = msg.input ? toHex(msg.input) : '0x';
    if (input.startsWith(REVERT_SELECTOR))
      return { ok: false, error: 'execution reverted', returnData: revertData('nope') };
    if (input.startsWith(OOG_SELECTOR)) return { ok: false, error: 'out of gas' };
    return { ok: true, returnData: pad32('0x2a'), gasUsed: 23_000n };
  }
  async estimateGas(msg: RpcCallMessage) {
    const input = msg.input ? toHex(msg.input) : '0x';
    if (input.startsWith(REVERT_SELECTOR))
      return { ok: false as const, error: 'execution reverted', returnData: revertData('nope') };
    return { ok: true as const, gas: 21_000n + BigInt(msg.input?.length ?? 0) * 16n };
  }
  async sendRawTransaction(raw: Hex) {
    const t = Transaction.from(raw);
    const hash = keccakHex(fromHex(raw));
    if (this.sent.includes(hash) || (await this.tx(hash))) return { accepted: false as const, ...REFUSAL.known };
    if (t.nonce < 4) return { accepted: false as const, ...REFUSAL.nonceUsed };
    this.sent.push(hash);
    return { accepted: true as const, hash };
  }
  gasPrice(): bigint {
    return GAS_PRICE;
  }
}

// ---------------------------------------------------------------------------------------------

let fx: Fixture;
let backend: TestBackend;
let server: RpcServer;
let url: string;
const silent = pino({ level: 'silent' });

async function post(body: unknown, raw = false): Promise<{ status: number; json: any; headers: Headers }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined, headers: r.headers };
}

const call = (method: string, params?: unknown[], id: unknown = 1) =>
  post({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const errOf = async (method: string, params?: unknown[]) => (await call(method, params)).json.error;

beforeAll(async () => {
  fx = await buildFixture();
  backend = new TestBackend(fx.blocks);
  backend.pending.set(fx.pendingHybrid.id, fx.pendingHybrid);
  const port = await freePort();
  server = createRpcServer(backend, { log: silent, maxBodyBytes: 64 * 1024 });
  await server.listen('127.0.0.1', port);
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server?.close();
});

describe('logs bloom', () => {
  it('sets the bits of a real mainnet receipt bloom (vector from ox Bloom.contains docs)', () => {
    const real = ('0x0000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000' +
      '000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
      '000000000202000000000000000000000000000000000000000000000800000000100000000000000000000000000000' +
      '000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000' +
      '000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
      '0000000000000000000000000000000000') as Hex;
    expect(real.length).toBe(2 + 512);
    const addr: Address = '0xef2d6d194084c2de36e0dabfce45d046b37d1106';
    expect(bloomMayContain(real, fromHex(addr))).toBe(true);
    const mine = fromHex(logsBloom([{ address: addr, topics: [], data: '0x' }]));
    const realBytes = fromHex(real);
    expect(mine.every((b, i) => (realBytes[i] & b) === b)).toBe(true);
    expect(mine.reduce((n, b) => n + b.toString(2).replaceAll('0', '').length, 0)).toBeLessThanOrEqual(3);
    expect(bloomMayContain(real, fromHex(CONTRACT))).toBe(false);
  });
});

describe('HTTP envelope', () => {
  it('answers 200 application/json for a call', async () => {
    const r = await call('eth_chainId', []);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 1, result: '0x11954' });
  });

  it('-32700 with id null when the body is not JSON', async () => {
    for (const body of [
      '{"jsonrpc":"2.0",',
      'not json',
      '',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","__proto__":{"x":1}}',
      // an escaped spelling of a forbidden key is refused too (the reviver runs whenever a body has a backslash)
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[{"__pro\\u0074o__":{"x":1}}]}',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[{"construc\\u0074or":{"x":1}}]}',
    ]) {
      const r = await post(body, true);
      expect(r.status).toBe(200);
      expect(r.json.id).toBeNull();
      expect(r.json.error.code).toBe(-32700);
    }
  });

  it('405 for another HTTP method on /, 404 elsewhere, CORS preflight', async () => {
    const g = await fetch(url);
    expect(g.status).toBe(405);
    expect(g.headers.get('allow')).toContain('POST');
    expect(((await g.json()) as any).error.code).toBe(-32600);
    const other = await fetch(`${url}/rpc`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect(((await other.json()) as any).error).toMatch(/not found/);
    const pre = await fetch(url, { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('413 for a body above maxBodyBytes', async () => {
    const r = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ data: `0x${'00'.repeat(40_000)}` }],
      }),
    });
    expect(r.status).toBe(413);
  });
});

describe('JSON-RPC errors', () => {
  it('-32600 for a missing or wrong jsonrpc, method or id', async () => {
    const cases: unknown[] = [
      { id: 1, method: 'eth_chainId' },
      { jsonrpc: '1.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: 2, id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, method: 42 },
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: [1], method: 'eth_chainId' },
      { jsonrpc: '2.0', id: true, method: 'eth_chainId' },
      'eth_chainId',
      null,
      42,
    ];
    for (const c of cases) {
      const r = await post(c);
      expect(r.status).toBe(200);
      expect(r.json.jsonrpc).toBe('2.0');
      expect(r.json.error.code, JSON.stringify(c)).toBe(-32600);
      expect(r.json.result).toBeUndefined();
    }
    // the id is echoed when it is valid, null otherwise
    expect((await post({ jsonrpc: '1.0', id: 'abc', method: 'eth_chainId' })).json.id).toBe('abc');
    expect((await post({ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' })).json.id).toBeNull();
  });

  it('accepts string, number and null ids', async () => {
    for (const id of ['x-1', 7, 0, null]) {
      const r = await call('net_version', [], id);
      expect(r.json).toEqual({ jsonrpc: '2.0', id, result: '72020' });
    }
  });

  it('-32601 naming each unimplemented method and an unknown one', async () => {
    for (const m of [
      'eth_sendTransaction',
      'eth_sign',
      'eth_signTransaction',
      'eth_getStorageAt',
      'eth_subscribe',
      'eth_unsubscribe',
      'eth_newFilter',
      'eth_getFilterChanges',
      'eth_mining',
      '__proto__',
      'constructor',
      'toString',
    ]) {
      const e = await errOf(m, []);
      expect(e.code, m).toBe(-32601);
      expect(e.message).toContain(m);
    }
  });

  it('-32602 for wrong arity or types', async () => {
    const cases: [string, unknown[] | Record<string, unknown>][] = [
      ['eth_blockNumber', [1]],
      ['eth_chainId', ['x']],
      ['eth_getBalance', []],
      ['eth_getBalance', ['0x1234', 'latest']],
      ['eth_getBalance', [k0.address, 'newest']],
      ['eth_getBalance', [k0.address, 12]],
      ['eth_getBalance', [k0.address, 'latest', 'extra']],
      ['eth_getBalance', { address: k0.address }],
      ['eth_getBlockByNumber', ['0x1']],
      ['eth_getBlockByNumber', ['0x1', 'yes']],
      ['eth_getBlockByNumber', ['1', false]],
      ['eth_getBlockByHash', ['0x1234', false]],
      ['eth_getTransactionByHash', [42]],
      ['eth_getTransactionReceipt', []],
      ['eth_call', ['0xdead']],
      ['eth_call', [{ to: 'nope' }]],
      ['eth_call', [{ to: CONTRACT, value: 10 }]],
      ['eth_call', [{ to: CONTRACT, data: '0x12', input: '0x34' }]],
      ['eth_call', [{ to: CONTRACT, data: '0x123' }]],
      ['eth_estimateGas', []],
      ['eth_getLogs', [{ fromBlock: 'x' }]],
      ['eth_getLogs', [{ address: 5 }]],
      ['eth_getLogs', [{ topics: [1] }]],
      ['eth_getLogs', [{ topics: [null, null, null, null, null] }]],
      ['eth_getLogs', [{ blockHash: fx.blocks[1].header.hash, fromBlock: '0x0' }]],
      ['eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }]],
      ['eth_getLogs', []],
      ['eth_feeHistory', ['0x4']],
      ['eth_feeHistory', ['0x4', 'latest', [50, 10]]],
      ['eth_feeHistory', ['0x4', 'latest', [101]]],
      ['eth_feeHistory', ['four', 'latest']],
      ['eth_sendRawTransaction', []],
      ['eth_sendRawTransaction', ['0x']],
      ['eth_sendRawTransaction', ['hello']],
    ];
    for (const [m, params] of cases) {
      const r = await post({ jsonrpc: '2.0', id: 1, method: m, params });
      expect(r.json.error?.code, `${m} ${JSON.stringify(params)}`).toBe(-32602);
      expect(r.json.error.message.length).toBeGreaterThan(10);
    }
    expect((await errOf('eth_getBalance', [])).message).toMatch(/missing value for required argument 0/);
    expect((await errOf('eth_getBalance', [k0.address, 'latest', 1])).message).toMatch(/too many arguments/);
    expect((await errOf('eth_getBalance', ['0x1234'])).message).toMatch(/argument 0.*40 hex/);
  });

  it('-32603 without details when the backend throws', async () => {
    const r = await call('eth_getBalance', [BOOM, 'latest']);
    expect(r.status).toBe(200);
    expect(r.json.error).toEqual({ code: -32603, message: 'internal error' });
    expect(JSON.stringify(r.json)).not.toMatch(/disk|secret|at /);
  });

  it('-32000 for a revert, with the revert bytes as data and the reason in the message', async () => {
    const e = await errOf('eth_call', [{ to: CONTRACT, data: `${REVERT_SELECTOR}01` }, 'latest']);
    expect(e.code).toBe(-32000);
    expect(e.message).toBe('execution reverted: nope');
    expect(e.data).toBe(revertData('nope'));
    const g = await errOf('eth_estimateGas', [{ to: CONTRACT, data: REVERT_SELECTOR }]);
    expect(g).toEqual({ code: -32000, message: 'execution reverted: nope', data: revertData('nope') });
    const oog = await errOf('eth_call', [{ to: CONTRACT, data: OOG_SELECTOR }]);
    expect(oog).toEqual({ code: -32000, message: 'out of gas' });
  });

  it('-32000 with the refusal reason for eth_sendRawTransaction, the hash for a known transaction', async () => {
    const stale = await wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: 0,
      to: k1.address,
      value: 1n,
      gasLimit: 21_000,
      maxFeePerGas: GAS_PRICE,
      maxPriorityFeePerGas: 0n,
    });
    expect(await errOf('eth_sendRawTransaction', [stale])).toEqual({ code: -32000, message: 'nonce already used' });
    expect((await call('eth_sendRawTransaction', [fx.knownRaw])).json.result).toBe(fx.ethLegacy.id);
  });

  it('safe/finalized resolve to the finalized height', async () => {
    expect((await call('eth_getBlockByNumber', ['finalized', false])).json.result.hash).toBe(fx.blocks[1].header.hash);
    expect((await call('eth_getBlockByNumber', ['safe', false])).json.result.number).toBe('0x1');
  });

  it('-32000 "header not found" for a state read above the head', async () => {
    expect(await errOf('eth_getBalance', [k0.address, '0x64'])).toEqual({ code: -32000, message: 'header not found' });
  });

  it('a node with a bounded history (--history) says so for logs and state reads below it', async () => {
    backend.keptFrom = 2;
    backend.stateKeptFrom = 1;
    try {
      expect(await errOf('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }])).toEqual({
        code: -32000,
        message: 'history pruned: this node keeps history from block 2 (asked 1)',
      });
      expect(await errOf('eth_getBalance', [k0.address, '0x0'])).toEqual({
        code: -32000,
        message: 'state pruned: this node keeps state from block 1 (asked 0)',
      });
      // The kept heights read as before.
      expect((await call('eth_getBalance', [k0.address, '0x1'])).json.result).toMatch(/^0x/);
      expect((await call('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x2' }])).json.result).toBeInstanceOf(Array);
    } finally {
      backend.keptFrom = 0;
      backend.stateKeptFrom = 0;
    }
  });

  it('eth_getLogs limits: span over 5000 blocks, more than 10000 results', async () => {
    backend.headOverride = 20_000;
    try {
      const span = await errOf('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1388' }]); // 5001 blocks
      expect(span.code).toBe(-32602);
      expect(span.message).toMatch(/block range exceeds 5000/);
      // 5000 blocks
      expect((await call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x1388' }])).json.result).toBeInstanceOf(Array);
    } finally {
      backend.headOverride = undefined;
    }
    // On a short chain too: the limit is on the range asked for, not on what exists of it.
    const short = await errOf('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x186a0' }]);
    expect(short).toEqual({
      code: -32602,
      message: 'invalid argument 0: block range exceeds 5000 blocks (asked 100001); split the query',
    });
    backend.bigLogs = true;
    try {
      const many = await errOf('eth_getLogs', [{ fromBlock: '0x0' }]);
      expect(many.code).toBe(-32000);
      expect(many.message).toMatch(/query returned more than 10000 results/);
    } finally {
      backend.bigLogs = false;
    }
  });
});

describe('batches', () => {
  it('keeps order, validates each element independently', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 'b', method: 'eth_sign', params: [] },
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 'd', method: 'eth_getBalance', params: [k0.address] },
      7,
      { jsonrpc: '2.0', id: 'f', method: 'eth_getBalance', params: [BOOM] },
      { jsonrpc: '2.0', id: 'g', method: 'net_version' },
    ]);
    expect(r.status).toBe(200);
    expect(r.json.map((x: any) => x.id)).toEqual(['a', 'b', null, 'd', null, 'f', 'g']);
    expect(r.json[0].result).toBe('0x3');
    expect(r.json[1].error.code).toBe(-32601);
    expect(r.json[2].error.code).toBe(-32600);
    expect(r.json[3].result).toBe('0x4563918244f40007');
    expect(r.json[4].error.code).toBe(-32600);
    expect(r.json[5].error.code).toBe(-32603);
    expect(r.json[6].result).toBe('72020');
  });

  it('50 calls answer 50 results in order; 51 and an empty batch are single -32600 errors', async () => {
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: i % 2 ? 'eth_blockNumber' : 'eth_getBlockByNumber',
        params: i % 2 ? [] : [hexOf(i % 4), false],
      }));
    const r50 = await post(batch(50));
    expect(r50.json).toHaveLength(50);
    r50.json.forEach((x: any, i: number) => {
      expect(x.id).toBe(i);
      if (i % 2) expect(x.result).toBe('0x3');
      else expect(x.result.number).toBe(hexOf(i % 4));
    });
    const r51 = await post(batch(51));
    expect(Array.isArray(r51.json)).toBe(false);
    expect(r51.json.id).toBeNull();
    expect(r51.json.error.code).toBe(-32600);
    expect(r51.json.error.message).toMatch(/batch limit of 50/);
    const empty = await post([]);
    expect(Array.isArray(empty.json)).toBe(false);
    expect(empty.json.error.code).toBe(-32600);
  });
});

const hexOf = (n: number) => `0x${n.toString(16)}`;

describe('method results', () => {
  it('constants', async () => {
    const r = await post(
      [
        'web3_clientVersion',
        'net_version',
        'net_listening',
        'eth_chainId',
        'eth_syncing',
        'eth_accounts',
        'eth_gasPrice',
        'eth_maxPriorityFeePerGas',
      ].map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] })),
    );
    expect(r.json.map((x: any) => x.result)).toEqual([
      'cairn/0.1.0-test',
      '72020',
      true,
      '0x11954',
      false,
      [],
      '0x2540be400',
      '0x0',
    ]);
  });

  it('blocks: Cairn hash, parent link, roots, bloom, timestamp in seconds', async () => {
    const b1 = fx.blocks[1];
    const r = (await call('eth_getBlockByNumber', ['0x1', false])).json.result;
    expect(r.hash).toBe(b1.header.hash);
    expect(r.parentHash).toBe(fx.blocks[0].header.hash);
    expect(r.transactionsRoot).toBe(b1.header.txRoot);
    expect(r.stateRoot).toBe(b1.header.stateRoot);
    expect(r.receiptsRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.miner).toBe(kP.address);
    expect(r.timestamp).toBe(hexOf(Math.floor((T0 + 1500) / 1000)));
    expect(r.transactions).toEqual(b1.txs.map((t) => t.id));
    // the VM transactions' receipts: the native TRANSFER is outside the block gas budget
    expect(r.gasUsed).toBe(hexOf(21_000 + 51_234));
    expect(r.gasLimit).toBe(hexOf(5_190_000)); // BLOCK_GAS_LIMIT's default
    expect(r.size).toBe(hexOf(Buffer.byteLength(JSON.stringify(b1))));
    expect(r.logsBloom).toMatch(/^0x[0-9a-f]{512}$/);
    expect(bloomMayContain(r.logsBloom, fromHex(CONTRACT))).toBe(true);
    expect(bloomMayContain(r.logsBloom, fromHex(TRANSFER_TOPIC))).toBe(true);
    expect(bloomMayContain(r.logsBloom, fromHex(DEPLOYED))).toBe(false);
    const byHash = (await call('eth_getBlockByHash', [b1.header.hash.toUpperCase().replace('0X', '0x'), false])).json
      .result;
    expect(byHash).toEqual(r);
    expect((await call('eth_getBlockByNumber', ['0x2', false])).json.result.parentHash).toBe(b1.header.hash);
    expect((await call('eth_getBlockByNumber', ['0x63', false])).json.result).toBeNull();
    expect((await call('eth_getBlockByHash', [`0x${'12'.repeat(32)}`, true])).json.result).toBeNull();
    expect((await call('eth_getBlockByNumber', ['earliest', false])).json.result.hash).toBe(fx.blocks[0].header.hash);
    for (const tag of ['latest', 'pending'])
      expect((await call('eth_getBlockByNumber', [tag, false])).json.result.hash).toBe(fx.blocks[3].header.hash);
  });

  it('pending transaction: null block fields, null receipt', async () => {
    const t = (await call('eth_getTransactionByHash', [fx.pendingHybrid.id])).json.result;
    expect(t).toMatchObject({
      hash: fx.pendingHybrid.id,
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      value: hexOf(7 * 1e12),
    });
    expect((await call('eth_getTransactionReceipt', [fx.pendingHybrid.id])).json.result).toBeNull();
    expect((await call('eth_getTransactionByHash', [`0x${'ab'.repeat(32)}`])).json.result).toBeNull();
  });

  it('receipts: cumulative gas, block-wide log indexes, failed status, contract address', async () => {
    const r = (await call('eth_getTransactionReceipt', [fx.hybridCall.id])).json.result;
    expect(r).toMatchObject({
      status: '0x1',
      gasUsed: hexOf(51_234),
      cumulativeGasUsed: hexOf(93_234),
      transactionIndex: '0x2',
      type: '0x0',
      from: k1.address,
      to: CONTRACT,
      contractAddress: null,
      effectiveGasPrice: '0x2540be400',
    });
    expect(r.logs).toEqual([
      {
        address: CONTRACT,
        topics: [TRANSFER_TOPIC, pad32(k1.address), pad32(k0.address)],
        data: pad32('0x2a'),
        blockNumber: '0x1',
        blockHash: fx.blocks[1].header.hash,
        transactionHash: fx.hybridCall.id,
        transactionIndex: '0x2',
        logIndex: '0x0',
        removed: false,
      },
    ]);
    const d = (await call('eth_getTransactionReceipt', [fx.ethDeploy.id])).json.result;
    expect(d).toMatchObject({ status: '0x1', contractAddress: DEPLOYED, to: null, type: '0x2' });
    const f = (await call('eth_getTransactionReceipt', [fx.eth2930Failed.id])).json.result;
    expect(f).toMatchObject({
      status: '0x0',
      type: '0x1',
      gasUsed: hexOf(30_000),
      cumulativeGasUsed: hexOf(150_000),
      logs: [],
    });
    expect(f.logsBloom).toBe(`0x${'00'.repeat(256)}`);
    const n = (await call('eth_getTransactionReceipt', [fx.hybridTransfer.id])).json.result;
    expect(n).toMatchObject({ status: '0x1', gasUsed: hexOf(21_000), logs: [] });
  });

  it('eth_getLogs: address, topics with wildcards and OR-arrays, blockHash', async () => {
    const all = (await call('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }])).json.result;
    expect(all).toHaveLength(2);
    const byAddr = (
      await call('eth_getLogs', [{ fromBlock: '0x0', address: [DEPLOYED.toUpperCase().replace('0X', '0x')] }])
    ).json.result;
    expect(byAddr.map((l: any) => l.address)).toEqual([DEPLOYED]);
    const byTopic = (
      await call('eth_getLogs', [
        { fromBlock: '0x0', topics: [[TRANSFER_TOPIC, keccakHex(utf8('Other()'))], null, pad32(k0.address)] },
      ])
    ).json.result;
    expect(byTopic).toHaveLength(1);
    expect(
      (await call('eth_getLogs', [{ fromBlock: '0x0', topics: [null, pad32(k0.address)] }])).json.result,
    ).toHaveLength(0);
    const byHash = (await call('eth_getLogs', [{ blockHash: fx.blocks[2].header.hash }])).json.result;
    expect(byHash.map((l: any) => l.transactionHash)).toEqual([fx.ethDeploy.id]);
    expect((await call('eth_getLogs', [{}])).json.result).toEqual([]); // latest block is empty
    expect(await errOf('eth_getLogs', [{ blockHash: `0x${'12'.repeat(32)}` }])).toEqual({
      code: -32000,
      message: 'unknown block',
    });
  });

  it('eth_feeHistory: constant price, clamped count', async () => {
    const r = (await call('eth_feeHistory', ['0x10', 'latest', [25, 75]])).json.result;
    expect(r.oldestBlock).toBe('0x0');
    expect(r.baseFeePerGas).toEqual(Array(5).fill('0x2540be400'));
    expect(r.gasUsedRatio).toEqual([0, 0, 0, 0]);
    expect(r.reward).toEqual(Array(4).fill(['0x0', '0x0']));
    const two = (await call('eth_feeHistory', [2, '0x2'])).json.result;
    expect(two).toEqual({ oldestBlock: '0x1', baseFeePerGas: Array(3).fill('0x2540be400'), gasUsedRatio: [0, 0] });
  });

  it('eth_call passes the call object and the resolved height to the backend', async () => {
    expect(
      (
        await call('eth_call', [
          { from: k0.address, to: CONTRACT, data: '0x1234', value: '0x01', gas: '0x5208', maxFeePerGas: '0x10' },
          '0x1',
        ])
      ).json.result,
    ).toBe(pad32('0x2a'));
    expect(backend.lastCall).toEqual({
      msg: { from: k0.address, to: CONTRACT, input: fromHex('0x1234'), valueWei: 1n, gasLimit: 21_000n, gasPrice: 16n },
      height: 1,
    });
    await call('eth_call', [{ to: CONTRACT, input: '0x99' }, { blockHash: fx.blocks[2].header.hash }]);
    expect(backend.lastCall?.height).toBe(2);
    expect((await call('eth_getTransactionCount', [k1.address, 'pending'])).json.result).toBe('0x2');
    expect((await call('eth_getTransactionCount', [k1.address])).json.result).toBe('0x1');
    expect((await call('eth_getCode', [CONTRACT, 'latest'])).json.result).toBe('0x6080604052');
  });
});

// ---------------------------------------------------------------------------------------------

describe('ethers v6 JsonRpcProvider parses every answer', () => {
  let provider: JsonRpcProvider;
  beforeAll(() => {
    provider = new JsonRpcProvider(url, Network.from(CHAIN_ID), { staticNetwork: Network.from(CHAIN_ID) });
  });
  afterAll(() => provider.destroy());

  it('network, head, balance, code, nonce, fee data', async () => {
    expect((await provider.getNetwork()).chainId).toBe(72020n);
    expect(await provider.send('eth_chainId', [])).toBe('0x11954');
    expect(await provider.getBlockNumber()).toBe(3);
    expect(await provider.getBalance(wallet.address)).toBe(5n * 10n ** 18n + 7n);
    expect(await provider.getCode(CONTRACT)).toBe('0x6080604052');
    expect(await provider.getCode(k1.address)).toBe('0x');
    expect(await provider.getTransactionCount(k1.address, 'pending')).toBe(2);
    expect(await provider.getTransactionCount(wallet.address)).toBe(4);
    const fee = await provider.getFeeData();
    expect(fee.gasPrice).toBe(GAS_PRICE);
    expect(fee.maxPriorityFeePerGas).toBe(0n);
    expect(fee.maxFeePerGas! >= GAS_PRICE).toBe(true);
    const hist = await provider.send('eth_feeHistory', ['0x2', 'latest', [50]]);
    expect(hist.baseFeePerGas).toHaveLength(3);
  });

  it('blocks with and without transactions, including hybrid and Ethereum ones', async () => {
    const b = await provider.getBlock(1);
    expect(b!.hash).toBe(fx.blocks[1].header.hash);
    expect(b!.parentHash).toBe(fx.blocks[0].header.hash);
    expect(b!.transactions).toEqual(fx.blocks[1].txs.map((t) => t.id));
    expect(b!.timestamp).toBe(Math.floor((T0 + 1500) / 1000));
    expect(b!.baseFeePerGas).toBe(GAS_PRICE);
    const full = await provider.getBlock(fx.blocks[1].header.hash, true);
    expect(full!.prefetchedTransactions.map((t) => t.hash)).toEqual(fx.blocks[1].txs.map((t) => t.id));
    const full2 = await provider.getBlock(2, true);
    expect(full2!.prefetchedTransactions.map((t) => t.type)).toEqual([2, 1]);
    expect(await provider.getBlock(99)).toBeNull();
    const g = await provider.getBlock(0, true);
    expect(g!.hash).toBe(fx.blocks[0].header.hash);
    expect(g!.miner).toBe(ZERO_ADDRESS);
    expect((await provider.getBlock('latest'))!.number).toBe(3);
  });

  it('transactions: hybrid synthesized, Ethereum ones re-serialize to their raw bytes', async () => {
    const h = await provider.getTransaction(fx.hybridTransfer.id);
    expect(h).toMatchObject({
      hash: fx.hybridTransfer.id,
      blockNumber: 1,
      index: 0,
      type: 0,
      nonce: 0,
      value: 1_500_000n * 10n ** 12n,
      gasLimit: 21_000n,
      gasPrice: GAS_PRICE,
      data: '0x',
      chainId: 72020n,
    });
    expect(h!.from.toLowerCase()).toBe(k0.address);
    expect(h!.to!.toLowerCase()).toBe(k1.address);
    const c = await provider.getTransaction(fx.hybridCall.id);
    expect(c!.gasLimit).toBe(100_000n);
    expect(c!.data).toBe('0xa9059cbb0000000000000000000000000000000000000000000000000000000000000001');
    for (const e of [fx.ethLegacy, fx.ethDeploy, fx.eth2930Failed]) {
      const t = await provider.getTransaction(e.id);
      expect(t!.hash).toBe(e.id);
      expect(Transaction.from(t!).serialized).toBe(e.raw);
    }
    const p = await provider.getTransaction(fx.pendingHybrid.id);
    expect(p!.blockNumber).toBeNull();
    expect(await provider.getTransaction(`0x${'ab'.repeat(32)}`)).toBeNull();
  });

  it('receipts and logs', async () => {
    const r = await provider.getTransactionReceipt(fx.hybridCall.id);
    expect(r).toMatchObject({ status: 1, gasUsed: 51_234n, cumulativeGasUsed: 93_234n, index: 2, blockNumber: 1 });
    expect(r!.logs[0].index).toBe(0);
    expect(r!.logs[0].topics[0]).toBe(TRANSFER_TOPIC);
    const d = await provider.getTransactionReceipt(fx.ethDeploy.id);
    expect(d!.contractAddress!.toLowerCase()).toBe(DEPLOYED);
    expect(d!.type).toBe(2);
    const f = await provider.getTransactionReceipt(fx.eth2930Failed.id);
    expect(f!.status).toBe(0);
    expect(await provider.getTransactionReceipt(fx.pendingHybrid.id)).toBeNull();
    const logs = await provider.getLogs({
      address: CONTRACT,
      fromBlock: 0,
      toBlock: 'latest',
      topics: [TRANSFER_TOPIC],
    });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      blockNumber: 1,
      transactionIndex: 2,
      index: 0,
      removed: false,
      transactionHash: fx.hybridCall.id,
    });
    const byHash = await provider.getLogs({ blockHash: fx.blocks[2].header.hash });
    expect(byHash).toHaveLength(1);
  });

  it('ethers request batching fits MAX_RPC_BATCH when batchMaxCount <= 50', async () => {
    const batched = new JsonRpcProvider(url, Network.from(CHAIN_ID), {
      staticNetwork: Network.from(CHAIN_ID),
      batchMaxCount: 50,
    });
    try {
      const n = await Promise.all(Array.from({ length: 120 }, () => batched.getBalance(wallet.address)));
      expect(n.every((b) => b === 5n * 10n ** 18n + 7n)).toBe(true);
    } finally {
      batched.destroy();
    }
  });

  it('call, estimateGas, revert decoding, broadcast', async () => {
    expect(await provider.call({ to: CONTRACT, data: '0x1234' })).toBe(pad32('0x2a'));
    expect(await provider.estimateGas({ from: wallet.address, to: CONTRACT, data: '0x1234' })).toBe(21_000n + 32n);
    await expect(provider.call({ to: CONTRACT, data: REVERT_SELECTOR })).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'nope',
    });
    await expect(provider.estimateGas({ to: CONTRACT, data: REVERT_SELECTOR })).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'nope',
    });
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: 4,
      to: k1.address,
      value: 5n,
      gasLimit: 21_000,
      maxFeePerGas: 2n * GAS_PRICE,
      maxPriorityFeePerGas: 0n,
    });
    const sent = await provider.broadcastTransaction(raw);
    expect(sent.hash).toBe(keccakHex(fromHex(raw)));
    await expect(
      provider.broadcastTransaction(
        await wallet.signTransaction({
          chainId: CHAIN_ID,
          nonce: 1,
          to: k1.address,
          gasLimit: 21_000,
          gasPrice: GAS_PRICE,
        }),
      ),
    ).rejects.toThrow(/nonce already used/);
  });
});

describe('viem 2 public client parses every answer', () => {
  let client: PublicClient;
  beforeAll(() => {
    client = createPublicClient({ transport: http(url) }) as PublicClient;
  });

  it('chain id, head, balance, code, nonce, gas price, fee history, fee estimate', async () => {
    expect(await client.getChainId()).toBe(72020);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(3n);
    expect(await client.getBalance({ address: k0.address })).toBe(5n * 10n ** 18n + 7n);
    expect(await client.getCode({ address: CONTRACT })).toBe('0x6080604052');
    expect(await client.getTransactionCount({ address: k1.address, blockTag: 'pending' })).toBe(2);
    expect(await client.getGasPrice()).toBe(GAS_PRICE);
    const h = await client.getFeeHistory({ blockCount: 3, rewardPercentiles: [25, 75] });
    expect(h.oldestBlock).toBe(1n);
    expect(h.baseFeePerGas).toEqual([GAS_PRICE, GAS_PRICE, GAS_PRICE, GAS_PRICE]);
    expect(h.reward).toEqual([
      [0n, 0n],
      [0n, 0n],
      [0n, 0n],
    ]);
    const est = await client.estimateFeesPerGas();
    expect(est.maxFeePerGas >= GAS_PRICE).toBe(true);
    expect(await client.estimateMaxPriorityFeePerGas()).toBe(0n);
  });

  it('blocks with and without transactions', async () => {
    const b = await client.getBlock({ blockNumber: 1n });
    expect(b.hash).toBe(fx.blocks[1].header.hash);
    expect(b.transactions).toEqual(fx.blocks[1].txs.map((t) => t.id));
    const full = await client.getBlock({ blockHash: fx.blocks[1].header.hash, includeTransactions: true });
    expect(full.transactions.map((t) => t.hash)).toEqual(fx.blocks[1].txs.map((t) => t.id));
    expect(full.transactions[0]).toMatchObject({
      type: 'legacy',
      chainId: 72020,
      value: 1_500_000n * 10n ** 12n,
      gas: 21_000n,
      from: k0.address,
    });
    const full2 = await client.getBlock({ blockNumber: 2n, includeTransactions: true });
    expect(full2.transactions.map((t) => t.type)).toEqual(['eip1559', 'eip2930']);
    expect((await client.getBlock({ blockTag: 'latest' })).number).toBe(3n);
    await expect(client.getBlock({ blockNumber: 99n })).rejects.toThrow(/could not be found/);
  });

  it('transactions of both kinds', async () => {
    const h = await client.getTransaction({ hash: fx.hybridTransfer.id });
    expect(h).toMatchObject({
      hash: fx.hybridTransfer.id,
      blockNumber: 1n,
      transactionIndex: 0,
      type: 'legacy',
      nonce: 0,
      to: k1.address,
      from: k0.address,
      chainId: 72020,
      gasPrice: GAS_PRICE,
    });
    const parsed = Transaction.from(fx.ethDeploy.raw);
    const e = await client.getTransaction({ hash: fx.ethDeploy.id });
    expect(e).toMatchObject({
      type: 'eip1559',
      to: null,
      nonce: 2,
      gas: 500_000n,
      maxFeePerGas: 2n * GAS_PRICE,
      maxPriorityFeePerGas: 0n,
      chainId: 72020,
    });
    expect(BigInt(e.r)).toBe(BigInt(parsed.signature!.r));
    expect(BigInt(e.s)).toBe(BigInt(parsed.signature!.s));
    expect(e.yParity).toBe(parsed.signature!.yParity);
    const l = await client.getTransaction({ hash: fx.ethLegacy.id });
    expect(l.v).toBe(Transaction.from(fx.ethLegacy.raw).signature!.networkV);
    const a = await client.getTransaction({ hash: fx.eth2930Failed.id });
    expect(a.accessList).toEqual([{ address: CONTRACT, storageKeys: [pad32('0x01')] }]);
    const p = await client.getTransaction({ hash: fx.pendingHybrid.id });
    expect(p.blockNumber).toBeNull();
  });

  it('receipts and logs', async () => {
    const r = await client.getTransactionReceipt({ hash: fx.hybridCall.id });
    expect(r).toMatchObject({
      status: 'success',
      gasUsed: 51_234n,
      cumulativeGasUsed: 93_234n,
      transactionIndex: 2,
      blockNumber: 1n,
      effectiveGasPrice: GAS_PRICE,
    });
    expect(r.logs[0]).toMatchObject({ logIndex: 0, address: CONTRACT, removed: false });
    const f = await client.getTransactionReceipt({ hash: fx.eth2930Failed.id });
    expect(f.status).toBe('reverted');
    expect(f.type).toBe('eip2930');
    const d = await client.getTransactionReceipt({ hash: fx.ethDeploy.id });
    expect(d.contractAddress).toBe(DEPLOYED);
    const logs = await client.getLogs({ address: CONTRACT, fromBlock: 0n, toBlock: 'latest' });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      blockNumber: 1n,
      logIndex: 0,
      transactionIndex: 2,
      transactionHash: fx.hybridCall.id,
    });
  });

  it('call, estimateGas, revert, sendRawTransaction', async () => {
    expect((await client.call({ to: CONTRACT, data: '0x1234' })).data).toBe(pad32('0x2a'));
    expect(await client.estimateGas({ account: k0.address, to: CONTRACT, data: '0x1234' })).toBe(21_000n + 32n);
    await expect(client.call({ to: CONTRACT, data: REVERT_SELECTOR })).rejects.toThrow(/nope/);
    const raw = (await wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: 5,
      to: k1.address,
      value: 5n,
      gasLimit: 21_000,
      maxFeePerGas: 2n * GAS_PRICE,
      maxPriorityFeePerGas: 0n,
    })) as Hex;
    expect(await client.sendRawTransaction({ serializedTransaction: raw })).toBe(keccakHex(fromHex(raw)));
  });
});
