import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Common } from '@ethereumjs/common';
import { type EVM, EVMError } from '@ethereumjs/evm';
import { type Address as EthAddress, createAddressFromBigInt } from '@ethereumjs/util';

const EVMErrorTypeString = 'EVMError'; // what the library marks its errors with (errors.js, not exported)
import { keccak256Word } from '../crypto/keccak';

/**
 * Two memoizations of work @ethereumjs/evm 10.1.3 repeats on every message, measured in
 * bench/evm.ts (ERC-20 transfers): together they were ~20% of execution time. Both only
 * cache pure functions of values that never change for a Cairn EVM, so results are
 * identical with or without them (the VM test suite runs with them installed).
 *
 * 1. Jump analysis: the interpreter scans the whole bytecode (jump destinations, decoded PUSH
 *    values, opcode table entries) each time a message runs code with a JUMP — ~100 µs for a
 *    token contract, per call. The result depends only on the code bytes and the EVM's opcode
 *    table; code arrays come from EvmStateAdapter's code cache (one array per code hash), so
 *    the analysis is kept per (opcode table, code array) in WeakMaps. The interpreter only
 *    reads what the analysis returns.
 * 2. Common.isActivatedEIP is an Array.includes over ~60 EIPs, called several times per
 *    executed opcode. A Cairn EVM's Common never changes hardfork or EIPs after creation; the
 *    replacement still rebuilds its Set if the library ever swaps the underlying array.
 *
 * 3. MSTORE, MLOAD, EXP, SHA3, the copies and the address words (below).
 *
 * The interpreter class is internal to the package (not exported), so it is reached by file
 * next to the package's ESM entry — the same module instance the EVM uses. If a library
 * upgrade moves it, nothing breaks: execution runs unmemoized and `jumpAnalysisCached` stays
 * false (a unit test checks it is true for the pinned version).
 */

type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] };
interface InterpreterProto {
  _getValidJumpDestinations(this: { _evm: { _opcodeMap: object } }, code: Uint8Array): Analysis;
  run(this: InterpreterThis, code: Uint8Array, opts?: { pc?: number }): Promise<unknown>;
}

export let jumpAnalysisCached = false;
/** True once the interpreter loop below is installed (a unit test checks it for the pinned version). */
export let fastLoopInstalled = false;
/**
 * A message frame yields to the event loop after this many steps or this much gas (whichever first): a few ms of work.
 */
export const YIELD_STEPS = 16_384;
export const YIELD_GAS = 50_000n;
const YIELD_GAS_N = Number(YIELD_GAS);
const MAX_SAFE_GAS = BigInt(Number.MAX_SAFE_INTEGER);
let installing: Promise<void> | undefined;

export function installEvmSpeedups(): Promise<void> {
  installing ??= (async () => {
    try {
      // The CommonJS entry (dist/cjs/index.js) locates the package; its ESM twin is what runs.
      const cjsEntry = createRequire(import.meta.url).resolve('@ethereumjs/evm');
      const url = pathToFileURL(join(dirname(cjsEntry), '..', 'esm', 'interpreter.js')).href;
      const mod = (await import(url)) as { Interpreter?: { prototype: InterpreterProto } };
      const proto = mod.Interpreter?.prototype;
      if (!proto || typeof proto._getValidJumpDestinations !== 'function') return;
      const analyze = proto._getValidJumpDestinations;
      const byTable = new WeakMap<object, WeakMap<Uint8Array, Analysis>>();
      proto._getValidJumpDestinations = function (code) {
        const table = this._evm._opcodeMap;
        let byCode = byTable.get(table);
        if (!byCode) byTable.set(table, (byCode = new WeakMap()));
        let a = byCode.get(code);
        if (!a) byCode.set(code, (a = analyze.call(this, code)));
        return a;
      };
      jumpAnalysisCached = true;
      installFastLoop(proto);
    } catch {
      // Not found in this layout: run unmemoized.
    }
  })();
  return installing;
}

/** Set-backed isActivatedEIP for a Common whose EIP list is fixed (see above). */
export function fastEipLookup(common: Common): void {
  const c = common as unknown as { _activatedEIPsCache?: number[]; isActivatedEIP(eip: number): boolean };
  if (!Array.isArray(c._activatedEIPsCache)) return;
  let source: number[] | undefined;
  let set = new Set<number>();
  c.isActivatedEIP = (eip: number) => {
    if (c._activatedEIPsCache !== source) {
      source = c._activatedEIPsCache!;
      set = new Set(source);
    }
    return set.has(eip);
  };
}

