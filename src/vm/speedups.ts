import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Common } from '@ethereumjs/common';
import { type EVM, EVMError } from '@ethereumjs/evm';

const EVMErrorTypeString = 'EVMError'; // what the library marks its errors with (errors.js, not exported)
import { word32 } from '../primitives/hex';

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
 * 3. MSTORE (below).
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
/** A message frame yields to the event loop after this many steps or this much gas (whichever first): a few ms of work. */
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
  memory: { write(offset: number, size: number, value: Uint8Array): void };
}

/**
 * MSTORE writes a stack word as 32 bytes. The library pads with
 * `new Uint8Array([...new Uint8Array(pad), ...bytes])` — spread through iterators, the single
 * hottest line of an ERC-20 transfer (~6% of execution). Same bytes from the word's hex
 * (a stack word is always < 2^256, so 64 hex digits). Gas is charged separately (the
 * opcode's base fee and memory-expansion handler are untouched), so only the bytes written
 * could differ: a property test compares them with the library's handler.
 */
export function mstore(runState: RunState): void {
  const [offset, word] = runState.stack.popN(2);
  runState.memory.write(Number(offset), 32, word32(word));
}


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
  if (evm.common.isActivatedEIP(6800) || evm.common.isActivatedEIP(7864)) return;
  const names: Record<number, string> = { 0x56: 'JUMP', 0x57: 'JUMPI' };
  for (let op = 0x60; op <= 0x7f; op++) names[op] = 'PUSH';
  // Only when the table holds the library's handlers under the expected names (a later version may differ).
  if (!Object.entries(names).every(([op, name]) => table[Number(op)]?.opcodeInfo.name.startsWith(name) && !table[Number(op)].opcodeInfo.isAsync)) return;
  // One set of handlers per set of library handlers (in practice one for the process): every
  // EVM of the pool then runs the same functions, which stay optimized across instances.
  const key = table[0x56].opHandler as object;
  let fast = flowByLibrary.get(key);
  if (!fast) flowByLibrary.set(key, (fast = flowHandlers((op) => table[op].opHandler as unknown as Handler)));
  for (const [op, h] of fast) table[op].opHandler = h as unknown as OpcodeEntry['opHandler'];
}

// ---- 4. the interpreter loop ----------------------------------------------------------------

interface OpEntryFull {
  opcodeInfo: { code: number; fee: number; feeBigInt: bigint; dynamicGas?: boolean; isAsync?: boolean; isInvalid?: boolean };
  opHandler: (runState: unknown, common: unknown) => unknown;
}
interface InterpreterThis {
  common: Common;
  profilerOpts?: { enabled?: boolean };
  _evm: { DEBUG: boolean; events: { listenerCount(e: string): number }; _opcodeMap: OpEntryFull[] };
  _runState: {
    code: Uint8Array; programCounter: number; opCode: number; gasLeft: bigint; validJumps: Uint8Array; cachedPushes: Record<number, bigint>;
    shouldDoJumpAnalysis: boolean; eip7928PostTargetCallOog?: unknown; eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
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
function installFastLoop(proto: InterpreterProto): void {
  const original = proto.run;
  const plain = (it: InterpreterThis) =>
    !it.common.isActivatedEIP(3540) && it.profilerOpts?.enabled !== true && !it._evm.DEBUG && it._evm.events.listenerCount('step') === 0 && !it.common.isActivatedEIP(6800) && !it.common.isActivatedEIP(7864);
  proto.run = async function (this: InterpreterThis, code, opts = {}) {
    // Gas is counted in a local number (exact: Cairn's gas never nears 2^53) and written back
    // to the run state whenever other code may read it: a BigInt subtraction per opcode was
    // the largest cost left in a tight loop.
    if (!plain(this) || this._runState.gasLeft > MAX_SAFE_GAS) return original.call(this, code, opts);
    const rs = this._runState;
    rs.code = code;
    rs.programCounter = opts.pc ?? rs.programCounter;
    const pc0 = rs.programCounter;
    if (pc0 !== 0 && (pc0 < 0 || pc0 >= rs.code.length)) throw new Error('Internal error: program counter not in range');
    const table = this._evm._opcodeMap;
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
          if (!stateHoldsGas) rs.gasLeft = BigInt(gas);
          stateHoldsGas = true;
          await this.runStep(entry);
          gas = Number(rs.gasLeft);
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
        if (!(typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === EVMErrorTypeString)) throw e;
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
