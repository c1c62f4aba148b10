import { type EVM, EVMError } from '@ethereumjs/evm';

/**
 * Cairn's precompile prices, and a precompile can never throw out of the EVM.
 *
 * Ethereum's gas table prices precompiles by their time in native clients. Here they run in
 * JavaScript (@noble/curves through @ethereumjs/evm), tens to hundreds of times slower per
 * gas than the interpreter: measured by bench/worstblock.ts on the reference machine (2-core
 * EPYC, Node 20), one VM_MAX_GAS transaction of G2 additions took 48 s, of G1 additions 36 s,
 * of ecrecovers 5.5 s — a stranger's 0.05-coin transaction stalled every validator for
 * many slots. Each precompile's price is therefore its Ethereum price × a factor, so that
 * every precompile runs at least PRICE_TARGET_GAS_PER_MS on that machine (the interpreter's
 * tightest loop, JUMPDEST PUSH1 JUMP, runs ~35,000–90,000 gas/ms): a block of VM_MAX_GAS then stays
 * within the execution budget (≤ 40 % of a 500 ms slot) whatever it calls.
 *
 * factor = ⌈PRICE_TARGET_GAS_PER_MS ÷ the slowest measured shape's gas/ms⌉ (the figure beside
 * each, at Ethereum's price: the slowest of two full bench/worstblock.ts runs, each its own
 * Node process — a process's JIT settles fast or slow, up to 2× apart on the same code, and a
 * validator may run in either). The factor multiplies whatever the library charges, formula and all
 * (modexp's minimum, the MSM discounts, pairing per pair), so relative prices within a
 * precompile stay Ethereum's. A protocol constant: changing it changes execution (a fork).
 */
export const PRICE_TARGET_GAS_PER_MS = 40_000;

/** Factor by precompile address (its last byte); absent = 1. */
export const PRECOMPILE_PRICE_FACTOR: Readonly<Record<number, bigint>> = {
  0x01: 69n, // ecrecover: 582 gas/ms
  0x02: 7n, // sha256, 4 KB: 6,372 gas/ms
  0x03: 2n, // ripemd160, 4 KB: 35,868 gas/ms
  0x04: 9n, // identity, 4 KB: 4,771 gas/ms
  0x05: 20n, // modexp, 1-byte operands (the 200-gas minimum): 2,048 gas/ms
  0x06: 57n, // bn254 add: 708 gas/ms
  0x07: 50n, // bn254 mul: 808 gas/ms
  0x08: 17n, // bn254 pairing, 2 pairs: 2,482 gas/ms
  0x09: 32n, // blake2f: 1,290 gas/ms
  0x0b: 565n, // BLS12-381 G1 add: 71 gas/ms
  0x0c: 44n, // BLS12-381 G1 MSM, 1 point: 1,322 gas/ms
  0x0d: 655n, // BLS12-381 G2 add: 61 gas/ms
  0x0e: 44n, // BLS12-381 G2 MSM, 1 point: 961 gas/ms
  0x0f: 19n, // BLS12-381 pairing, 2 pairs: 2,176 gas/ms
  0x10: 39n, // BLS12-381 map to G1: 1,043 gas/ms
  0x11: 32n, // BLS12-381 map to G2: 1,256 gas/ms
};

/**
 * What a precompile that threw answers: an exceptional halt that consumes the gas it was
 * given, like any failed precompile. The library throws plain errors for some inputs and
 * setups (0x0a, the KZG point evaluation, throws "kzg not initialized": Cairn has no blobs,
 * so no KZG setup); before this, one call to it threw out of block execution and stopped the
 * node. A precompile is a pure function of its input, so the throw is deterministic.
 */
export const PRECOMPILE_FAILED = 'precompile failed';

interface ExecResult {
  executionGasUsed: bigint;
  returnValue: Uint8Array;
  exceptionError?: EVMError;
}
type PrecompileFn = (opts: { gasLimit: bigint } & Record<string, unknown>) => ExecResult | Promise<ExecResult>;

function priced(fn: PrecompileFn, factor: bigint): PrecompileFn {
  return (opts) => {
    const limit = opts.gasLimit;
    const failed = (): ExecResult => ({
      returnValue: new Uint8Array(0),
      executionGasUsed: limit,
      exceptionError: new EVMError(PRECOMPILE_FAILED as never),
    });
    // The library's precompile sees the gas it may use at its own prices; a halt consumes all of ours.
    const settle = (r: ExecResult): ExecResult =>
      r.exceptionError ? { ...r, executionGasUsed: limit } : { ...r, executionGasUsed: r.executionGasUsed * factor };
    let out: ExecResult | Promise<ExecResult>;
    try {
      out = fn({ ...opts, gasLimit: limit / factor });
    } catch {
      return failed();
    }
    return out instanceof Promise ? out.then(settle, failed) : settle(out);
  };
}

/** Installs Cairn's prices and the throw guard on every precompile of one EVM. */
export function pricePrecompiles(evm: EVM): void {
  const table = evm.precompiles as unknown as Map<string, PrecompileFn>;
  for (const [address, fn] of table)
    table.set(address, priced(fn, PRECOMPILE_PRICE_FACTOR[parseInt(address.slice(-2), 16)] ?? 1n));
}
