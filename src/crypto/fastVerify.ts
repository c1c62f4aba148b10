import { createVerifyCore } from './verifyCore.mjs';
import type { HybridPublicKeys, HybridSignatures } from './hybrid';

export interface FastVerifier {
  /** True only if both signatures verify; never throws (malformed input → false). */
  verify(msg: Uint8Array, pubs: HybridPublicKeys, sigs: HybridSignatures): boolean;
}

/**
 * Single-thread fast verifier: OpenSSL (node:crypto) for secp256k1 with an explicit
 * low-s check and an LRU of imported keys, liboqs (WASM) for ML-DSA-44. Roughly 7x
 * noble's throughput; for admission use VerifyPool, which runs the same code on every core.
 * The logic lives in verifyCore.mjs so worker threads run exactly the same checks.
 */
export async function createFastVerifier(opts: { keyCacheSize?: number } = {}): Promise<FastVerifier> {
  const core = await createVerifyCore(opts);
  return { verify: (msg, pubs, sigs) => core.verify(msg, pubs, sigs) };
}
