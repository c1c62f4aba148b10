/**
 * EVM code for floods and the worst-block benchmark: a small assembler (loops that run one
 * operation until their gas is nearly spent) and valid inputs for every precompile. Used by
 * bench/worstblock.ts and test/adversarial/precompiles.test.ts.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bn254 } from '@noble/curves/bn254.js';
import { keccak256 } from '../../../src/crypto/hash';
import { toHex, type Hex } from '../../../src/primitives/hex';
import { PRECOMPILE_PRICE_FACTOR } from '../../../src/vm/precompiles';

export const OP = {
  STOP: 0x00,
  ADD: 0x01,
  SUB: 0x03,
  EXP: 0x0a,
  LT: 0x10,
  GT: 0x11,
  ISZERO: 0x15,
  SHA3: 0x20,
  ADDRESS: 0x30,
  BALANCE: 0x31,
  CALLVALUE: 0x34,
  CALLDATALOAD: 0x35,
  CALLDATASIZE: 0x36,
  CALLDATACOPY: 0x37,
  CODECOPY: 0x39,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  RETURNDATASIZE: 0x3d,
  RETURNDATACOPY: 0x3e,
  EXTCODEHASH: 0x3f,
  BLOCKHASH: 0x40,
  NUMBER: 0x43,
  SELFBALANCE: 0x47,
  POP: 0x50,
  MLOAD: 0x51,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  GAS: 0x5a,
  JUMPDEST: 0x5b,
  TLOAD: 0x5c,
  TSTORE: 0x5d,
  MCOPY: 0x5e,
  DUP1: 0x80,
  DUP2: 0x81,
  DUP3: 0x82,
  SWAP1: 0x90,
  LOG0: 0xa0,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
} as const;

/** The call opcodes by name, and whether each takes a value argument. */
export const CALLS = {
  CALL: { op: OP.CALL, value: true },
  CALLCODE: { op: OP.CALLCODE, value: true },
  DELEGATECALL: { op: OP.DELEGATECALL, value: false },
  STATICCALL: { op: OP.STATICCALL, value: false },
} as const;
export type CallName = keyof typeof CALLS;

/**
 * The issue-49 attack's loop for any call opcode: JUMPDEST, then `call(GAS, ADDRESS, [0,] 0, 0, 0, 0)`,
 * POP, JUMP to 0 — a warm call to itself until out of gas. For STATICCALL it is
 * 0x5b6000600060006000305afa50600056 verbatim: as a contract's code every call recurses into the same
 * loop (each frame runs out of gas and is undone); as init code it calls its own, still codeless, address.
 */
export function selfCallLoop(name: CallName): Hex {
  const { op, value } = CALLS[name];
  const args = [...push(0), ...push(0), ...push(0), ...push(0), ...(value ? push(0) : [])];
  return toHex(Uint8Array.from([OP.JUMPDEST, ...args, OP.ADDRESS, OP.GAS, op, OP.POP, ...push(0), OP.JUMP]));
}

/**
 * One call in a loop body: `name(GAS, target, value, in 0..inLen, out 0..outLen)`, the result popped.
 * `target` is code that pushes the address (e.g. push(a, 20), or [OP.ADDRESS]).
 */
export function callBody(
  name: CallName,
  target: number[],
  opts: { value?: number[]; inLen?: number; outLen?: number } = {},
): number[] {
  const { op, value } = CALLS[name];
  return [
    ...push(opts.outLen ?? 0, 2),
    ...push(0),
    ...push(opts.inLen ?? 0, 2),
    ...push(0),
    ...(value ? (opts.value ?? push(0)) : []),
    ...target,
    OP.GAS,
    op,
    OP.POP,
  ];
}

/** Code that returns `runtime` as the created contract's code (init code for CREATE and deploys). */
export function initCodeOf(runtime: Uint8Array): Uint8Array {
  const HEAD = 14; // the 14 bytes below: CODECOPY(0, HEAD, len), RETURN(0, len)
  const len = push(runtime.length, 2);
  const head = [...len, ...push(HEAD), ...push(0), OP.CODECOPY, ...len, ...push(0), OP.RETURN];
  return Uint8Array.from([...head, ...runtime]);
}

/** PUSHn of `v` in its fewest bytes (at least `min`). */
export function push(v: bigint | number, min = 1): number[] {
  let hex = BigInt(v).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = [...Buffer.from(hex, 'hex')];
  while (bytes.length < min) bytes.unshift(0);
  return [0x5f + bytes.length, ...bytes];
}

