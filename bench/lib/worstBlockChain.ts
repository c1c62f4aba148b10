/**
 * The chain the worst-block benchmarks run on (bench/worstblock.ts, bench/worstblockSearch.ts):
 * a StateTrie over RocksDB in a temp dir with a genesis of funded senders, many plain accounts
 * and the contracts a class needs, and one function that builds, flushes and hashes a block of
 * VM transactions — exactly what the producer runs (buildBlock: applyTx with fees, nonces and
 * energy, the EVM, the end-of-block work; then the trie flush and the tx root), timed in CPU ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { txRootOf } from '../../src/chain/block';
import { buildBlock } from '../../src/chain/buildBlock';
import { DEV_NETWORK } from '../../src/chain/devnet';
import { applyGenesis } from '../../src/chain/genesis';
import { keccakHex } from '../../src/crypto/hash';
import { orderedCandidates } from '../../src/mempool/senderHeap';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { CHAIN_ID } from '../../src/protocol/params';
import type { Address, SignedTx } from '../../src/protocol/types';
import type { KvStore } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { openStore } from '../../src/storage/rocks';
import { codeKey, slotKey } from '../../src/vm/stateAdapter';

export const addr = (n: number | bigint): Address => `0x${BigInt(n).toString(16).padStart(40, '0')}`;

/** The genesis plain accounts are addr(ACCOUNT_BASE + i), i < accounts, with balance 1 + i. */
export const ACCOUNT_BASE = 0x100000;
export const PRODUCER = addr(0x99);
export const senderOf = (i: number): Address => addr(0x5000 + i);

/** A contract in the genesis: its code, balance (base units) and non-zero slots (slot → value). */
export interface GenesisContract {
  address: Address;
  code: Hex;
  balance?: string;
  slots?: Iterable<[Hex, Hex]>;
}

/** One transaction of a block: init code of a VM_DEPLOY, or calldata of a VM_CALL to `to`. */
export interface BlockTx {
  input: Hex;
  to?: Address;
  gas?: number;
}

export interface BlockRun {
  /** Wall ms and CPU ms (user + system of the process) of buildBlock + flush + tx root. */
  ms: number;
  cpu: number;
  gas: number;
  failed: string[];
  /** Each transaction's created contract (a VM_DEPLOY that succeeded). */
  created: (Address | undefined)[];
}

export interface WorstChain {
  /** Builds and flushes one block of `count` transactions (one per sender); its time and gas used. */
  runBlock(make: (i: number) => BlockTx, count: number, txGas: number): Promise<BlockRun>;
  close(): Promise<void>;
}

function vmTx(from: Address, nonce: number, t: BlockTx, gasLimit: number, n: number): SignedTx {
  return {
    chainId: CHAIN_ID,
    type: t.to ? 'VM_CALL' : 'VM_DEPLOY',
    from,
    to: t.to ?? null,
    amount: '0',
    nonce,
    timestamp: n + 1,
    fee: '100000000',
    data: { input: t.input, gasLimit },
    id: `0x${n.toString(16).padStart(64, '0')}`,
    publicKeys: { secp256k1: '0x', mldsa44: '0x00' },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
  } as SignedTx;
}

/** Opens a fresh chain in a temp dir (removed by close) with `senders` funded senders. */
export async function openWorstChain(opts: {
  accounts: number;
  senders: number;
  contracts: GenesisContract[];
}): Promise<WorstChain> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-worstblock-'));
  const kv: KvStore = await openStore(dir);
  const state = await StateTrie.open(kv, null);
  await applyGenesis(state, {
    chainId: CHAIN_ID,
    timestamp: 1,
    accounts: [
      ...Array.from({ length: opts.senders }, (_, i) => ({ address: senderOf(i), balance: '1000000000000000' })),
      ...Array.from({ length: opts.accounts }, (_, i) => ({ address: addr(ACCOUNT_BASE + i), balance: String(1 + i) })),
      { address: PRODUCER, balance: '0', staked: '2000000000', isValidator: true },
      ...opts.contracts.map((c) => ({ address: c.address, balance: c.balance ?? '1' })),
    ],
  });
  // Each contract's code and slots, written as the VM stores them.
  for (const c of opts.contracts) {
    const codeHash = keccakHex(fromHex(c.code));
    await state.putRecord(codeKey(codeHash), c.code);
    await state.putAccount(c.address, { ...(await state.getAccount(c.address))!, codeHash });
    for (const [slot, value] of c.slots ?? []) await state.putRecord(slotKey(c.address, 0, slot), value);
  }
  const b = kv.batch();
  let root = await state.flush(b);
  await kv.write(b);
  state.settle();
  let height = 0;
  let nonce = 0;
  let txCounter = 0;

  return {
    async runBlock(make, count, txGas) {
      const state = await StateTrie.open(kv, root);
      const txs = Array.from({ length: count }, (_, i) => {
        const t = make(i);
        return vmTx(senderOf(i), nonce, t, t.gas ?? txGas, ++txCounter);
      });
      const t0 = performance.now();
      // CPU time: what the block costs the main thread, less the other engineers' load on a shared machine
      const c0 = process.cpuUsage();
      const built = await buildBlock(state, orderedCandidates(txs.map((t) => [t])), {
        height: height + 1,
        timestamp: (height + 1) * 1000,
        producer: PRODUCER,
        network: DEV_NETWORK,
        maxTxs: 500,
      }); // execution only: no signature is checked here
      const batch = kv.batch();
      const next = await state.flush(batch);
      txRootOf(built.txs);
      const ms = performance.now() - t0;
      const c1 = process.cpuUsage(c0);
      const cpu = (c1.user + c1.system) / 1000;
      await kv.write(batch);
      state.settle();
      if (built.txs.length !== count)
        throw new Error(`only ${built.txs.length} of ${count} included: ${built.dropped[0]?.reason ?? 'skipped'}`);
      root = next;
      height++;
      nonce++;
      let gas = 0;
      const failed: string[] = [];
      for (const r of built.results) {
        gas += Number(r.vm?.gasUsed ?? 0);
        if (r.status !== 'success') failed.push(r.error ?? 'failed');
      }
      return { ms, cpu, gas, failed, created: built.results.map((r) => r.vm?.contractAddress) };
    },
    async close() {
      await kv.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
