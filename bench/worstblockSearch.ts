/**
 * The worst block per gas, searched for: fast-check draws short loops of opcodes and each one
 * runs as a block of one VM_MAX_GAS transaction through the producer's path (bench/lib/
 * worstBlockChain.ts, the chain of bench/worstblock.ts), and the slowest per gas is reported:
 * its bytecode, its gas per CPU ms and its CPU ms at BLOCK_GAS_LIMIT. bench/worstblock.ts
 * measures the classes someone thought of; this looks for the ones nobody did.
 *
 *   npx tsx bench/worstblockSearch.ts [--loops 200] [--search-gas 1000000] [--runs 3] [--seed 49]
 *                                     [--budget-ms 200] [--tiny] [--results-dir DIR]
 *
 * A loop is JUMPDEST, a body of 1–4 fragments, PUSH1 0, JUMP: it runs until out of gas. Each
 * fragment leaves the stack as it found it (pushes its operands, runs one opcode, pops what it
 * left): arithmetic, environment and block reads, warm and cold account and slot reads and
 * writes, transient storage, memory reads, writes and copies of a few sizes, SHA3, logs, the
 * four calls (to the contract itself, a precompile, an empty account, a contract, nothing) with
 * input and output, CREATE / CREATE2. The loop is the runtime code of a contract (deployed by
 * one block, called by the next: so a call to itself recurses into it).
 *
 * Each loop is first run with --search-gas (1,000,000: ~30 ms at the target speed) and timed
 * once; the five slowest per gas are then run --runs times at VM_MAX_GAS, and the slowest of
 * those (by its median) is the row. gas/ms = gas used ÷ CPU ms of buildBlock + flush + tx root.
 *
 * --tiny: 6 loops at 300,000 gas, one run (numbers mean nothing; the suite runs it so the
 * script does not rot).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { toHex, type Hex } from '../src/primitives/hex';
import { PARAMS } from '../src/protocol/governable';
import { VM_MAX_GAS } from '../src/protocol/params';
import { OP, callBody, initCodeOf, push, type CallName } from '../test/adversarial/attacks/evmCode';
import { fmt, posInt } from './lib/harness';
import { spread, writeResults } from './lib/results';
import { ACCOUNT_BASE, addr, openWorstChain, type WorstChain } from './lib/worstBlockChain';

const { values } = parseArgs({
  options: {
    loops: { type: 'string', default: '200' },
    'search-gas': { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    seed: { type: 'string', default: '49' },
    'budget-ms': { type: 'string', default: '200' },
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
const LOOPS = TINY ? 6 : posInt(values.loops!, 'loops', 100_000);
const FULL_GAS = TINY ? 300_000 : Number(VM_MAX_GAS);
const SEARCH_GAS = TINY ? 300_000 : posInt(values['search-gas']!, 'search-gas', Number(VM_MAX_GAS), 100_000);
const RUNS = TINY ? 1 : posInt(values.runs!, 'runs', 20);
const SEED = posInt(values.seed!, 'seed', 2 ** 31 - 1, 0);
const BUDGET_MS = posInt(values['budget-ms']!, 'budget-ms', 10_000);
const FINALISTS = TINY ? 1 : 5;
const LIMIT = Number(PARAMS.BLOCK_GAS_LIMIT.default);

// ---- the loops ------------------------------------------------------------------------------

/** A contract of one STOP and one holding a slot (the call and cold-read targets). */
const STOP_CONTRACT = addr(0x7010);
const ACCOUNTS = 200;

interface Fragment {
  code: number[];
  name: string;
}

const offset = fc.constantFrom(0, 32, 1_024, 32_736);
const length = fc.constantFrom(0, 1, 32, 1_024, 32_768);
const word = fc.constantFrom(0n, 1n, 2n, 31n, 255n, 2n ** 255n - 19n, 2n ** 256n - 1n);
const slot = fc.constantFrom(0, 1, 7);
/** Code pushing an address: the contract itself, the caller, precompiles, an existing account, a contract, nothing. */
const address = fc.constantFrom<{ code: number[]; name: string }>(
  { code: [OP.ADDRESS], name: 'self' },
  { code: [0x33], name: 'caller' },
  { code: push(1), name: 'ecrecover' },
  { code: push(4), name: 'identity' },
  { code: push(ACCOUNT_BASE, 20), name: 'account' },
  { code: push(BigInt(STOP_CONTRACT), 20), name: 'stop-contract' },
  { code: push(0xdead, 20), name: 'nobody' },
);
/** A cold account each time: the loop's counter in transient storage slot 9, advanced on every read. */
const coldAddress: number[] = [
  ...push(9),
  OP.TLOAD,
  ...push(1),
  OP.ADD,
  OP.DUP1,
  ...push(9),
  OP.TSTORE,
  ...push(ACCOUNT_BASE, 4),
  OP.ADD,
];

