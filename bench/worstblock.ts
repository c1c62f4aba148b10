/**
 * The worst block per gas: how long the EVM takes for each class of work a block could be
 * filled with, in ms per million gas on this machine, and the BLOCK_GAS_LIMIT that keeps
 * the worst of them within the execution budget (40 % of a 500 ms slot: 200 ms).
 *
 *   npx tsx bench/worstblock.ts [--gas 5190000] [--runs 3] [--only jump-loop,ecrecover]
 *                               [--budget-ms 200] [--tiny] [--results-dir DIR]
 *
 * Each class is a block of VM transactions (each 5,190,000 gas, VM_MAX_GAS, or less to make
 * --gas) built with buildBlock on a StateTrie over RocksDB in a temp dir, exactly what the
 * producer runs: applyTx (fees, nonces, energy), the EVM, the end-of-block work, then the
 * trie flush and the tx root. The transactions are unsigned (execution does not verify
 * signatures; importers verify them in the worker pool, off this path). Each transaction's
 * code runs one expensive operation in a loop until its gas is nearly spent (then stops, so
 * storage writes persist and the flush hashes them), except `jump-loop`, which is the
 * attack of issue 23 row 3 verbatim (0x5b600056: JUMPDEST PUSH1 0 JUMP until out of gas).
 *
 * Classes: plain looping jumps; the dearest opcodes per gas (SHA3 of a word and of 32 KB,
 * EXP with a 32-byte exponent, cold BALANCE / EXTCODEHASH of existing accounts, cold SLOAD of
 * existing slots, SSTORE of new
 * slots, kept and flushed); every precompile with the input
 * shape that is slowest per gas (ecrecover, sha256, ripemd160, identity, modexp in three
 * shapes, bn254 add / mul / pairing, blake2f, the BLS12-381 ones); calldata (32 KB of
 * non-zero input to an account without code, the largest a hybrid transaction carries).
 *
 * Measured: wall ms of buildBlock + flush + tx root, per class, the median of --runs (a fresh
 * block each run, on the state the previous runs left). gas/ms = the block's gas used ÷ ms.
 * The limit: the slowest class's gas/ms × the budget, rounded down to 100,000 gas, and never
 * below VM_MAX_GAS (a transaction the chain admits must fit in a block): when that floor is
 * above the measured figure the row says so (`met` no).
 *
 * --tiny: one 300,000-gas transaction per class, one run (numbers mean nothing; the suite
 * runs it so the script does not rot).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { txRootOf } from '../src/chain/block';
import { buildBlock } from '../src/chain/buildBlock';
import { applyGenesis } from '../src/chain/genesis';
import { orderedCandidates } from '../src/mempool/senderHeap';
import { fromHex, toHex, type Hex } from '../src/primitives/hex';
import { PARAMS } from '../src/protocol/governable';
import { CHAIN_ID, VM_MAX_GAS } from '../src/protocol/params';
import { DEV_NETWORK } from '../src/chain/devnet';
import type { Address, SignedTx } from '../src/protocol/types';
import type { KvStore } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';
import { openStore } from '../src/storage/rocks';
import { codeKey, slotKey } from '../src/vm/stateAdapter';
import { keccakHex } from '../src/crypto/hash';
import {
  OP,
  word,
  bn254G1,
  bn254PairingInput,
  blake2fInput,
  blsG1,
  blsG2,
  cat,
  ecrecoverInput,
  fp,
  looping,
  modexpInput,
  precompileLoop,
  push,
  scalar,
} from '../test/adversarial/attacks/evmCode';
import { fmt, posInt, printTable } from './lib/harness';
import { spread, writeResults, type ResultRow } from './lib/results';

const { values } = parseArgs({
  options: {
    gas: { type: 'string', default: '5190000' },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    'budget-ms': { type: 'string', default: '200' },
    accounts: { type: 'string', default: '20000' },
    tiny: { type: 'boolean', default: false },
    'results-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}
const TINY = values.tiny!;
const BLOCK_GAS = TINY ? 300_000 : posInt(values.gas!, 'gas', 200_000_000, 100_000);
const RUNS = TINY ? 1 : posInt(values.runs!, 'runs', 20);
const BUDGET_MS = posInt(values['budget-ms']!, 'budget-ms', 10_000);
const ACCOUNTS = TINY ? 2_000 : posInt(values.accounts!, 'accounts', 1_000_000, 1_000);
const TX_GAS = Math.min(BLOCK_GAS, Number(VM_MAX_GAS));
const TXS = Math.ceil(BLOCK_GAS / TX_GAS);

// ---- the classes ----------------------------------------------------------------------------

/** The genesis accounts read by the cold-account classes are addr(ACCOUNT_BASE + i). */
const ACCOUNT_BASE = 0x100000;
const addr = (n: number | bigint): Address => `0x${BigInt(n).toString(16).padStart(40, '0')}`;

