/** Types for verifyCore.mjs (plain JS so worker threads can load it without a TS loader). */
export interface VerifyCore {
  verify(
    msg: Uint8Array,
    pubs: { secp256k1: Uint8Array; mldsa44: Uint8Array },
    sigs: { secp256k1: Uint8Array; mldsa44: Uint8Array },
  ): boolean;
  keyCacheEntries(): number;
}

export function createVerifyCore(opts?: { keyCacheSize?: number }): Promise<VerifyCore>;
