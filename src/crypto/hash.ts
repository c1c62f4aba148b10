import { createHash } from 'node:crypto';
import { toHex, type Hex } from '../primitives/hex';
import { keccak256 as fastKeccak } from './keccak';

/**
 * keccak-256 (the Ethereum hash, not NIST SHA3-256): addresses, tx ids, key hashes.
 * hash-wasm's WebAssembly Keccak (src/crypto/keccak.ts), checked against @noble/hashes on
 * every input length 0..700 (test/unit/state/state.test.ts).
 */
export const keccak256 = (b: Uint8Array): Uint8Array => fastKeccak(b);

export const keccakHex = (b: Uint8Array): Hex => toHex(fastKeccak(b));

/**
 * SHA-256 from Node's OpenSSL: the EVM's 0x02 precompile (through its Common's customCrypto).
 * The library's default, @noble/hashes in JavaScript, ran a block of 4 KB hashes at
 * ~3,200 gas/ms at Ethereum's price in a slow-JIT process (bench/worstblock.ts).
 */
export const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());
