import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import type { HybridKeys } from './keys';
import { signMldsa44 } from './mldsaSign';

export interface HybridPublicKeys {
  secp256k1: Uint8Array; // 33 or 65 bytes
  mldsa44: Uint8Array; // 1312 bytes
}

export interface HybridSignatures {
  secp256k1: Uint8Array; // 64 bytes r‖s, low-s
  mldsa44: Uint8Array; // 2420 bytes
}

/** What a verifier needs for one envelope: the signing bytes, both keys, both signatures. */
export interface VerifyJob {
  msg: Uint8Array;
  pubs: HybridPublicKeys;
  sigs: HybridSignatures;
}

export const SECP_SIG_BYTES = 64;
export const MLDSA44_PUB_BYTES = 1312;
export const MLDSA44_SIG_BYTES = 2420;

/**
 * Signs the message with both schemes. secp256k1: ECDSA over SHA-256(msg) (noble's
 * prehash), RFC 6979 deterministic k, low-s, compact r‖s. ML-DSA-44: FIPS 204 pure
 * mode, empty context, deterministic variant (no extra randomness) so that test
 * vectors are reproducible (signMldsa44: liboqs once enabled, noble otherwise; the same bytes).
 */
export function signHybrid(keys: HybridKeys, msg: Uint8Array): HybridSignatures {
  return {
    secp256k1: secp256k1.sign(msg, keys.secp256k1.privateKey, { prehash: true, lowS: true, extraEntropy: false }),
    mldsa44: signMldsa44(msg, keys.mldsa44.secretKey),
  };
}

const isSecpPub = (p: Uint8Array): boolean =>
  (p.length === 65 && p[0] === 0x04) || (p.length === 33 && (p[0] === 0x02 || p[0] === 0x03));

/**
 * Reference verification with noble (audited, slow). The fast path (fastVerify.ts,
 * verifyPool.ts) must agree with it on every input; property tests check that.
 * Never throws: malformed lengths or content give false.
 */
export function verifyHybridReference(msg: Uint8Array, pubs: HybridPublicKeys, sigs: HybridSignatures): boolean {
  try {
    if (!(msg instanceof Uint8Array)) return false;
    if (!isSecpPub(pubs.secp256k1) || sigs.secp256k1.length !== SECP_SIG_BYTES) return false;
    if (pubs.mldsa44.length !== MLDSA44_PUB_BYTES || sigs.mldsa44.length !== MLDSA44_SIG_BYTES) return false;
    if (!secp256k1.verify(sigs.secp256k1, msg, pubs.secp256k1, { prehash: true, lowS: true, format: 'compact' }))
      return false;
    return ml_dsa44.verify(sigs.mldsa44, msg, pubs.mldsa44);
  } catch {
    return false;
  }
}
