// Fast hybrid verification shared by fastVerify.ts (main thread) and verifyWorker.mjs
// (worker threads). Plain JS so a worker can load it without a TypeScript loader.
// Must agree with verifyHybridReference (noble) on every input: property-tested.
import { createHash, createPublicKey, verify as ecdsaVerify } from 'node:crypto';
import { createRequire } from 'node:module';
import { createMLDSA44 } from '@oqs/liboqs-js/sig';

// Native libsecp256k1 (the `secp256k1` package's prebuilt binding) verifies ~4x faster than
// OpenSSL's generic EC code (measured 11,400/s vs 2,950/s on one core). Load the binding
// itself, never the package's pure-JS fallback; without it, OpenSSL is used.
let nativeSecp = null;
try {
  nativeSecp = createRequire(import.meta.url)('secp256k1/bindings');
} catch {
  nativeSecp = null;
}
export const secpBackend = nativeSecp ? 'libsecp256k1' : 'openssl';

const SECP_SIG_BYTES = 64;
const MLDSA44_PUB_BYTES = 1312;
const MLDSA44_SIG_BYTES = 2420;
/** floor(n / 2) of secp256k1, big-endian: s above it is the malleable twin OpenSSL accepts. */
const HALF_N = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');
// SubjectPublicKeyInfo headers (id-ecPublicKey, secp256k1) for a 65- and a 33-byte point.
// DER import is ~2.3x faster than JWK and takes compressed points without decompressing.
const SPKI_UNCOMPRESSED = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex');
const SPKI_COMPRESSED = Buffer.from('3036301006072a8648ce3d020106052b8104000a032200', 'hex');

const asBuffer = (u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
// liboqs checks `constructor.name === 'Uint8Array'`, which a Buffer fails.
const asPlainU8 = (u) => (u.constructor === Uint8Array ? u : new Uint8Array(u.buffer, u.byteOffset, u.byteLength));

/**
 * @param {{ keyCacheSize?: number }} [opts]
 */
export async function createVerifyCore(opts = {}) {
  const keyCacheSize = opts.keyCacheSize ?? 4096;
  const mldsa = await createMLDSA44();
  /** LRU of parsed secp256k1 keys: import costs about as much as a verify. null = invalid point. */
  const keys = new Map();

  function secpKey(pub) {
    const id = asBuffer(pub).toString('latin1');
    const hit = keys.get(id);
    if (hit !== undefined) {
      keys.delete(id);
      keys.set(id, hit);
      return hit;
    }
    let key = null;
    try {
      const header = pub.length === 65 ? SPKI_UNCOMPRESSED : SPKI_COMPRESSED;
      key = createPublicKey({ key: Buffer.concat([header, pub]), format: 'der', type: 'spki' });
    } catch {
      key = null; // not on the curve
    }
    if (keys.size >= keyCacheSize) keys.delete(keys.keys().next().value);
    keys.set(id, key);
    return key;
  }

  function verifySecp256k1(msg, pub, sig) {
    if (!(sig instanceof Uint8Array) || sig.length !== SECP_SIG_BYTES) return false;
    // OpenSSL also accepts the hybrid encodings 0x06/0x07; noble and Ethereum do not.
    if (!(pub instanceof Uint8Array)) return false;
    if (!((pub.length === 65 && pub[0] === 0x04) || (pub.length === 33 && (pub[0] === 0x02 || pub[0] === 0x03))))
      return false;
    // Low-s: OpenSSL accepts both s and n - s; the protocol accepts only the low one.
    if (Buffer.compare(asBuffer(sig).subarray(32, 64), HALF_N) > 0) return false;
    if (nativeSecp) return nativeSecp.ecdsaVerify(sig, createHash('sha256').update(msg).digest(), pub);
    const key = secpKey(pub);
    if (key === null) return false;
    return ecdsaVerify('sha256', msg, { key, dsaEncoding: 'ieee-p1363' }, sig);
  }

  function verifyMldsa44(msg, pub, sig) {
    if (!(pub instanceof Uint8Array) || pub.length !== MLDSA44_PUB_BYTES) return false;
    if (!(sig instanceof Uint8Array) || sig.length !== MLDSA44_SIG_BYTES) return false;
    return mldsa.verify(asPlainU8(msg), asPlainU8(sig), asPlainU8(pub));
  }

  /** Never throws: anything malformed is simply not a valid signature. */
  function verify(msg, pubs, sigs) {
    try {
      if (!(msg instanceof Uint8Array) || !pubs || !sigs) return false;
      // secp256k1 first: cheaper, and most forgeries fail there.
      return verifySecp256k1(msg, pubs.secp256k1, sigs.secp256k1) && verifyMldsa44(msg, pubs.mldsa44, sigs.mldsa44);
    } catch {
      return false;
    }
  }

  return { verify, keyCacheEntries: () => keys.size, secpBackend };
}
