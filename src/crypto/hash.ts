import { toHex, type Hex } from '../primitives/hex';
import { keccak256 as fastKeccak } from './keccak';

/**
 * keccak-256 (the Ethereum hash, not NIST SHA3-256): addresses, tx ids, key hashes.
 * hash-wasm's WebAssembly Keccak (src/crypto/keccak.ts), checked against @noble/hashes on
 * every input length 0..700 (test/unit/state.test.ts).
 */
export const keccak256 = (b: Uint8Array): Uint8Array => fastKeccak(b);

export const keccakHex = (b: Uint8Array): Hex => toHex(fastKeccak(b));
