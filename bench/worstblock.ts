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
 * existing slots, SSTORE of new slots, kept and flushed); warm state (SLOAD, BALANCE, a dirty and a
 * no-op SSTORE, TSTORE, BLOCKHASH, MLOAD, CALLER); every call opcode on itself (issue 49's attack,
 * 0x5b6000600060006000305afa50600056, verbatim as init code and as a contract's code that
 * recurses), on a contract, on an empty account, cold on accounts and on contracts with code of
 * their own, with value to itself and to new accounts; CREATE / CREATE2; LOG0..LOG4 of no data
 * and of 4 KB; memory (a frame grown word by word, a fresh 32 KB in every call frame, MCOPY,
 * CALLDATACOPY and RETURNDATACOPY of 32 KB); EXTCODECOPY (warm 24 KB, cold contracts) and cold
 * EXTCODESIZE; every precompile with the input shape that is slowest per gas (ecrecover,
 * sha256, ripemd160, identity of 4 KB and of nothing, modexp in three shapes, bn254 add / mul /
 * pairing, blake2f, the BLS12-381 ones); calldata (32 KB of non-zero input to an account
 * without code, the largest a hybrid transaction carries).
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
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { toHex, type Hex } from '../src/primitives/hex';
import { PARAMS } from '../src/protocol/governable';
import { VM_MAX_GAS } from '../src/protocol/params';
import {
  OP,
  word,
  bn254G1,
  bn254PairingInput,
  blake2fInput,
  blsG1,
  blsG2,
  callBody,
  cat,
  ecrecoverInput,
  fp,
  initCodeOf,
  looping,
  modexpInput,
  precompileLoop,
  push,
  scalar,
  selfCallLoop,
} from '../test/adversarial/attacks/evmCode';
import { fmt, posInt, printTable } from './lib/harness';
import { spread, writeResults, type ResultRow } from './lib/results';
import { ACCOUNT_BASE, addr, type BlockTx, type GenesisContract, openWorstChain } from './lib/worstBlockChain';

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

interface Klass {
  name: string;
  what: string;
  /** The transaction's code: init code of a VM_DEPLOY, or calldata of a VM_CALL to `to`. */
  tx(i: number, run: number): BlockTx;
}

/** A contract whose code SLOADs its slots from the one calldata names on (slots 0..ACCOUNTS-1 exist). */
const STORE_CONTRACT = addr(0x7777);
const STORE_CODE = looping([OP.DUP1, OP.SLOAD, OP.POP, ...push(1), OP.ADD], 30_000, {
  setup: [...push(0), OP.CALLDATALOAD],
});

/** The issue-49 loop as contract code, for each call opcode: every call recurses into the same loop. */
const SELF = {
  STATICCALL: addr(0x7001),
  CALL: addr(0x7002),
  DELEGATECALL: addr(0x7003),
  CALLCODE: addr(0x7004),
} as const;
/** A contract of one STOP. */
const STOP_CONTRACT = addr(0x7010);
/** Calls itself with 1 wei in a loop; a call carrying value stops at once. */
const VALUE_SELF = addr(0x7011);
const VALUE_SELF_CODE = looping(callBody('CALL', [OP.ADDRESS], { value: push(1) }), 30_000, {
  setup: [OP.CALLVALUE, OP.ISZERO, ...push(7, 2), OP.JUMPI, OP.STOP], // 7 bytes: the loop starts right after
});
/** Sends 1 wei to addr(n), addr(n + 1), … (new accounts), n from calldata. */
const VALUE_NEW = addr(0x7012);
const VALUE_NEW_CODE = looping(
  [...callBody('CALL', [OP.DUP1 + 5], { value: push(1) }), ...push(1), OP.ADD], // DUP6: n under the 5 arguments
  60_000,
  { setup: [...push(0), OP.CALLDATALOAD] },
);
/** Returns 32 KB of zeros (its memory). */
const RETURNER = addr(0x7013);
/** 24,000 bytes of code (a STOP, then JUMPDESTs). */
const BIG_CODE = addr(0x7014);
/** Grows a fresh frame's memory to 32 KB (MSTORE8 at 32,767) and stops. */
const MEM_32K = addr(0x7015);
/** CALLDATACOPYs its whole calldata to memory 0 in a loop. */
const CD_COPIER = addr(0x7016);
/** Contracts with distinct 1 KB codes (cold code reads): addr(CODE_BASE + i), i < CODES. */
const CODE_BASE = 0x200000;
const CODES = TINY ? 600 : 12_000;
const codeOf = (i: number) => toHex(Uint8Array.from([...push(i, 4), OP.POP, OP.STOP, ...new Array(1_018).fill(0x5b)]));
/** Where value-new's new accounts start. */
const NEW_BASE = 0x400000;