interface OpcodeEntry {
  opcodeInfo: { name: string; isAsync?: boolean };
  opHandler: (runState: RunState) => void;
}
interface RunState {
  stack: { popN(n: number): bigint[] };
  memory: { extend(offset: number, size: number): void; _store: Uint8Array };
}

/**
 * MSTORE writes a stack word as 32 bytes. The library pads with
 * `new Uint8Array([...new Uint8Array(pad), ...bytes])` — spread through iterators, the single
 * hottest line of an ERC-20 transfer (~6% of execution). Same bytes from the word's four 64-bit parts
 * (a stack word is always < 2^256). Gas is charged separately (the
 * opcode's base fee and memory-expansion handler are untouched), so only the bytes written
 * could differ: a property test compares them with the library's handler.
 */
export function mstore(runState: RunState): void {
  const [offset, word] = runState.stack.popN(2);
  const at = Number(offset);
  const memory = runState.memory;
  memory.extend(at, 32); // what the library's write does first
  // The word's four 64-bit parts written big-endian: the same bytes as its hex, without the string (~0.5 µs).
  const v = new DataView(memory._store.buffer, memory._store.byteOffset + at, 32);
  v.setBigUint64(0, word >> 192n);
  v.setBigUint64(8, BigInt.asUintN(64, word >> 128n));
  v.setBigUint64(16, BigInt.asUintN(64, word >> 64n));
  v.setBigUint64(24, BigInt.asUintN(64, word));
}

/**
 * MLOAD reads 32 bytes of memory as a word: the library goes through a hex string (bytesToBigInt, ~1 µs: an MLOAD
 * loop ran ~18,000 gas/ms). Four 64-bit reads give the same number. Gas is charged separately, as for MSTORE.
 */
export function wordFromBytes32(b: Uint8Array): bigint {
  const v = new DataView(b.buffer, b.byteOffset, 32);
  return (((((v.getBigUint64(0) << 64n) | v.getBigUint64(8)) << 64n) | v.getBigUint64(16)) << 64n) | v.getBigUint64(24);
}

export function mload(runState: {
  stack: { pop(): bigint; push(v: bigint): void };
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array };
}): void {
  const offset = runState.stack.pop();
  runState.stack.push(wordFromBytes32(runState.memory.read(Number(offset), 32, true)));
}

/**
 * EXP: base^exponent mod 2^256. The library's square-and-multiply divides a 512-bit product by
 * 2^256 at every step (`% N`): 348 µs for a 32-byte exponent of ones on the reference machine.
 * A left-to-right 4-bit fixed window with BigInt.asUintN (a truncation, no division) gives the
 * same number in 73 µs: 64 squarings of 4 and at most 64 table multiplications. EXP was the
 * slowest opcode per gas (bench/worstblock.ts); gas is charged by the library's handler,
 * unchanged. A property test compares it with the library's handler.
 */
export function powMod256(base: bigint, exponent: bigint): bigint {
  if (exponent === 0n) return 1n;
  if (base < 2n) return base; // 0^e = 0 and 1^e = 1 for e > 0
  const table: bigint[] = [1n, base];
  for (let i = 2; i < 16; i++) table.push(BigInt.asUintN(256, table[i - 1] * base));
  const digits = exponent.toString(16);
  let t = table[parseInt(digits[0], 16)];
  for (let i = 1; i < digits.length; i++) {
    t = BigInt.asUintN(256, t * t);
    t = BigInt.asUintN(256, t * t);
    t = BigInt.asUintN(256, t * t);
    t = BigInt.asUintN(256, t * t);
    const d = digits.charCodeAt(i);
    if (d !== 48) t = BigInt.asUintN(256, t * table[d < 58 ? d - 48 : d - 87]);
  }
  return t;
}

export function exp(runState: { stack: { popN(n: number): bigint[]; push(v: bigint): void } }): void {
  const [base, exponent] = runState.stack.popN(2);
  runState.stack.push(powMod256(base, exponent));
}

/**
 * SHA3 (KECCAK256): the library copies the memory range, hashes it to bytes, formats them as
 * hex and parses that as a BigInt. The hash reads a view of memory here (nothing keeps it) and
 * comes back as hex straight from the hasher. Gas is the library's or syncDynamicGas's; the
 * property test of the inline loop compares results with the library.
 */