const nullary = [
  0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4a, 0x58, 0x59,
  0x5a,
];
const unary = [0x15, 0x19];
const binary = [
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b,
  0x1c, 0x1d,
];
const hex = (op: number) => `0x${op.toString(16).padStart(2, '0')}`;

const fragment: fc.Arbitrary<Fragment> = fc.oneof(
  fc.constantFrom(...nullary).map((op) => ({ code: [op, OP.POP], name: hex(op) })),
  fc.tuple(fc.constantFrom(...unary), word).map(([op, a]) => ({ code: [...push(a), op, OP.POP], name: hex(op) })),
  fc
    .tuple(fc.constantFrom(...binary), word, word)
    .map(([op, a, b]) => ({ code: [...push(b), ...push(a), op, OP.POP], name: hex(op) })),
  fc
    .tuple(fc.constantFrom(0x08, 0x09), word, word, word)
    .map(([op, a, b, n]) => ({ code: [...push(n), ...push(b), ...push(a), op, OP.POP], name: hex(op) })),
  // account reads, warm or (counting up) cold
  fc
    .tuple(
      fc.constantFrom(OP.BALANCE, OP.EXTCODESIZE, OP.EXTCODEHASH),
      fc.oneof(address, fc.constant({ code: coldAddress, name: 'cold' })),
    )
    .map(([op, a]) => ({ code: [...a.code, op, OP.POP], name: `${hex(op)}(${a.name})` })),
  fc
    .integer({ min: 1, max: 300 })
    .map((back) => ({ code: [...push(back), OP.NUMBER, OP.SUB, OP.BLOCKHASH, OP.POP], name: 'BLOCKHASH' })),
  fc
    .tuple(fc.constantFrom(OP.SLOAD, OP.TLOAD), slot)
    .map(([op, s]) => ({ code: [...push(s), op, OP.POP], name: hex(op) })),
  fc
    .tuple(fc.constantFrom(OP.SSTORE, OP.TSTORE), slot, fc.constantFrom<number[]>([OP.GAS], push(1), push(0)))
    .map(([op, s, v]) => ({ code: [...v, ...push(s), op], name: hex(op) })),
  fc.tuple(offset).map(([o]) => ({ code: [...push(o, 2), OP.MLOAD, OP.POP], name: 'MLOAD' })),
  fc
    .tuple(fc.constantFrom(OP.MSTORE, OP.MSTORE8), offset)
    .map(([op, o]) => ({ code: [OP.GAS, ...push(o, 2), op], name: hex(op) })),
  fc
    .tuple(fc.constantFrom(OP.CALLDATACOPY, 0x39 /* CODECOPY */, OP.RETURNDATACOPY, OP.MCOPY), offset, length)
    .map(([op, o, n]) => ({ code: [...push(n, 2), ...push(0), ...push(o, 2), op], name: `${hex(op)}(${n})` })),
  fc.tuple(address, offset, length).map(([a, o, n]) => ({
    code: [...push(n, 2), ...push(0), ...push(o, 2), ...a.code, OP.EXTCODECOPY],
    name: `EXTCODECOPY(${a.name},${n})`,
  })),
  fc
    .tuple(offset, length)
    .map(([o, n]) => ({ code: [...push(n, 2), ...push(o, 2), OP.SHA3, OP.POP], name: `SHA3(${n})` })),
  fc.tuple(fc.integer({ min: 0, max: 4 }), length).map(([topics, n]) => ({
    code: [...Array.from({ length: topics }, (_, t) => push(t)).flat(), ...push(n, 2), ...push(0), OP.LOG0 + topics],
    name: `LOG${topics}(${n})`,
  })),
  fc
    .tuple(
      fc.constantFrom<CallName>('CALL', 'STATICCALL', 'DELEGATECALL', 'CALLCODE'),
      address,
      length,
      length,
      fc.boolean(),
    )
    .map(([name, a, inLen, outLen, value]) => ({
      code: callBody(name, a.code, { inLen, outLen, value: value ? push(1) : push(0) }),
      name: `${name}(${a.name},${inLen},${outLen}${value ? ',1 wei' : ''})`,
    })),
  fc.tuple(fc.constantFrom(OP.CREATE, OP.CREATE2), fc.constantFrom(0, 1, 32)).map(([op, n]) => ({
    code: [...(op === OP.CREATE2 ? [OP.GAS] : []), ...push(n), ...push(0), ...push(0), op, OP.POP],
    name: `${op === OP.CREATE ? 'CREATE' : 'CREATE2'}(${n})`,
  })),
);