function genesisContracts(): GenesisContract[] {
  const big = '1000000000000000';
  return [
    {
      address: STORE_CONTRACT,
      code: STORE_CODE,
      slots: Array.from({ length: ACCOUNTS }, (_, i): [Hex, Hex] => [
        toHex(word(BigInt(i))),
        `0x${(i + 1).toString(16)}`,
      ]),
    },
    ...Object.entries(SELF).map(([name, address]) => ({
      address,
      code: selfCallLoop(name as keyof typeof SELF),
      balance: big,
    })),
    { address: STOP_CONTRACT, code: '0x00' },
    { address: VALUE_SELF, code: VALUE_SELF_CODE, balance: big },
    { address: VALUE_NEW, code: VALUE_NEW_CODE, balance: big },
    { address: RETURNER, code: toHex(Uint8Array.from([...push(32_768, 2), ...push(0), OP.RETURN])) },
    { address: BIG_CODE, code: toHex(Uint8Array.from([OP.STOP, ...new Array(23_999).fill(0x5b)])) },
    { address: MEM_32K, code: toHex(Uint8Array.from([...push(1), ...push(32_767, 2), OP.MSTORE8, OP.STOP])) },
    {
      address: CD_COPIER,
      code: looping([OP.CALLDATASIZE, ...push(0), ...push(0), OP.CALLDATACOPY], 30_000),
    },
    ...Array.from({ length: CODES }, (_, i) => ({ address: addr(CODE_BASE + i), code: codeOf(i) })),
  ];
}

/** Distinct starting points so no two transactions (in any run) touch the same cold items. */
const startOf = (i: number, run: number, per: number) => (run * TXS + i) * per;