/**
 * Code that copies `data` to memory 0, runs `setup` once, then `body` while more than
 * `reserve` gas is left, then STOPs (a deploy's init code returning no code: the contract and
 * whatever it stored persist).
 */
export function looping(body: number[], reserve: number, opts: { setup?: number[]; data?: Uint8Array } = {}): Hex {
  const data = opts.data ?? new Uint8Array();
  const copy = (off: number) =>
    data.length ? [...push(data.length, 2), ...push(off, 2), ...push(0), OP.CODECOPY] : [];
  const head = copy(0).length + (opts.setup?.length ?? 0);
  const loop = [OP.JUMPDEST, ...body, ...push(reserve, 3), OP.GAS, OP.GT, ...push(head, 2), OP.JUMPI, OP.STOP];
  const code = [...copy(head + loop.length), ...(opts.setup ?? []), ...loop];
  return toHex(Uint8Array.from([...code, ...data]));
}

/**
 * STATICCALL(gas, precompile, in 0..inLen, out after the input) in a loop, while more than
 * one call's gas is left. `ethGas` is the call's Ethereum price; Cairn charges it ×
 * PRECOMPILE_PRICE_FACTOR (src/vm/precompiles.ts).
 */
export function precompileLoop(address: number, input: Uint8Array, ethGas: number, outLen = 64): Hex {
  const body = [
    ...push(outLen),
    ...push(input.length, 2),
    ...push(input.length, 2),
    ...push(0),
    ...push(address, 2),
    OP.GAS,
    OP.STATICCALL,
    OP.POP,
  ];
  return looping(body, ethGas * Number(PRECOMPILE_PRICE_FACTOR[address] ?? 1n) + 20_000, { data: input });
}

export const word = (v: bigint) => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
export const cat = (...xs: Uint8Array[]) => Uint8Array.from(Buffer.concat(xs));

export function ecrecoverInput(): Uint8Array {
  const priv = keccak256(Buffer.from('worstblock'));
  const hash = keccak256(Buffer.from('message'));
  const sig = secp256k1.sign(hash, priv, { prehash: false, format: 'recovered' });
  const v = 27n + BigInt(sig[0]);
  return cat(hash, word(v), sig.subarray(1, 33), sig.subarray(33, 65));
}

export function modexpInput(b: bigint, e: bigint, m: bigint, lens: [number, number, number]): Uint8Array {
  const enc = (v: bigint, n: number) => Buffer.from(v.toString(16).padStart(2 * n, '0'), 'hex');
  return cat(
    word(BigInt(lens[0])),
    word(BigInt(lens[1])),
    word(BigInt(lens[2])),
    enc(b, lens[0]),
    enc(e, lens[1]),
    enc(m, lens[2]),
  );
}

export function bn254G1(p: { x: bigint; y: bigint }): Uint8Array {
  return cat(word(p.x), word(p.y));
}

export function bn254PairingInput(pairs: number): Uint8Array {
  // e(P, Q) · e(−P, Q) = 1: a valid check, every pairing computed.
  const P = bn254.G1.Point.BASE.multiply(7n).toAffine();
  const N = bn254.G1.Point.BASE.multiply(7n).negate().toAffine();
  const Q = bn254.G2.Point.BASE.multiply(11n).toAffine();
  const g2 = cat(word(Q.x.c1), word(Q.x.c0), word(Q.y.c1), word(Q.y.c0));
  const parts: Uint8Array[] = [];
  for (let i = 0; i < pairs; i++) parts.push(bn254G1(i % 2 ? N : P), g2);
  return cat(...parts);
}

export function blake2fInput(rounds: number): Uint8Array {
  const r = Buffer.alloc(4);
  r.writeUInt32BE(rounds);
  return cat(r, new Uint8Array(64).fill(7), new Uint8Array(128).fill(9), new Uint8Array(16), Uint8Array.of(1));
}

// EIP-2537: 64-byte field elements
export const fp = (v: bigint) => Buffer.from(v.toString(16).padStart(128, '0'), 'hex');
export function blsG1(p: { x: bigint; y: bigint }): Uint8Array {
  return cat(fp(p.x), fp(p.y));
}
export function blsG2(p: { x: { c0: bigint; c1: bigint }; y: { c0: bigint; c1: bigint } }): Uint8Array {
  return cat(fp(p.x.c0), fp(p.x.c1), fp(p.y.c0), fp(p.y.c1));
}
export const scalar = (i: number) =>
  word(0xfedcba9876543210fedcba9876543210fedcba9876543210fedcba98765432n + BigInt(i));