export function sha3(runState: {
  stack: { popN(n: number): bigint[]; push(v: bigint): void };
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array };
}): void {
  const [offset, length] = runState.stack.popN(2);
  runState.stack.push(
    keccak256Word(length === 0n ? EMPTY : runState.memory.read(Number(offset), Number(length), true)),
  );
}
const EMPTY = new Uint8Array(0);

/**
 * The library's getDataSlice (CALLDATACOPY, CODECOPY, EXTCODECOPY): `length` bytes of `data` from `offset`, zeros
 * past its end. The library pads with `new Uint8Array([...bytes, ...zeros])`, through iterators: ~5 ms for 32 KB
 * (a CODECOPY of 32 KB from a short contract ran ~600 gas/ms, found by bench/worstblockSearch.ts). Same bytes from a
 * zeroed array; the gas is the library handler's, unchanged. The inline loop's property test compares them.
 */
export function dataSlice(data: Uint8Array, offset: bigint, length: bigint): Uint8Array {
  const size = BigInt(data.length);
  const start = offset > size ? size : offset;
  const end = start + length > size ? size : start + length;
  const part = data.subarray(Number(start), Number(end));
  const n = Number(length);
  if (part.length === n) return part;
  const out = new Uint8Array(n);
  out.set(part);
  return out;
}

interface CopyState {
  stack: { popN(n: number): bigint[] };
  memory: { write(offset: number, size: number, value: Uint8Array): void };
  interpreter: { getCallData(): Uint8Array; getCode(): Uint8Array };
  stateManager: { getCode(address: EthAddress): Promise<Uint8Array> };
}
const MASK_160 = (1n << 160n) - 1n;

function calldatacopy(rs: CopyState): void {
  const [memOffset, dataOffset, length] = rs.stack.popN(3);
  if (length !== 0n)
    rs.memory.write(Number(memOffset), Number(length), dataSlice(rs.interpreter.getCallData(), dataOffset, length));
}

function codecopy(rs: CopyState): void {
  const [memOffset, codeOffset, length] = rs.stack.popN(3);
  if (length !== 0n)
    rs.memory.write(Number(memOffset), Number(length), dataSlice(rs.interpreter.getCode(), codeOffset, length));
}

/** EXTCODECOPY for a Common without EIP-7928 (its access list is the only other thing the library's handler does). */
async function extcodecopy(rs: CopyState): Promise<void> {
  const [address, memOffset, codeOffset, length] = rs.stack.popN(4);
  if (length === 0n) return;
  let code = await rs.stateManager.getCode(createAddressFromBigInt(address & MASK_160));
  if (code.length >= 2 && code[0] === 0xef && code[1] === 0x00) code = EOF_BYTES; // legacy code sees EOF as 0xEF00
  rs.memory.write(Number(memOffset), Number(length), dataSlice(code, codeOffset, length));
}
const EOF_BYTES = Uint8Array.of(0xef, 0x00);

/**
 * ADDRESS, ORIGIN, CALLER, COINBASE and PREVRANDAO push a 20- or 32-byte value as a word: the library converts the
 * bytes through hex every time (~1 µs, 2 gas: ~20,000 gas/ms in a loop of them, found by bench/worstblockSearch.ts).
 * The word is kept per byte array (an address's bytes, the block's randao: never written once made), so it is the
 * same number, converted once.
 */
