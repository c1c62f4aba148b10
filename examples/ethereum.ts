/**
 * An Ethereum developer's first steps on Cairn's JSON-RPC port (7070), with ethers and viem:
 * the same secp256k1 key controls the same account on both surfaces (wei = base units ×
 * 10¹²). ethers sends value and waits for the receipt; viem reads the chain id, the block
 * number and the balance, and sends value too.
 *
 *   npx tsx examples/ethereum.ts --rpc http://127.0.0.1:7070 --key <secp256k1 private key hex> --to <0x…>
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { arg } from './support';

export const cairnChain = (rpcUrl: string) =>
  defineChain({ id: 72020, name: 'Cairn', nativeCurrency: { name: 'Cairn', symbol: 'CRN', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });

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

/** With viem: the chain id, the head, the sender's balance, then a transfer of `wei` and its receipt. */
export async function sendWithViem(rpcUrl: string, privateKey: Hex, to: Hex, wei: bigint) {
  const chain = cairnChain(rpcUrl);
  const pub = createPublicClient({ chain, transport: http(rpcUrl) });
  const account = privateKeyToAccount(privateKey);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const [chainId, head, balance] = await Promise.all([pub.getChainId(), pub.getBlockNumber(), pub.getBalance({ address: account.address })]);
  const hash = await wallet.sendTransaction({ to, value: wei });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 200 });
  return { chainId, head, balance, hash, status: receipt.status, block: receipt.blockNumber };
}

if (process.argv[1]?.endsWith('ethereum.ts')) {
  const rpc = arg('rpc') ?? 'http://127.0.0.1:7070';
  const key = arg('key');
  const to = arg('to');
  if (!key || !to) {
    console.error('usage: npx tsx examples/ethereum.ts --rpc <url> --key <secp256k1 private key hex> --to <0x…>');
    process.exit(2);
  }
  (async () => {
    console.log('ethers', await sendWithEthers(rpc, key, to, 10n ** 12n));
    console.log('viem', await sendWithViem(rpc, key as Hex, to as Hex, 10n ** 12n));
  })().catch((e) => (console.error(e), process.exit(1)));
}
