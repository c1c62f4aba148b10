/** Types for verifyCore.mjs (plain JS so worker threads can load it without a TS loader). */
export interface VerifyCore {
  verify(
    msg: Uint8Array,
    pubs: { secp256k1: Uint8Array; mldsa44: Uint8Array },
    sigs: { secp256k1: Uint8Array; mldsa44: Uint8Array },
  ): boolean;
  keyCacheEntries(): number;
  /** Which secp256k1 verifier is in use: native libsecp256k1, or OpenSSL when the binding is missing. */
  secpBackend: 'libsecp256k1' | 'openssl';
}

export const secpBackend: 'libsecp256k1' | 'openssl';

export function createVerifyCore(opts?: { keyCacheSize?: number }): Promise<VerifyCore>;
