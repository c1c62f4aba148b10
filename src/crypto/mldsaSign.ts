import nodeCrypto from 'node:crypto';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { createMLDSA44 } from '@oqs/liboqs-js/sig';

/**
 * ML-DSA-44 signing, FIPS 204 pure mode, empty context, deterministic variant (rnd = 32 zero bytes): what noble's
 * `ml_dsa44.sign(msg, sk, { extraEntropy: false })` gives, byte for byte.
 *
 * noble takes ~3.3 ms a signature; liboqs (WASM) ~0.45 ms, but liboqs only signs hedged: it draws rnd from
 * node:crypto's randomFillSync. The fast signer lends it 32 zero bytes for the length of one synchronous call, which
 * is the deterministic variant. It is used only once a self-test on a fixed key and message gave noble's signature,
 * and each signature checks that liboqs drew exactly those 32 bytes; otherwise noble signs. Either way the bytes are
 * the same, so replays (the simulator), test vectors and evidence built from signatures do not depend on which ran.
 */
type Signer = (msg: Uint8Array, secretKey: Uint8Array) => Uint8Array;

const nobleSign: Signer = (msg, secretKey) => ml_dsa44.sign(msg, secretKey, { extraEntropy: false });
let fast: Signer | undefined;

export function signMldsa44(msg: Uint8Array, secretKey: Uint8Array): Uint8Array {
  if (fast) {
    try {
      return fast(msg, secretKey);
    } catch {
      fast = undefined; // liboqs no longer draws its randomness as expected: noble from here on
    }
  }
  return nobleSign(msg, secretKey);
}

/** liboqs checks `constructor.name === 'Uint8Array'`: a Buffer or a subclass is copied into a plain one. */
const plain = (b: Uint8Array): Uint8Array => (b.constructor === Uint8Array ? b : new Uint8Array(b));

/** Thrown when liboqs asked for randomness other than one 32-byte rnd. */
class UnexpectedRandomness extends Error {}

function liboqsDeterministic(oqs: Awaited<ReturnType<typeof createMLDSA44>>): Signer {
  return (msg, secretKey) => {
    const lent = nodeCrypto.randomFillSync;
    let drawn = 0;
    (nodeCrypto as { randomFillSync: unknown }).randomFillSync = (buf: NodeJS.ArrayBufferView) => {
      drawn += buf.byteLength;
      new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength).fill(0);
      return buf;
    };
    let sig: Uint8Array;
    try {
      sig = oqs.sign(plain(msg), plain(secretKey));
    } finally {
      (nodeCrypto as { randomFillSync: unknown }).randomFillSync = lent;
    }
    if (drawn !== 32) throw new UnexpectedRandomness(`liboqs drew ${drawn} random bytes to sign, not 32`);
    return sig;
  };
}

/**
 * Switches signMldsa44 to liboqs (per thread: call it where a process or worker starts). Resolves whether it did: not
 * if liboqs failed to load or its signature of the self-test differs from noble's.
 */
export async function enableFastMldsaSigning(): Promise<boolean> {
  if (fast) return true;
  try {
    const candidate = liboqsDeterministic(await createMLDSA44());
    const { secretKey } = ml_dsa44.keygen(new Uint8Array(32).fill(0x5a));
    const msg = new TextEncoder().encode('cairn: ML-DSA-44 deterministic signing self-test');
    if (Buffer.compare(candidate(msg, secretKey), nobleSign(msg, secretKey)) !== 0) return false;
    fast = candidate;
    return true;
  } catch {
    return false;
  }
}

/** Back to noble (tests). */
export function disableFastMldsaSigning(): void {
  fast = undefined;
}
