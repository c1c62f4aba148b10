/**
 * An Ethereum developer's first steps on Cairn's JSON-RPC port (7070), with ethers and viem:
 * the same secp256k1 key controls the same account on both surfaces (wei = base units ×
 * 10¹²). ethers sends value and waits for the receipt, and deploys a contract compiled with
 * the bundled solc (0.8.30) and calls it; viem reads the chain id, the block number and the
 * balance, and sends value too.
 *
 *   npx tsx examples/ethereum.ts --rpc http://127.0.0.1:7070 --key <secp256k1 private key hex> --to <0x…>
 *   npx tsx examples/ethereum.ts --rpc http://127.0.0.1:7070 --key <secp256k1 private key hex> --deploy
 *
 * --rpc defaults to $CAIRN_RPC, then http://127.0.0.1:7070.
 */
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type InterfaceAbi } from 'ethers';
import solc from 'solc';
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { arg } from './support';

export const cairnChain = (rpcUrl: string) =>
  defineChain({
    id: 72020,
    name: 'Cairn',
    nativeCurrency: { name: 'Cairn', symbol: 'CRN', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });

/** With ethers: sends `wei` to `to`, waits for the receipt; returns the hash and the block. */
export async function sendWithEthers(rpcUrl: string, privateKey: string, to: string, wei: bigint) {
  // staticNetwork: no chain-id probe per call; cacheTimeout -1: no stale pending-nonce answers.
  const provider = new JsonRpcProvider(rpcUrl, 72020, { staticNetwork: true, pollingInterval: 200, cacheTimeout: -1 });
  try {
    const wallet = new Wallet(privateKey, provider);
    const tx = await wallet.sendTransaction({ to, value: wei });
    const receipt = await tx.wait();
    return { hash: tx.hash, block: receipt!.blockNumber, status: receipt!.status };
  } finally {
    provider.destroy();
  }
}

/** The guide's contract: a counter anyone may increment, each increment logged. */
export const COUNTER_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;
contract Counter {
    uint256 public count;
    event Incremented(address indexed by, uint256 count);
    function increment() external {
        count += 1;
        emit Incremented(msg.sender, count);
    }
}
`;

/** Compiles one contract with the bundled solc. */
export function compile(source: string, name: string): { abi: InterfaceAbi; bytecode: string } {
  const input = {
    language: 'Solidity',
    sources: { 'C.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: InterfaceAbi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = out.contracts['C.sol'][name];
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

/** With ethers: deploys Counter, increments it twice, reads it back and finds its events. */
export async function deployWithEthers(rpcUrl: string, privateKey: string) {
  const provider = new JsonRpcProvider(rpcUrl, 72020, { staticNetwork: true, pollingInterval: 200, cacheTimeout: -1 });
  try {
    const wallet = new Wallet(privateKey, provider);
    const { abi, bytecode } = compile(COUNTER_SOURCE, 'Counter');
    const deployed = await new ContractFactory(abi, bytecode, wallet).deploy();
    await deployed.waitForDeployment();
    const address = await deployed.getAddress();
    const counter = new Contract(address, abi, wallet);
    for (let i = 0; i < 2; i++) await (await counter.increment()).wait();
    const count = (await counter.count()) as bigint;
    const events = await counter.queryFilter(counter.filters.Incremented(wallet.address));
    return { address, count, events: events.length };
  } finally {
    provider.destroy();
  }
}

/** With viem: the chain id, the head, the sender's balance, then a transfer of `wei` and its receipt. */
export async function sendWithViem(rpcUrl: string, privateKey: Hex, to: Hex, wei: bigint) {
  const chain = cairnChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const account = privateKeyToAccount(privateKey);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const [chainId, head, balance] = await Promise.all([
    pub.getChainId(),
    pub.getBlockNumber(),
    pub.getBalance({ address: account.address }),
  ]);
  const hash = await wallet.sendTransaction({ to, value: wei });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 200 });
  return { chainId, head, balance, hash, status: receipt.status, block: receipt.blockNumber };
}

if (process.argv[1]?.endsWith('ethereum.ts')) {
  const rpc = arg('rpc') ?? process.env.CAIRN_RPC ?? 'http://127.0.0.1:7070';
  const key = arg('key');
  const to = arg('to');
  const deploy = process.argv.includes('--deploy');
  if (!key || (!to && !deploy)) {
    console.error(
      'usage: npx tsx examples/ethereum.ts --rpc <url> --key <secp256k1 private key hex> (--to <0x…> | --deploy)',
    );
    process.exit(2);
  }
  (async () => {
    if (deploy) {
      const r = await deployWithEthers(rpc, key);
      console.log(JSON.stringify({ contract: r.address, count: r.count.toString(), events: r.events }));
      return;
    }
    console.log('ethers', await sendWithEthers(rpc, key, to!, 10n ** 12n));
    console.log('viem', await sendWithViem(rpc, key as Hex, to as Hex, 10n ** 12n));
  })().catch((e) => (console.error(e), process.exit(1)));
}
