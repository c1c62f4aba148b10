import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContractFactory, Contract, JsonRpcProvider, Wallet, Interface, id as topicId, parseEther } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { fromHex } from '../../src/primitives/hex';
import { compileSolidity, ERC20_SOURCE } from '../helpers/solidity';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

interface DevAccount {
  address: `0x${string}`;
  native: string;
  secret: string;
  secp256k1PrivateKey: `0x${string}`;
}

let t: TestNode;
let dev: DevAccount[];
let rpcUrl: string;
let provider: JsonRpcProvider;
const compiled = compileSolidity(ERC20_SOURCE, { optimizer: true, evmVersion: 'cancun' });
const cairn = defineChain({
  id: 72020,
  name: 'Cairn dev',
  nativeCurrency: { name: 'Cairn', symbol: 'CRN', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

async function rpc(method: string, params: unknown[] = []) {
  const r = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as { result?: any; error?: { code: number; message: string; data?: string } };
}

beforeAll(async () => {
  t = await startTestNode();
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  rpcUrl = `http://127.0.0.1:${t.node.config.rpcPort}`;
  // cacheTimeout -1: ethers otherwise reuses a pending-nonce answer for 250 ms, longer than a test slot.
  provider = new JsonRpcProvider(rpcUrl, 72020, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 });
});
afterAll(async () => {
  provider?.destroy();
  await t?.cleanup();
});

describe('VM and JSON-RPC with ethers and viem', () => {
  let token: Contract;
  let tokenAddress: string;

  it('sends value from a dev key with ethers; balances agree between eth_getBalance and /address', async () => {
    const wallet = new Wallet(dev[0].secp256k1PrivateKey, provider);
    const to = Wallet.createRandom().address;
    const tx = await wallet.sendTransaction({ to, value: parseEther('1.5') + 7n }); // 7 wei: a sub-base-unit remainder
    const receipt = await tx.wait();
    expect(receipt!.status).toBe(1);
    expect(await provider.getBalance(to)).toBe(parseEther('1.5') + 7n);
    const acc = (await t.get(`/address/${to}`)).body;
    expect(BigInt(acc.balance) * 10n ** 12n).toBe(parseEther('1.5')); // the 7 wei stay as the remainder
    const sender = (await t.get(`/address/${dev[0].address}`)).body;
    const senderWei = await provider.getBalance(dev[0].address);
    expect(senderWei / 10n ** 12n).toBe(BigInt(sender.balance));
  });

  it(
    'deploys an ERC-20 with a ContractFactory, transfers, ' + 'and finds the Transfer event by address and topic',
    async () => {
      const wallet = new Wallet(dev[1].secp256k1PrivateKey, provider);
      const factory = new ContractFactory(compiled.TestToken.abi, compiled.TestToken.bytecode, wallet);
      token = (await factory.deploy(1_000_000n)) as Contract;
      await token.waitForDeployment();
      tokenAddress = (await token.getAddress()).toLowerCase();
      expect(await provider.getCode(tokenAddress)).toBe(compiled.TestToken.deployed);
      const recipient = dev[2].address;
      const tx = await token.transfer(recipient, 1234n);
      const rc = await tx.wait();
      expect(rc!.status).toBe(1);
      expect(await token.balanceOf(recipient)).toBe(1234n);
      const transferTopic = topicId('Transfer(address,address,uint256)');
      const logs = await provider.getLogs({
        address: tokenAddress,
        topics: [transferTopic],
        fromBlock: 0,
        toBlock: 'latest',
      });
      const parsed = logs.map((l) => new Interface(compiled.TestToken.abi).parseLog(l)!);
      expect(parsed.some((p) => p.args[1].toLowerCase() === recipient && p.args[2] === 1234n)).toBe(true);
      expect(logs.every((l) => l.address.toLowerCase() === tokenAddress)).toBe(true);
    },
  );

  it('answers eth_call of a reverting function with -32000 and the revert data', async () => {
    const data = new Interface(compiled.TestToken.abi).encodeFunctionData('alwaysReverts');
    const r = await rpc('eth_call', [{ to: tokenAddress, data }, 'latest']);
    expect(r.error?.code).toBe(-32000);
    expect(r.error?.message).toMatch(/this always reverts/);
    expect(r.error?.data).toMatch(/^0x08c379a0/);
  });

  it('estimates enough gas for a transaction that refunds gas', async () => {
    const wallet = new Wallet(dev[1].secp256k1PrivateKey, provider);
    const c = new Contract(tokenAddress, compiled.TestToken.abi, wallet);
    const estimate = await c.fillAndClear.estimateGas();
    const tx = await c.fillAndClear({ gasLimit: estimate });
    const rc = await tx.wait();
    expect(rc!.status).toBe(1);
    expect(rc!.gasUsed).toBeLessThan(estimate); // the refund came after the peak
  });

  it('reads a native TRANSFER with eth_getTransactionByHash and its receipt', async () => {
    const k = deriveKeys(fromHex(dev[3].secret));
    const n = (await t.get(`/address/${dev[3].address}`)).body.nextNonce;
    const tx = signTx(k, { type: 'TRANSFER', to: dev[4].address, amount: '5000000', nonce: n }, t.network);
    expect((await t.post('/tx', tx)).body.accepted).toBe(true);
    const got = await waitUntil(async () => (await provider.getTransaction(tx.id)) ?? undefined);
    expect(got.hash).toBe(tx.id);
    expect(got.from.toLowerCase()).toBe(dev[3].address);
    expect(got.value).toBe(5_000_000n * 10n ** 12n);
    const rc = await waitUntil(async () => (await provider.getTransactionReceipt(tx.id)) ?? undefined);
    expect(rc.status).toBe(1);
  });

  it('moves value through a contract and records the internal transfer', async () => {
    const wallet = new Wallet(dev[5].secp256k1PrivateKey, provider);
    const fwd = (await new ContractFactory(
      compiled.Forwarder.abi,
      compiled.Forwarder.bytecode,
      wallet,
    ).deploy()) as Contract;
    await fwd.waitForDeployment();
    const target = Wallet.createRandom().address.toLowerCase();
    const rc = await (await fwd.forward(target, { value: 3_000_000n * 10n ** 12n })).wait();
    expect(rc!.status).toBe(1);
    const r = (await t.get(`/internal?address=${target}`)).body;
    expect(r.internal).toHaveLength(1);
    expect(r.internal[0]).toMatchObject({
      txId: rc!.hash,
      kind: 'CALL',
      from: (await fwd.getAddress()).toLowerCase(),
      to: target,
      amount: '3000000',
    });
    expect(r.internal[0].toNative).toMatch(/^cairn1/);
  });

  it('works with viem: balance, contract read and a raw transaction', async () => {
    const client = createPublicClient({ chain: cairn, transport: http(rpcUrl) });
    const account = privateKeyToAccount(dev[6].secp256k1PrivateKey);
    const wallet = createWalletClient({ account, chain: cairn, transport: http(rpcUrl) });
    expect(await client.getChainId()).toBe(72020);
    const bal = await client.getBalance({ address: dev[6].address });
    expect(bal).toBeGreaterThan(0n);
    const supply = await client.readContract({
      address: tokenAddress as `0x${string}`,
      abi: compiled.TestToken.abi,
      functionName: 'totalSupply',
    });
    expect(supply).toBe(1_000_000n);
    const hash = await wallet.sendTransaction({ to: dev[7].address, value: 10n ** 12n });
    const rc = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(rc.status).toBe('success');
    const block = await client.getBlock({ blockNumber: rc.blockNumber, includeTransactions: true });
    expect(block.hash).toBe(rc.blockHash);
  });

  it('agrees on block hashes across /blocks, the RPC and the next parentHash', async () => {
    const head = Number((await rpc('eth_blockNumber')).result);
    const h = head - 1;
    const native = (await t.get(`/blocks/${h}`)).body;
    const viaRpc = (await rpc('eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).result;
    const next = (await rpc('eth_getBlockByNumber', [`0x${(h + 1).toString(16)}`, false])).result;
    expect(viaRpc.hash).toBe(native.hash);
    expect(next.parentHash).toBe(native.hash);
    expect((await rpc('eth_getBlockByHash', [native.hash, false])).result.number).toBe(`0x${h.toString(16)}`);
  });

  it('verifies the contract through the API', async () => {
    const bad = await t.post(`/contract/${tokenAddress}/verify`, {
      source: ERC20_SOURCE.replace('this always reverts', 'this always fails'),
      contractName: 'TestToken',
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/does not match/);
    expect((await t.get(`/contract/${tokenAddress}`)).status).toBe(404);
    const ok = await t.post(`/contract/${tokenAddress}/verify`, {
      source: ERC20_SOURCE,
      contractName: 'TestToken',
      compilerVersion: '0.8.30',
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ verified: true, name: 'TestToken' });
    const meta = (await t.get(`/contract/${tokenAddress}`)).body;
    expect(meta.abi.length).toBeGreaterThan(5);
    expect(meta.compiler).toMatch(/^0\.8\.30/);
    expect(meta.sources['Contract.sol']).toBe(ERC20_SOURCE);
  });

  it('runs hybrid VM_CALL through POST /tx on the same EVM', async () => {
    const k = deriveKeys(fromHex(dev[1].secret));
    const n = (await t.get(`/address/${dev[1].address}`)).body.nextNonce;
    const input = new Interface(compiled.TestToken.abi).encodeFunctionData('transfer', [
      dev[8].address,
      55n,
    ]) as `0x${string}`;
    const tx = signTx(
      k,
      {
        type: 'VM_CALL',
        to: tokenAddress as `0x${string}`,
        amount: '0',
        nonce: n,
        fee: '100000',
        data: { input, gasLimit: 200_000 },
      },
      t.network,
    );
    expect((await t.post('/tx', tx)).body).toMatchObject({ accepted: true });
    const rec = await waitUntil(async () => {
      const r = await t.get(`/tx/${tx.id}`);
      return r.body.blockHeight ? r.body : undefined;
    });
    expect(rec.result.status).toBe('success');
    expect(rec.result.vm.logs).toHaveLength(1);
    expect(await new Contract(tokenAddress, compiled.TestToken.abi, provider).balanceOf(dev[8].address)).toBe(55n);
  });
});
