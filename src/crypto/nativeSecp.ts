import { createRequire } from 'node:module';

/** The `secp256k1` package's native libsecp256k1 binding (never its pure-JS fallback), or null. */
export interface NativeSecp256k1 {
  ecdsaVerify(sig: Uint8Array, msgHash: Uint8Array, pub: Uint8Array): boolean;
  ecdsaRecover(sig: Uint8Array, recid: number, msgHash: Uint8Array, compressed: boolean): Uint8Array;
}

export const nativeSecp256k1: NativeSecp256k1 | null = (() => {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return null;
  }
})();
