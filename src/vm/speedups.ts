import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Common } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
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
}

export let jumpAnalysisCached = false;
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


/** Installs the faster opcode handlers on one EVM (its opcode table is its own). */
export function fastOpcodes(evm: EVM): void {
  const table = (evm as unknown as { _opcodeMap?: OpcodeEntry[] })._opcodeMap;
  const entry = table?.[0x52];
  if (entry?.opcodeInfo.name === 'MSTORE' && !entry.opcodeInfo.isAsync) entry.opHandler = mstore;
}
