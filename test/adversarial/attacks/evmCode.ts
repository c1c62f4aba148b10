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
  EXP: 0x0a,
  GT: 0x11,
  SHA3: 0x20,
  BALANCE: 0x31,
  CALLDATALOAD: 0x35,
  CODECOPY: 0x39,
  EXTCODEHASH: 0x3f,
  POP: 0x50,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  GAS: 0x5a,
  JUMPDEST: 0x5b,
  DUP1: 0x80,
  DUP2: 0x81,
  STATICCALL: 0xfa,
} as const;

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