const words = new WeakMap<Uint8Array, bigint>();
function wordOf(bytes: Uint8Array): bigint {
  let w = words.get(bytes);
  if (w === undefined)
    words.set(bytes, (w = bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`)));
  return w;
}
interface EnvState {
  stack: { push(v: bigint): void };
  env: {
    address: { bytes: Uint8Array };
    caller: { bytes: Uint8Array };
    origin: { bytes: Uint8Array };
    block: { header: { coinbase: { bytes: Uint8Array }; prevRandao: Uint8Array } };
  };
}
const envHandlers: [op: number, name: string, handler: (rs: EnvState) => void][] = [
  [0x30, 'ADDRESS', (rs) => rs.stack.push(wordOf(rs.env.address.bytes))],
  [0x32, 'ORIGIN', (rs) => rs.stack.push(wordOf(rs.env.origin.bytes))],
  [0x33, 'CALLER', (rs) => rs.stack.push(wordOf(rs.env.caller.bytes))],
  [0x41, 'COINBASE', (rs) => rs.stack.push(wordOf(rs.env.block.header.coinbase.bytes))],
  [0x44, 'PREVRANDAO', (rs) => rs.stack.push(wordOf(rs.env.block.header.prevRandao))],
];

interface FlowState {
  stack: { pop(): bigint; popN(n: number): bigint[]; push(v: bigint): void };
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
}
type Handler = (runState: FlowState, common: unknown) => void;

/**
 * The control-flow opcodes of a loop — PUSH1..PUSH32, JUMP, JUMPI — for a Common without the
 * stateless EIPs (6800, 7864; checked when installed). The library's JUMP builds a BigInt of
 * the code size on every jump (`getCodeSize()`), and its PUSH asks the Common for two EIPs on
 * every push: together a third of a looping transaction (bench/worstblock.ts jump-loop). The
 * fast path handles the valid case only; anything else (a bad destination, a push before
 * jump analysis) restores the stack and runs the library's handler, so errors and their
 * wording are the library's own. A property test compares them with the library on random code.
 */
function flowHandlers(original: (op: number) => Handler): Map<number, Handler> {
  const jump = original(0x56);
  const jumpi = original(0x57);
  const push = original(0x60);
  const handlers = new Map<number, Handler>();
  handlers.set(0x56, (rs, common) => {
    const dest = rs.stack.pop();
    if (dest < rs.code.length && rs.validJumps[Number(dest)] === 1) rs.programCounter = Number(dest);
    else {
      rs.stack.push(dest);
      jump(rs, common);
    }
  });
  handlers.set(0x57, (rs, common) => {
    const [dest, cond] = rs.stack.popN(2);
    if (cond === 0n) return;
    if (dest < rs.code.length && rs.validJumps[Number(dest)] === 1) rs.programCounter = Number(dest);
    else {
      rs.stack.push(cond);
      rs.stack.push(dest);
      jumpi(rs, common);
    }
  });
  const pushN: Handler = (rs, common) => {
    if (rs.shouldDoJumpAnalysis) return push(rs, common);
    rs.stack.push(rs.cachedPushes[rs.programCounter]);
    rs.programCounter += rs.opCode - 0x5f;
  };
  for (let op = 0x60; op <= 0x7f; op++) handlers.set(op, pushN);
  return handlers;
}

const flowByLibrary = new WeakMap<object, Map<number, Handler>>();

/** Installs the faster opcode handlers on one EVM (its opcode table is its own). */
export function fastOpcodes(evm: EVM): void {
  const table = (evm as unknown as { _opcodeMap?: OpcodeEntry[] })._opcodeMap;
  if (!table) return;
  const entry = table[0x52];
  if (entry?.opcodeInfo.name === 'MSTORE' && !entry.opcodeInfo.isAsync) entry.opHandler = mstore;
  if (table[0x51]?.opcodeInfo.name === 'MLOAD' && !table[0x51].opcodeInfo.isAsync)
    table[0x51].opHandler = mload as unknown as OpcodeEntry['opHandler'];
  if (table[0x20]?.opcodeInfo.name === 'KECCAK256' && !table[0x20].opcodeInfo.isAsync)
    table[0x20].opHandler = sha3 as unknown as OpcodeEntry['opHandler'];
  if (table[0x0a]?.opcodeInfo.name === 'EXP' && !table[0x0a].opcodeInfo.isAsync)
    table[0x0a].opHandler = exp as unknown as OpcodeEntry['opHandler'];
  if (table[0x37]?.opcodeInfo.name === 'CALLDATACOPY' && table[0x37].opHandler.constructor.name === 'Function')
    table[0x37].opHandler = calldatacopy as unknown as OpcodeEntry['opHandler'];
  if (table[0x39]?.opcodeInfo.name === 'CODECOPY' && !table[0x39].opcodeInfo.isAsync)
    table[0x39].opHandler = codecopy as unknown as OpcodeEntry['opHandler'];
  if (
    table[0x3c]?.opcodeInfo.name === 'EXTCODECOPY' &&
    table[0x3c].opcodeInfo.isAsync &&
    !evm.common.isActivatedEIP(7928)
  )
    table[0x3c].opHandler = extcodecopy as unknown as OpcodeEntry['opHandler'];
  // COINBASE is the header's unless the chain is Clique; PREVRANDAO the header's once EIP-4399 is in (Prague: it is).
  for (const [op, name, handler] of envHandlers) {
    if (op === 0x41 && evm.common.consensusAlgorithm() === 'clique') continue;
    if (op === 0x44 && !evm.common.isActivatedEIP(4399)) continue;
    const entry = table[op];
    if (entry?.opcodeInfo.name === name && entry.opHandler.constructor.name === 'Function')
      entry.opHandler = handler as unknown as OpcodeEntry['opHandler'];
  }
  // The library marks some synchronous handlers async (ADDRESS, ORIGIN, CALLER, CALLVALUE, CALLDATALOAD, the
  // CALLDATA/RETURNDATA sizes and copies, COINBASE, TIMESTAMP, NUMBER, PREVRANDAO, GASLIMIT): the interpreter then
  // awaits each in its async runStep, ~1 µs for a 2-gas opcode (~20,000 gas/ms in a loop). Awaiting a function that
  // returns nothing changes nothing, so this EVM's table says what they are and the inline loop runs them.
  for (const e of table)
    if (e?.opcodeInfo.isAsync && e.opHandler.constructor.name === 'Function')
      e.opcodeInfo = Object.assign(Object.create(Object.getPrototypeOf(e.opcodeInfo) as object), e.opcodeInfo, {
        isAsync: false,
      });
  if (evm.common.isActivatedEIP(6800) || evm.common.isActivatedEIP(7864)) return;
  const names: Record<number, string> = { 0x56: 'JUMP', 0x57: 'JUMPI' };
  for (let op = 0x60; op <= 0x7f; op++) names[op] = 'PUSH';
  // Only when the table holds the library's handlers under the expected names (a later version may differ).
  if (
    !Object.entries(names).every(
      ([op, name]) => table[Number(op)]?.opcodeInfo.name.startsWith(name) && !table[Number(op)].opcodeInfo.isAsync,
    )
  )
    return;
  // One set of handlers per set of library handlers (in practice one for the process): every
  // EVM of the pool then runs the same functions, which stay optimized across instances.
  const key = table[0x56].opHandler as object;
  let fast = flowByLibrary.get(key);
  if (!fast) flowByLibrary.set(key, (fast = flowHandlers((op) => table[op].opHandler as unknown as Handler)));
  for (const [op, h] of fast) table[op].opHandler = h as unknown as OpcodeEntry['opHandler'];
}

// ---- 4. the interpreter loop ----------------------------------------------------------------

interface OpEntryFull {
  opcodeInfo: {
    code: number;
    fee: number;
    feeBigInt: bigint;
    dynamicGas?: boolean;
    isAsync?: boolean;
    isInvalid?: boolean;
  };
  opHandler: (runState: unknown, common: unknown) => unknown;
}
interface InterpreterThis {
  common: Common;
  profilerOpts?: { enabled?: boolean };
  _evm: { DEBUG: boolean; events: { listenerCount(e: string): number }; _opcodeMap: OpEntryFull[] };
  _runState: {
    code: Uint8Array;
    programCounter: number;
    opCode: number;
    gasLeft: bigint;
    validJumps: Uint8Array;
    cachedPushes: Record<number, bigint>;
    stack: { length: number; peek(n: number): bigint[] };
    memoryWordCount: bigint;
    returnBytes: Uint8Array;
    shouldDoJumpAnalysis: boolean;
    eip7928PostTargetCallOog?: unknown;
    eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
    env: { accessWitness?: { revert(): void; commit(): void } };
  };
  _getValidJumpDestinations(code: Uint8Array): Analysis;
  runStep(op?: OpEntryFull): Promise<void>;
  useGas(amount: bigint, context?: unknown): void;
}

/**
 * The library's loop awaits an async runStep for every opcode: a promise and a microtask per
 * JUMPDEST, PUSH or ADD, most of the time of a tight loop (bench/worstblock.ts). This copy of
 * `Interpreter.run` (@ethereumjs/evm 10.1.3, legacy code only) runs an opcode with a static
 * fee and a synchronous handler inline — exactly the steps runStep takes for it (charge the
 * fee, advance the pc, run the handler) — and hands every other opcode to runStep. It falls
 * back to the original whenever a feature it does not copy is on (EOF, step listeners,
 * debug, the profiler, stateless witnesses). Every YIELD_STEPS steps or YIELD_GAS gas it
 * yields to the event loop (a deterministic schedule: no clock), so a long execution (a
 * block of looping VM transactions, an eth_call) does not hold HTTP for its whole length;
 * the outcome never depends on it.
 */
interface Prices {
  sha3Word: number;
  expByte: number;
  copyWord: number;
}
const pricesByCommon = new WeakMap<object, Prices>();
const pricesOf = (common: Common): Prices => {
  let p = pricesByCommon.get(common);
  if (!p)
    pricesByCommon.set(
      common,
      (p = {
        sha3Word: Number(common.param('keccak256WordGas')),
        expByte: Number(common.param('expByteGas')),
        copyWord: Number(common.param('copyGas')),
      }),
    );
  return p;
};

/**
 * The whole price of a SHA3 or EXP about to run, when it can be known without the library's
 * gas handler (an async function: a promise and a microtask per opcode, most of a SHA3's
 * cost): SHA3 over memory already paid for (no expansion, so the handler's memory charge is
 * 0 and it changes nothing) is fee + word price × words; EXP is fee + byte price × the
 * exponent's bytes. Anything else — memory to grow, a short stack — is undefined: the
 * library's runStep prices it (and raises its errors). The property test of the inline loop
 * runs both opcodes against the library's loop.
 */
function syncDynamicGas(op: number, rs: InterpreterThis['_runState'], fee: number, p: Prices): number | undefined {
  if (op === 0x51 || op === 0x52 || op === 0x53) {
    // MLOAD, MSTORE, MSTORE8 within paid memory: the handler's memory charge is 0, the price its fee.
    if (rs.stack.length < (op === 0x51 ? 1 : 2)) return undefined;
    const [offset] = rs.stack.peek(1);
    return (offset + (op === 0x53 ? 1n : 32n) + 31n) / 32n <= rs.memoryWordCount ? fee : undefined;
  }
  if (op === 0x37 || op === 0x39) {
    // CALLDATACOPY, CODECOPY into paid memory: fee + copy price × words.
    if (rs.stack.length < 3) return undefined;
    const [memOffset, , length] = rs.stack.peek(3);
    if (length === 0n) return fee;
    if ((memOffset + length + 31n) / 32n > rs.memoryWordCount) return undefined;
    return fee + p.copyWord * Number((length + 31n) / 32n);
  }
  if (op === 0x5e) {
    // MCOPY within paid memory: fee + 3 × words (the library's constant).
    if (rs.stack.length < 3) return undefined;
    const [dst, src, length] = rs.stack.peek(3);
    if (length === 0n) return fee;
    if (((dst > src ? dst : src) + length + 31n) / 32n > rs.memoryWordCount) return undefined;
    return fee + 3 * Number((length + 31n) / 32n);
  }
  if (op === 0x3e) {
    // RETURNDATACOPY within the return data (else the library traps) into paid memory.
    if (rs.stack.length < 3) return undefined;
    const [memOffset, offset, length] = rs.stack.peek(3);
    if (offset + length > BigInt(rs.returnBytes.length)) return undefined;
    if (length === 0n) return fee;
    if ((memOffset + length + 31n) / 32n > rs.memoryWordCount) return undefined;
    return fee + p.copyWord * Number((length + 31n) / 32n);
  }
  if ((op !== 0x20 && op !== 0x0a) || rs.stack.length < 2) return undefined;
  const [a, b] = rs.stack.peek(2);
  if (op === 0x0a) return b === 0n ? fee : fee + p.expByte * Math.ceil(b.toString(16).length / 2);
  if (b === 0n) return fee;
  if ((a + b + 31n) / 32n > rs.memoryWordCount) return undefined;
  return fee + p.sha3Word * Number((b + 31n) / 32n);
}

/** What syncDynamicGas may price: SHA3, EXP, MLOAD, MSTORE, MSTORE8, CALLDATACOPY, CODECOPY, RETURNDATACOPY, MCOPY. */
const SYNC_PRICED = new Uint8Array(256);
for (const op of [0x20, 0x0a, 0x51, 0x52, 0x53, 0x37, 0x39, 0x3e, 0x5e]) SYNC_PRICED[op] = 1;

function installFastLoop(proto: InterpreterProto): void {
  const original = proto.run;
  const plain = (it: InterpreterThis) =>
    !it.common.isActivatedEIP(3540) &&
    it.profilerOpts?.enabled !== true &&
    !it._evm.DEBUG &&
    it._evm.events.listenerCount('step') === 0 &&
    !it.common.isActivatedEIP(6800) &&
    !it.common.isActivatedEIP(7864);
  proto.run = async function (this: InterpreterThis, code, opts = {}) {
    // Gas is counted in a local number (exact: Cairn's gas never nears 2^53) and written back
    // to the run state whenever other code may read it: a BigInt subtraction per opcode was
    // the largest cost left in a tight loop.
    if (!plain(this) || this._runState.gasLeft > MAX_SAFE_GAS) return original.call(this, code, opts);
    const rs = this._runState;
    rs.code = code;
    rs.programCounter = opts.pc ?? rs.programCounter;
    const pc0 = rs.programCounter;
    if (pc0 !== 0 && (pc0 < 0 || pc0 >= rs.code.length))
      throw new Error('Internal error: program counter not in range');
    const table = this._evm._opcodeMap;
    const prices = pricesOf(this.common);
    let err: unknown;
    let cached: OpEntryFull[] | undefined;
    let steps = 0;
    let gas = Number(rs.gasLeft);
    let mark = gas;
    // True while rs.gasLeft is the count (the library's code ran last and may have changed it).
    let stateHoldsGas = true;
    while (rs.programCounter < rs.code.length) {
      const pc = rs.programCounter;
      let entry: OpEntryFull | undefined;
      let opCode: number;
      if (cached === undefined) {
        opCode = rs.code[pc];
        if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(rs.code);
          rs.validJumps = jumps;
          rs.cachedPushes = pushes;
          rs.shouldDoJumpAnalysis = false;
          cached = opcodesCached as OpEntryFull[];
        }
      } else {
        entry = cached[pc];
        opCode = entry.opcodeInfo.code;
      }
      rs.opCode = opCode;
      try {
        const e = entry ?? table[opCode];
        const info = e.opcodeInfo;
        if (info.dynamicGas || info.isAsync || info.isInvalid || rs.eip7928PostTargetCallOog !== undefined) {
          // SHA3, MLOAD / MSTORE / MSTORE8 and the copies within paid memory, and EXP: their whole price is known
          // without the library's async gas handler.
          const dynamic =
            SYNC_PRICED[opCode] === 1 && info.dynamicGas && !info.isAsync && rs.eip7928PostTargetCallOog === undefined
              ? syncDynamicGas(opCode, rs, info.fee, prices)
              : undefined;
          if (dynamic !== undefined && gas >= dynamic) {
            gas -= dynamic;
            stateHoldsGas = false;
            rs.programCounter++;
            e.opHandler(rs, this.common);
            rs.env.accessWitness?.commit();
          } else {
            if (!stateHoldsGas) rs.gasLeft = BigInt(gas);
            stateHoldsGas = true;
            await this.runStep(entry);
            gas = Number(rs.gasLeft);
          }
        } else {
          if (gas < info.fee) {
            // The library's useGas traps (out of gas) and leaves the count at zero.
            rs.gasLeft = BigInt(gas);
            stateHoldsGas = true;
            this.useGas(info.feeBigInt, info);
          }
          gas -= info.fee;
          stateHoldsGas = false;
          rs.programCounter++;
          if (opCode === 0x5a) {
            rs.gasLeft = BigInt(gas); // GAS reads it
            stateHoldsGas = true;
          }
          e.opHandler(rs, this.common);
          rs.env.accessWitness?.commit();
        }
      } catch (e) {
        if (!stateHoldsGas) rs.gasLeft = BigInt(gas);
        stateHoldsGas = true;
        rs.env.accessWitness?.revert();
        if (!(typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === EVMErrorTypeString))
          throw e;
        if ((e as { error?: unknown }).error !== EVMError.errorMessages.STOP) err = e;
        break;
      }
      if (++steps >= YIELD_STEPS || mark - gas >= YIELD_GAS_N) {
        await new Promise<void>((r) => setImmediate(r));
        steps = 0;
        mark = gas;
      }
    }
    if (!stateHoldsGas) rs.gasLeft = BigInt(gas);
    if (err === undefined && rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && rs.gasLeft > 0n) {
      rs.gasLeft = 0n;
      err = new EVMError(EVMError.errorMessages.OUT_OF_GAS);
    }
    return { runState: rs, exceptionError: err };
  };
  fastLoopInstalled = true;
}