interface Klass {
  name: string;
  what: string;
  /** The transaction's code: init code of a VM_DEPLOY, or calldata of a VM_CALL to `to`. */
  tx(i: number, run: number): { input: Hex; to?: Address };
}

/** A contract whose code SLOADs its slots from the one calldata names on (slots 0..ACCOUNTS-1 exist). */
const STORE_CONTRACT = addr(0x7777);
const STORE_CODE = looping([OP.DUP1, OP.SLOAD, OP.POP, ...push(1), OP.ADD], 30_000, {
  setup: [...push(0), OP.CALLDATALOAD],
});

/** Distinct starting points so no two transactions (in any run) touch the same cold items. */
const startOf = (i: number, run: number, per: number) => (run * TXS + i) * per;

function classes(): Klass[] {
  const fixed =
    (input: Hex): Klass['tx'] =>
    () => ({ input });
  const g1 = bls12_381.G1.Point.BASE.multiply(5n).toAffine();
  const g1b = bls12_381.G1.Point.BASE.multiply(9n).toAffine();
  const g2 = bls12_381.G2.Point.BASE.multiply(5n).toAffine();
  const g2b = bls12_381.G2.Point.BASE.multiply(9n).toAffine();
  const msm = (n: number, point: Uint8Array) => cat(...Array.from({ length: n }, (_, i) => cat(point, scalar(i))));
  const blsPairs = (n: number) => {
    const P = bls12_381.G1.Point.BASE.multiply(3n);
    const Q = blsG2(bls12_381.G2.Point.BASE.multiply(4n).toAffine());
    return cat(...Array.from({ length: n }, (_, i) => cat(blsG1((i % 2 ? P.negate() : P).toAffine()), Q)));
  };
  const p = 0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff61n; // a 256-bit odd modulus
  return [
    {
      name: 'jump-loop',
      what: 'JUMPDEST PUSH1 0 JUMP until out of gas (0x5b600056, the row-3 attack)',
      tx: fixed('0x5b600056'),
    },
    {
      name: 'sha3-word',
      what: 'SHA3 of 32 bytes',
      tx: fixed(looping([...push(32), ...push(0), OP.SHA3, OP.POP], 30_000)),
    },
    {
      name: 'sha3-32k',
      what: 'SHA3 of 32 KB',
      tx: fixed(
        looping([...push(32_768, 2), ...push(0), OP.SHA3, OP.POP], 40_000, {
          setup: [...push(1), ...push(32_767, 2), 0x53],
        }),
      ),
    },
    {
      name: 'exp',
      what: 'EXP with a 32-byte exponent',
      tx: fixed(looping([...push(2n ** 256n - 1n), ...push(2n ** 255n - 19n), OP.EXP, OP.POP], 30_000)),
    },
    {
      name: 'balance-cold',
      what: 'BALANCE of a cold existing account',
      tx: (i, run) => ({
        input: looping([OP.DUP1, OP.BALANCE, OP.POP, ...push(1), OP.ADD], 30_000, {
          setup: push(ACCOUNT_BASE + (startOf(i, run, 2_000) % ACCOUNTS), 4),
        }),
      }),
    },
    {
      name: 'extcodehash-cold',
      what: 'EXTCODEHASH of a cold existing account',
      tx: (i, run) => ({
        input: looping([OP.DUP1, OP.EXTCODEHASH, OP.POP, ...push(1), OP.ADD], 30_000, {
          setup: push(ACCOUNT_BASE + ((startOf(i, run, 2_000) + 7_000) % ACCOUNTS), 4),
        }),
      }),
    },
    {
      name: 'sload-cold',
      what: 'SLOAD of a cold existing slot (a contract holding one slot per account above)',
      tx: (i, run) => ({ to: STORE_CONTRACT, input: toHex(word(BigInt((startOf(i, run, 2_000) + 3_000) % ACCOUNTS))) }),
    },
    {
      name: 'sstore-new',
      what: 'SSTORE of a new slot (init code; the contract keeps them)',
      tx: fixed(looping([...push(1), OP.DUP2, OP.SSTORE, ...push(1), OP.ADD], 40_000, { setup: push(1) })),
    },
    {
      name: 'calldata',
      what: '32 KB non-zero calldata to an account without code',
      tx: () => ({ to: addr(ACCOUNT_BASE), input: toHex(new Uint8Array(32_000).fill(0xab)) }),
    },
    {
      name: 'ecrecover',
      what: 'precompile 0x01, a valid signature (3,000 gas)',
      tx: fixed(precompileLoop(0x01, ecrecoverInput(), 3_000, 32)),
    },
    {
      name: 'sha256-4k',
      what: 'precompile 0x02 of 4 KB',
      tx: fixed(precompileLoop(0x02, new Uint8Array(4096).fill(3), 60 + 12 * 128, 32)),
    },
    {
      name: 'ripemd160-4k',
      what: 'precompile 0x03 of 4 KB',
      tx: fixed(precompileLoop(0x03, new Uint8Array(4096).fill(3), 600 + 120 * 128, 32)),
    },
    {
      name: 'identity-4k',
      what: 'precompile 0x04 of 4 KB',
      tx: fixed(precompileLoop(0x04, new Uint8Array(4096).fill(3), 15 + 3 * 128, 32)),
    },
    {
      name: 'modexp-min',
      what: 'precompile 0x05, 1-byte operands (the 200-gas minimum)',
      tx: fixed(precompileLoop(0x05, modexpInput(0xfdn, 0xffn, 0xfbn, [1, 1, 1]), 200, 1)),
    },
    {
      name: 'modexp-256',
      what: 'precompile 0x05, 32-byte base, exponent and modulus',
      tx: fixed(precompileLoop(0x05, modexpInput(p - 5n, 2n ** 256n - 1n, p, [32, 32, 32]), 20_000, 32)),
    },
    {
      name: 'modexp-wide',
      what: 'precompile 0x05, 512-byte base and modulus, exponent 0x10001',
      tx: fixed(
        precompileLoop(
          0x05,
          modexpInput(2n ** 4000n + 12345n, 0x10001n, 2n ** 4095n + 1234567n, [512, 3, 512]),
          600_000,
          512,
        ),
      ),
    },
    {
      name: 'bn254-add',
      what: 'precompile 0x06 (150 gas)',
      tx: fixed(
        precompileLoop(
          0x06,
          cat(
            bn254G1(bn254.G1.Point.BASE.multiply(3n).toAffine()),
            bn254G1(bn254.G1.Point.BASE.multiply(5n).toAffine()),
          ),
          150,
        ),
      ),
    },
    {
      name: 'bn254-mul',
      what: 'precompile 0x07, a 256-bit scalar (6,000 gas)',
      tx: fixed(precompileLoop(0x07, cat(bn254G1(bn254.G1.Point.BASE.multiply(3n).toAffine()), scalar(1)), 6_000)),
    },
    {
      name: 'bn254-pairing',
      what: 'precompile 0x08, 2 pairs (113,000 gas)',
      tx: fixed(precompileLoop(0x08, bn254PairingInput(2), 113_000, 32)),
    },
    {
      name: 'blake2f',
      what: 'precompile 0x09, 10,000 rounds (10,000 gas)',
      tx: fixed(precompileLoop(0x09, blake2fInput(10_000), 10_000)),
    },
    {
      name: 'bls-g1add',
      what: 'precompile 0x0b (375 gas)',
      tx: fixed(precompileLoop(0x0b, cat(blsG1(g1), blsG1(g1b)), 375, 128)),
    },
    {
      name: 'bls-g1msm-1',
      what: 'precompile 0x0c, 1 point (12,000 gas)',
      tx: fixed(precompileLoop(0x0c, msm(1, blsG1(g1)), 12_000, 128)),
    },
    {
      name: 'bls-g1msm-64',
      what: 'precompile 0x0c, 64 points (the discount)',
      tx: fixed(precompileLoop(0x0c, msm(64, blsG1(g1)), 500_000, 128)),
    },
    {
      name: 'bls-g2add',
      what: 'precompile 0x0d (600 gas)',
      tx: fixed(precompileLoop(0x0d, cat(blsG2(g2), blsG2(g2b)), 600, 256)),
    },
    {
      name: 'bls-g2msm-1',
      what: 'precompile 0x0e, 1 point (22,500 gas)',
      tx: fixed(precompileLoop(0x0e, msm(1, blsG2(g2)), 22_500, 256)),
    },
    {
      name: 'bls-g2msm-64',
      what: 'precompile 0x0e, 64 points (the discount)',
      tx: fixed(precompileLoop(0x0e, msm(64, blsG2(g2)), 900_000, 256)),
    },
    {
      name: 'bls-pairing',
      what: 'precompile 0x0f, 2 pairs (102,900 gas)',
      tx: fixed(precompileLoop(0x0f, blsPairs(2), 102_900, 32)),
    },
    {
      name: 'bls-map-g1',
      what: 'precompile 0x10 (5,500 gas)',
      tx: fixed(precompileLoop(0x10, fp(123456789n), 5_500, 128)),
    },
    {
      name: 'bls-map-g2',
      what: 'precompile 0x11 (23,800 gas)',
      tx: fixed(precompileLoop(0x11, cat(fp(123456789n), fp(987654321n)), 23_800, 256)),
    },
  ];
}

