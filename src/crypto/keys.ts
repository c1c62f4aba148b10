import { randomBytes } from 'node:crypto';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import type { Address } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { toHex, utf8 } from '../primitives/hex';
import { addressFromPublicKey } from './address';
import { keccak256 } from './hash';

/** Both key pairs of one account, derived from one 32-byte master secret. */
export interface HybridKeys {
  secret: Uint8Array;
  address: Address;
  secp256k1: { privateKey: Uint8Array; publicKey: Uint8Array /* 65 bytes, uncompressed */ };
  mldsa44: { secretKey: Uint8Array; publicKey: Uint8Array /* 1312 bytes */ };
}

export const SECRET_BYTES = 32;
export const KEY_SALT = 'cairn/keys/v1';
export const DEV_SEED = 'cairn development seed — never use on a real network';

const SALT = utf8(KEY_SALT);
/** Bounded: derivation costs ~5 ms (ML-DSA keygen), but a long-running node must not grow forever. */
const CACHE_MAX = 1024;
const cache = new Map<string, HybridKeys>();

const expand = (secret: Uint8Array, label: string): Uint8Array => hkdf(sha256, secret, SALT, utf8(label), 32);

function deriveSecp256k1(secret: Uint8Array): Uint8Array {
  // A 32-byte HKDF output is outside [1, n) with probability ~2^-128; the counter keeps
  // derivation total and deterministic anyway.
  for (let i = 0; ; i++) {
    const sk = expand(secret, i === 0 ? 'secp256k1' : `secp256k1/${i}`);
    if (secp256k1.utils.isValidSecretKey(sk)) return sk;
  }
}

/**
 * HKDF-SHA256(ikm = secret, salt = "cairn/keys/v1"): info "secp256k1" gives the ECDSA
 * scalar, info "mldsa44" the 32-byte ML-DSA-44 keygen seed (FIPS 204 ξ).
 * Results are cached per secret; treat the returned object as read-only.
 */
export function deriveKeys(secret: Uint8Array): HybridKeys {
  if (!(secret instanceof Uint8Array) || secret.length !== SECRET_BYTES) {
    throw new CairnError('INVALID_SECRET', `master secret must be ${SECRET_BYTES} bytes`);
  }
  const cacheKey = toHex(secret);
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const privateKey = deriveSecp256k1(secret);
  const publicKey = secp256k1.getPublicKey(privateKey, false);
  const ml = ml_dsa44.keygen(expand(secret, 'mldsa44'));
  const keys: HybridKeys = {
    secret: Uint8Array.from(secret),
    address: addressFromPublicKey(publicKey),
    secp256k1: { privateKey, publicKey },
    mldsa44: { secretKey: ml.secretKey, publicKey: ml.publicKey },
  };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(cacheKey, keys);
  return keys;
}

export const generateSecret = (): Uint8Array => new Uint8Array(randomBytes(SECRET_BYTES));

/** Deterministic development secrets: keccak256(utf8(`${seed}/${index}`)). */
export function devSecret(index: number, seed: string = DEV_SEED): Uint8Array {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new CairnError('INVALID_INDEX', 'dev key index must be a non-negative integer');
  return keccak256(utf8(`${seed}/${index}`));
}
