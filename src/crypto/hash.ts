import { keccak_256 } from '@noble/hashes/sha3.js';
import { toHex, type Hex } from '../primitives/hex';

/** keccak-256 (the Ethereum hash, not NIST SHA3-256): addresses, tx ids, key hashes. */
export const keccak256 = (b: Uint8Array): Uint8Array => keccak_256(b);

export const keccakHex = (b: Uint8Array): Hex => toHex(keccak_256(b));
