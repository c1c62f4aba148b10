import { createKeccak } from 'hash-wasm';

/**
 * keccak256 (the original Keccak padding, as Ethereum uses it) from hash-wasm's WebAssembly
 * Keccak: measured 2.5–5× the unrolled JavaScript permutation it replaced (32 bytes 1.8 µs
 * against 4.6; a 532-byte trie node 2.7 against 11.1; 32 KB 171 µs against 692), which was
 * itself 2.5× @noble/hashes. The state trie hashes ~3,000 nodes per block of 500 transfers,
 * and the EVM's SHA3 runs through it (a block of SHA3 of 32 KB was the slowest block per gas,
 * bench/worstblock.ts). Tests compare it with @noble/hashes on every length that matters.
 *
 * One hasher for the process (per worker thread), used synchronously: init, update and digest
 * run to completion with no await between them, so calls can never interleave.
 */
const hasher = await createKeccak(256);

/** keccak256(data): 32 fresh bytes. */
export function keccak256(data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

/** keccak256(data) as a 256-bit big-endian number (the EVM's SHA3 result), without an intermediate byte array. */
export function keccak256Word(data: Uint8Array): bigint {
  hasher.init();
  hasher.update(data);
  return BigInt(`0x${hasher.digest('hex')}`);
}