// ---- running blocks -------------------------------------------------------------------------

const PRODUCER = addr(0x99);
const senderOf = (i: number) => addr(0x5000 + i);

interface Chain {
  kv: KvStore;
  root: Hex;
  height: number;
  nonce: number;
}

function vmTx(
  from: Address,
  nonce: number,
  to: Address | undefined,
  input: Hex,
  gasLimit: number,
  n: number,
): SignedTx {
  return {
    chainId: CHAIN_ID,
    type: to ? 'VM_CALL' : 'VM_DEPLOY',
    from,
    to: to ?? null,
    amount: '0',
    nonce,
    timestamp: n + 1,
    fee: '100000000',
    data: { input, gasLimit },
    id: `0x${n.toString(16).padStart(64, '0')}`,
    publicKeys: { secp256k1: '0x', mldsa44: '0x00' },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
  } as SignedTx;
}

let txCounter = 0;

/** Builds and flushes one block of `txs` (one per sender); returns its ms and gas used. */
async function runBlock(
  chain: Chain,
  make: (i: number) => { input: Hex; to?: Address; gas?: number },
  count: number,
): Promise<{ ms: number; cpu: number; gas: number; failed: string[] }> {
  const state = await StateTrie.open(chain.kv, chain.root);
  const txs = Array.from({ length: count }, (_, i) => {
    const t = make(i);
    return vmTx(senderOf(i), chain.nonce, t.to, t.input, t.gas ?? TX_GAS, ++txCounter);
  });
  const t0 = performance.now();
  // CPU time: what the block costs the main thread, less the other engineers' load on a shared machine
  const c0 = process.cpuUsage();
  const built = await buildBlock(state, orderedCandidates(txs.map((t) => [t])), {
    height: chain.height + 1,
    timestamp: (chain.height + 1) * 1000,
    producer: PRODUCER,
    network: DEV_NETWORK,
    maxTxs: 500,
  }); // execution only: no signature is checked here
  const batch = chain.kv.batch();
  const root = await state.flush(batch);
  txRootOf(built.txs);
  const ms = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const cpu = (c1.user + c1.system) / 1000;
  await chain.kv.write(batch);
  state.settle();
  if (built.txs.length !== count)
    throw new Error(`only ${built.txs.length} of ${count} included: ${built.dropped[0]?.reason ?? 'skipped'}`);
  chain.root = root;
  chain.height++;
  chain.nonce++;
  let gas = 0;
  const failed: string[] = [];
  for (const r of built.results) {
    gas += Number(r.vm?.gasUsed ?? 0);
    if (r.status !== 'success') failed.push(r.error ?? 'failed');
  }
  return { ms, cpu, gas, failed };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-worstblock-'));
  const kv = await openStore(dir);
  try {
    const state = await StateTrie.open(kv, null);
    const senders = Array.from({ length: Math.max(TXS, 4) }, (_, i) => senderOf(i));
    await applyGenesis(state, {
      chainId: CHAIN_ID,
      timestamp: 1,
      accounts: [
        ...senders.map((address) => ({ address, balance: '1000000000000000' })),
        ...Array.from({ length: ACCOUNTS }, (_, i) => ({ address: addr(ACCOUNT_BASE + i), balance: String(1 + i) })),
        { address: PRODUCER, balance: '0', staked: '2000000000', isValidator: true },
        { address: STORE_CONTRACT, balance: '1' },
      ],
    });
    // sload-cold's contract: its code and one non-zero slot per account, written as the VM stores them.
    const codeHash = keccakHex(fromHex(STORE_CODE));
    await state.putRecord(codeKey(codeHash), STORE_CODE);
    await state.putAccount(STORE_CONTRACT, { ...(await state.getAccount(STORE_CONTRACT))!, codeHash });
    for (let i = 0; i < ACCOUNTS; i++)
      await state.putRecord(slotKey(STORE_CONTRACT, 0, toHex(word(BigInt(i)))), `0x${(i + 1).toString(16)}`);
    const b = kv.batch();
    const root = await state.flush(b);
    await kv.write(b);
    state.settle();
    const chain: Chain = { kv, root, height: 0, nonce: 0 };

    console.error(`worstblock: ${ACCOUNTS} accounts, ${TXS} × ${TX_GAS} gas per block, ${RUNS} runs`);

    const only = values.only?.split(',');
    const rows: { name: string; what: string; cpu: number[]; wall: number[]; gas: number }[] = [];
    for (const k of classes().filter((c) => !only || only.includes(c.name))) {
      const cpu: number[] = [];
      const wall: number[] = [];
      let gas = 0;
      for (let run = 0; run < RUNS; run++) {
        const r = await runBlock(chain, (i) => k.tx(i, run), TXS);
        cpu.push(r.cpu);
        wall.push(r.ms);
        gas = r.gas;
      }
      rows.push({ name: k.name, what: k.what, cpu, wall, gas });
      const m = spread(cpu).median;
      console.error(
        `${k.name.padEnd(18)} cpu ${fmt(m, 1).padStart(8)} ms ` +
          `(wall ${fmt(spread(wall).median, 0)})  ${fmt(gas / m, 0).padStart(7)} gas/ms`,
      );
    }
    report(rows);
  } finally {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the table and the chosen limit, and records the rows (bench/results/worstblock.json). */
function report(rows: { name: string; what: string; cpu: number[]; wall: number[]; gas: number }[]): void {
  const rate = (r: (typeof rows)[number]) => r.gas / spread(r.cpu).median; // gas per CPU ms
  // a class refused outright (--tiny: calldata over its gas) measures nothing
  const sorted = rows.filter((r) => r.gas > 0).sort((a, b) => rate(a) - rate(b));
  printTable(
    `ms per million gas, ${TXS} × ${TX_GAS} gas a block (CPU ms of buildBlock + flush + tx root; slowest first)`,
    sorted.map((r) => [r.name, `${fmt(1e6 / rate(r), 1)} ms/Mgas, ${fmt(rate(r), 0)} gas/ms — ${r.what}`]),
  );
  const jump = rows.find((r) => r.name === 'jump-loop');
  const worst = sorted[0];
  const byBudget = (r: (typeof rows)[number]) => BigInt(Math.floor((rate(r) * BUDGET_MS) / 100_000)) * 100_000n;
  const floor = PARAMS.BLOCK_GAS_LIMIT.min;
  const chosen = worst ? (byBudget(worst) > floor ? byBudget(worst) : floor) : floor;
  console.log(
    `slowest class: ${worst?.name} (${fmt(worst ? rate(worst) : NaN, 0)} gas/ms): ${BUDGET_MS} ms ` +
      `buys ${worst ? byBudget(worst) : '–'} gas`,
  );
  console.log(
    `BLOCK_GAS_LIMIT chosen: ${chosen} ` +
      `(never below VM_MAX_GAS ${floor}: one admissible transaction must fit); default in ` +
      `force: ${PARAMS.BLOCK_GAS_LIMIT.default}`,
  );
  const msAt = (r: (typeof rows)[number], gas: bigint) => Number(gas) / rate(r);
  const out: ResultRow[] = [];
  if (jump) {
    const ms = jump.cpu.map((c) => (c * Number(PARAMS.BLOCK_GAS_LIMIT.default)) / jump.gas);
    out.push({
      metric: 'worst block of looping jumps at BLOCK_GAS_LIMIT (the row-3 attack), CPU ms',
      unit: 'ms',
      cairn: spread(ms),
      reference: null,
      target: `≤ ${BUDGET_MS} ms (40 % of a 500 ms slot)`,
      met: spread(ms).median <= BUDGET_MS,
      note: `${fmt(rate(jump), 0)} gas/ms; wall ${fmt(spread(jump.wall).median, 0)} ms for ${jump.gas} gas`,
    });
  }
  for (const r of sorted.slice(0, 8)) {
    const ms = msAt(r, PARAMS.BLOCK_GAS_LIMIT.default);
    out.push({
      metric: `worst block, ${r.name}, CPU ms at BLOCK_GAS_LIMIT`,
      unit: 'ms',
      cairn: spread(r.cpu.map((c) => (c * Number(PARAMS.BLOCK_GAS_LIMIT.default)) / r.gas)),
      reference: null,
      target: `≤ ${BUDGET_MS} ms`,
      met: ms <= BUDGET_MS,
      note: `${fmt(rate(r), 0)} gas/ms (${fmt(1e6 / rate(r), 1)} ms per million gas): ${r.what}`,
    });
  }
  if (!TINY || values['results-dir']) writeResults('worstblock', out, values['results-dir']);
}

await main();