/** A loop over consecutive addresses from `first`: `op` finds the address on top and leaves the stack as it was. */
const overAddresses = (first: number, op: number[], reserve = 30_000): Hex =>
  looping([...op, ...push(1), OP.ADD], reserve, { setup: push(first, 4) });

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
    // ---- warm state and cheap async opcodes ----
    {
      name: 'sload-warm',
      what: 'SLOAD of a warm slot',
      tx: fixed(looping([...push(0), OP.SLOAD, OP.POP], 30_000)),
    },
    {
      name: 'balance-warm',
      what: 'BALANCE of a warm account (the contract itself)',
      tx: fixed(looping([OP.ADDRESS, OP.BALANCE, OP.POP], 30_000)),
    },
    {
      name: 'sstore-dirty',
      what: 'SSTORE of a changing value to one dirty slot',
      tx: fixed(looping([OP.GAS, ...push(0), OP.SSTORE], 30_000, { setup: [...push(1), ...push(0), OP.SSTORE] })),
    },
    {
      name: 'sstore-noop',
      what: 'SSTORE of the value a slot holds (zero)',
      tx: fixed(looping([...push(0), ...push(0), OP.SSTORE], 30_000)),
    },
    {
      name: 'caller',
      what: 'CALLER (a 20-byte word; the library converts it through hex)',
      tx: fixed(looping([0x33, OP.POP], 30_000)),
    },
    {
      name: 'tstore',
      what: 'TSTORE of a changing value to one slot',
      tx: fixed(looping([OP.GAS, ...push(0), OP.TSTORE], 30_000)),
    },
    {
      name: 'tload',
      what: 'TLOAD of one slot (found by bench/worstblockSearch.ts)',
      tx: fixed(looping([...push(7), OP.TLOAD, OP.POP], 30_000)),
    },
    {
      name: 'blockhash',
      what: 'BLOCKHASH of the parent',
      tx: fixed(looping([...push(1), OP.NUMBER, OP.SUB, OP.BLOCKHASH, OP.POP], 30_000)),
    },
    {
      name: 'mload',
      what: 'MLOAD of paid memory',
      tx: fixed(looping([...push(0), OP.MLOAD, OP.POP], 30_000)),
    },
    // ---- calls (issue 49) ----
    {
      name: 'self-staticcall',
      what: 'a contract of 0x5b6000600060006000305afa50600056: STATICCALL to itself, recursing (issue 49)',
      tx: () => ({ to: SELF.STATICCALL, input: '0x' }),
    },
    {
      name: 'self-staticcall-init',
      what: '0x5b6000600060006000305afa50600056 verbatim as init code (its address has no code yet)',
      tx: fixed(selfCallLoop('STATICCALL')),
    },
    {
      name: 'self-call',
      what: 'the same loop with CALL (value 0), recursing',
      tx: () => ({ to: SELF.CALL, input: '0x' }),
    },
    {
      name: 'self-delegatecall',
      what: 'the same loop with DELEGATECALL, recursing',
      tx: () => ({ to: SELF.DELEGATECALL, input: '0x' }),
    },
    {
      name: 'self-callcode',
      what: 'the same loop with CALLCODE (value 0), recursing',
      tx: () => ({ to: SELF.CALLCODE, input: '0x' }),
    },
    // Each call opcode on a warm contract that only stops: the message frame alone.
    ...(['CALL', 'STATICCALL', 'DELEGATECALL', 'CALLCODE'] as const).map((op) => ({
      name: `${op.toLowerCase()}-contract-warm`,
      what: `${op} of a warm contract (a STOP)`,
      tx: fixed(looping(callBody(op, push(BigInt(STOP_CONTRACT), 20)), 30_000)),
    })),
    {
      name: 'call-empty-warm',
      what: 'CALL of a warm existing account without code',
      tx: fixed(looping(callBody('CALL', push(ACCOUNT_BASE, 20)), 30_000)),
    },
    {
      name: 'identity-empty',
      what: 'STATICCALL of precompile 0x04 with no input',
      tx: fixed(looping(callBody('STATICCALL', push(4)), 30_000)),
    },
    {
      name: 'call-cold',
      what: 'CALL of a cold existing account without code',
      tx: (i, run) => ({
        input: overAddresses(
          ACCOUNT_BASE + ((startOf(i, run, 1_000) + 14_000) % ACCOUNTS),
          callBody('CALL', [OP.DUP1 + 5]),
        ),
      }),
    },
    {
      name: 'call-cold-code',
      what: 'CALL of a cold contract with a code of its own (1 KB)',
      tx: (i, run) => ({
        input: overAddresses(CODE_BASE + (startOf(i, run, 1_000) % CODES), callBody('CALL', [OP.DUP1 + 5])),
      }),
    },
    {
      name: 'staticcall-cold-code',
      what: 'STATICCALL of a cold contract with a code of its own (1 KB)',
      tx: (i, run) => ({
        input: overAddresses(
          CODE_BASE + ((startOf(i, run, 1_000) + 3_000) % CODES),
          callBody('STATICCALL', [OP.DUP1 + 4]),
        ),
      }),
    },
    {
      name: 'call-value-self',
      what: 'CALL with 1 wei to itself (the callee stops)',
      tx: () => ({ to: VALUE_SELF, input: '0x' }),
    },
    {
      name: 'call-value-new',
      what: 'CALL with 1 wei to a new account',
      tx: (i, run) => ({ to: VALUE_NEW, input: toHex(word(BigInt(NEW_BASE + startOf(i, run, 1_000)))) }),
    },
    // ---- creation ----
    {
      name: 'create-empty',
      what: 'CREATE of empty init code (a new account)',
      tx: fixed(looping([...push(0), ...push(0), ...push(0), OP.CREATE, OP.POP], 40_000)),
    },
    {
      name: 'create2-empty',
      what: 'CREATE2 of empty init code, a new salt each',
      tx: fixed(
        looping([OP.DUP1, ...push(0), ...push(0), ...push(0), OP.CREATE2, OP.POP, ...push(1), OP.ADD], 40_000, {
          setup: push(0),
        }),
      ),
    },
    {
      name: 'create-code',
      what: 'CREATE of a contract of one byte',
      tx: (() => {
        const init = initCodeOf(Uint8Array.of(OP.STOP));
        return fixed(
          looping([...push(init.length), ...push(0), ...push(0), OP.CREATE, OP.POP], 40_000, { data: init }),
        );
      })(),
    },
    // ---- logs ----
    ...[0, 4].flatMap((topics) =>
      [0, 4_096].map(
        (bytes): Klass => ({
          name: `log${topics}-${bytes ? '4k' : 'empty'}`,
          what: `LOG${topics} of ${bytes ? '4 KB' : 'no data'}`,
          tx: fixed(
            looping(
              [
                ...Array.from({ length: topics }, (_, t) => push(t + 1)).flat(),
                ...push(bytes, 2),
                ...push(0),
                OP.LOG0 + topics,
              ],
              60_000,
            ),
          ),
        }),
      ),
    ),
    // ---- memory and copies ----
    {
      name: 'mstore-grow',
      what: 'MSTORE a word further each time (one frame growing to ~1.4 MB)',
      tx: fixed(looping([OP.DUP1, OP.DUP1, OP.MSTORE, ...push(32), OP.ADD], 60_000, { setup: push(0) })),
    },
    {
      name: 'mem-frames',
      what: 'STATICCALL of a contract growing its fresh memory to 32 KB',
      tx: fixed(looping(callBody('STATICCALL', push(BigInt(MEM_32K), 20)), 30_000)),
    },
    {
      name: 'mcopy-32k',
      what: 'MCOPY of 32 KB within paid memory',
      tx: fixed(
        looping([...push(32_768, 2), ...push(0), ...push(32_768, 2), OP.MCOPY], 30_000, {
          setup: [...push(1), ...push(65_535, 2), OP.MSTORE8],
        }),
      ),
    },
    {
      name: 'calldatacopy-32k',
      what: 'CALLDATACOPY of 32 KB (zero) calldata',
      tx: () => ({ to: CD_COPIER, input: toHex(new Uint8Array(32_768)) }),
    },
    {
      name: 'returndatacopy-32k',
      what: 'RETURNDATACOPY of 32 KB',
      tx: fixed(
        looping([...push(32_768, 2), ...push(0), ...push(0), OP.RETURNDATACOPY], 30_000, {
          setup: callBody('STATICCALL', push(BigInt(RETURNER), 20)),
        }),
      ),
    },
    {
      name: 'extcodecopy-warm',
      what: 'EXTCODECOPY of a warm 24 KB contract',
      tx: fixed(
        looping([...push(24_000, 2), ...push(0), ...push(0), ...push(BigInt(BIG_CODE), 20), OP.EXTCODECOPY], 30_000),
      ),
    },
    {
      name: 'extcodecopy-cold',
      what: 'EXTCODECOPY of a cold contract with a code of its own (1 KB)',
      tx: (i, run) => ({
        input: overAddresses(CODE_BASE + ((startOf(i, run, 1_000) + 6_000) % CODES), [
          ...push(1_024, 2),
          ...push(0),
          ...push(0),
          OP.DUP1 + 3,
          OP.EXTCODECOPY,
        ]),
      }),
    },
    {
      name: 'extcodesize-cold',
      what: 'EXTCODESIZE of a cold contract with a code of its own (1 KB)',
      tx: (i, run) => ({
        input: overAddresses(CODE_BASE + ((startOf(i, run, 1_000) + 9_000) % CODES), [OP.DUP1, OP.EXTCODESIZE, OP.POP]),
      }),
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

type Row = { name: string; what: string; cpu: number[]; wall: number[]; gas: number; failed: string[] };

async function main(): Promise<void> {
  const chain = await openWorstChain({ accounts: ACCOUNTS, senders: Math.max(TXS, 4), contracts: genesisContracts() });
  try {
    console.error(`worstblock: ${ACCOUNTS} accounts, ${TXS} × ${TX_GAS} gas per block, ${RUNS} runs`);
    const only = values.only?.split(',');
    const rows: Row[] = [];
    for (const k of classes().filter((c) => !only || only.includes(c.name))) {
      const cpu: number[] = [];
      const wall: number[] = [];
      let gas = 0;
      let failed: string[] = [];
      for (let run = 0; run < RUNS; run++) {
        const r = await chain.runBlock((i) => k.tx(i, run), TXS, TX_GAS);
        cpu.push(r.cpu);
        wall.push(r.ms);
        gas = r.gas;
        failed = r.failed;
      }
      rows.push({ name: k.name, what: k.what, cpu, wall, gas, failed });
      const m = spread(cpu).median;
      console.error(
        `${k.name.padEnd(26)} cpu ${fmt(m, 1).padStart(8)} ms ` +
          `(wall ${fmt(spread(wall).median, 0)})  ${fmt(gas / m, 0).padStart(7)} gas/ms` +
          `  ${fmt((m * Number(PARAMS.BLOCK_GAS_LIMIT.default)) / gas, 0).padStart(5)} ms at the limit` +
          (failed.length ? `  (${failed[0]})` : ''),
      );
    }
    report(rows);
  } finally {
    await chain.close();
  }
}

/** Prints the table and the chosen limit, and records the rows (bench/results/worstblock.json). */
function report(rows: Row[]): void {
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
  for (const r of sorted) {
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