interface Loop {
  code: Hex;
  name: string;
}

const loop: fc.Arbitrary<Loop> = fc.array(fragment, { minLength: 1, maxLength: 4 }).map((fs) => ({
  code: toHex(Uint8Array.from([OP.JUMPDEST, ...fs.flatMap((f) => f.code), ...push(0), OP.JUMP])),
  name: fs.map((f) => f.name).join(' '),
}));

// ---- running them ---------------------------------------------------------------------------

/** Deploys `l` as a contract (one block), calls it with `gas` (the next): CPU ms and gas used of the call's block. */
async function runLoop(chain: WorstChain, l: Loop, gas: number): Promise<{ cpu: number; gas: number }> {
  const deployed = await chain.runBlock(
    () => ({ input: toHex(initCodeOf(Buffer.from(l.code.slice(2), 'hex'))) }),
    1,
    200_000,
  );
  const to = deployed.created[0];
  if (!to) throw new Error(`the loop ${l.code} did not deploy: ${deployed.failed[0]}`);
  const r = await chain.runBlock(() => ({ to, input: '0x' }), 1, gas);
  return { cpu: r.cpu, gas: r.gas };
}

async function main(): Promise<void> {
  const chain = await openWorstChain({
    accounts: ACCOUNTS,
    senders: 1,
    contracts: [{ address: STOP_CONTRACT, code: '0x00' }],
  });
  try {
    const loops = fc.sample(loop, { numRuns: LOOPS, seed: SEED });
    console.error(
      `worstblock-search: ${LOOPS} loops (seed ${SEED}) at ${SEARCH_GAS} gas, then ${FINALISTS} at ${FULL_GAS}`,
    );
    // One warm-up so the first loop is not judged by a cold JIT.
    await runLoop(chain, { code: '0x5b600056', name: 'jump-loop' }, SEARCH_GAS);
    const scored: { l: Loop; rate: number }[] = [];
    for (const [i, l] of loops.entries()) {
      const r = await runLoop(chain, l, SEARCH_GAS);
      scored.push({ l, rate: r.gas / r.cpu });
      if (i % 25 === 24)
        console.error(`  ${i + 1} loops; slowest so far ${fmt(Math.min(...scored.map((s) => s.rate)), 0)} gas/ms`);
    }
    scored.sort((a, b) => a.rate - b.rate);
    const finals: { l: Loop; cpu: number[]; gas: number }[] = [];
    for (const { l, rate } of scored.slice(0, FINALISTS)) {
      const cpu: number[] = [];
      let gas = 0;
      for (let run = 0; run < RUNS; run++) {
        const r = await runLoop(chain, l, FULL_GAS);
        cpu.push(r.cpu);
        gas = r.gas;
      }
      finals.push({ l, cpu, gas });
      const m = spread(cpu).median;
      console.error(
        `${fmt(gas / m, 0).padStart(8)} gas/ms (search ${fmt(rate, 0)}), ` +
          `${fmt((m * LIMIT) / gas, 0)} ms at the limit: ` +
          `${l.name} ${l.code}`,
      );
    }
    const rate = (f: (typeof finals)[number]) => f.gas / spread(f.cpu).median;
    const worst = finals.sort((a, b) => rate(a) - rate(b))[0];
    const ms = spread(worst.cpu.map((c) => (c * LIMIT) / worst.gas));
    console.log(
      `worst loop found: ${worst.l.code} (${worst.l.name}): ${fmt(rate(worst), 0)} gas/ms, ` +
        `${fmt(ms.median, 0)} ms at BLOCK_GAS_LIMIT ${LIMIT}`,
    );
    if (!TINY || values['results-dir'])
      writeResults(
        'worstblock-search',
        [
          {
            metric: `worst block found by the search (${LOOPS} loops, seed ${SEED}), CPU ms at BLOCK_GAS_LIMIT`,
            unit: 'ms',
            cairn: ms,
            reference: null,
            target: `≤ ${BUDGET_MS} ms`,
            met: ms.median <= BUDGET_MS,
            note: `${fmt(rate(worst), 0)} gas/ms: ${worst.l.code} (${worst.l.name})`,
          },
        ],
        values['results-dir'],
      );
  } finally {
    await chain.close();
  }
}

await main();
