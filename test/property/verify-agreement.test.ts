import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFastVerifier, type FastVerifier } from '../../src/crypto/fastVerify';
import { signHybrid, verifyHybridReference, type VerifyJob } from '../../src/crypto/hybrid';
import { deriveKeys, devSecret, type HybridKeys } from '../../src/crypto/keys';
import { VerifyPool } from '../../src/crypto/verifyPool';
import { fromHex, toHex } from '../../src/primitives/hex';

/**
 * The fast path (OpenSSL + liboqs, in-thread and in the worker pool) must give the
 * same answer as the noble reference on valid, tampered and malformed signatures.
 * Keys are pre-derived (ML-DSA keygen is the slow part); messages, mutations and the
 * mutated positions are random.
 */

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** Default 200 keeps the suite fast; set VERIFY_AGREEMENT_RUNS for a deeper soak. */
const RUNS = Number(process.env.VERIFY_AGREEMENT_RUNS ?? 200);

const KEYS: HybridKeys[] = [0, 1, 2, 3].map((i) => deriveKeys(devSecret(i, 'verify-agreement')));

/** Changes one byte (an empty input becomes one byte, which is a change too). */
const flip = (b: Uint8Array, at: number, mask: number): Uint8Array => {
  if (b.length === 0) return Uint8Array.of(mask);
  const out = Uint8Array.from(b);
  out[at % out.length] ^= mask;
  return out;
};
const withS = (sig: Uint8Array, s: bigint): Uint8Array => {
  const out = Uint8Array.from(sig);
  out.set(fromHex(s.toString(16).padStart(64, '0')), 32);
  return out;
};
const withR = (sig: Uint8Array, r: bigint): Uint8Array => {
  const out = Uint8Array.from(sig);
  out.set(fromHex(r.toString(16).padStart(64, '0')), 0);
  return out;
};
const sOf = (sig: Uint8Array): bigint => BigInt(toHex(sig.subarray(32, 64)));

type Mutation =
  | { kind: 'msgByte'; at: number; mask: number }
  | { kind: 'secpSigByte'; at: number; mask: number }
  | { kind: 'mldsaSigByte'; at: number; mask: number }
  | { kind: 'truncate'; which: 'secp256k1' | 'mldsa44'; by: number }
  | { kind: 'extend'; which: 'secp256k1' | 'mldsa44'; extra: Uint8Array }
  | { kind: 'wrongKey'; which: 'secp256k1' | 'mldsa44'; other: number }
  | { kind: 'highS' }
  | { kind: 'badScalar'; which: 'r0' | 's0' | 'rN' | 'sN' }
  | { kind: 'pubPrefix'; prefix: number }
  | { kind: 'pubByte'; which: 'secp256k1' | 'mldsa44'; at: number; mask: number }
  | { kind: 'compressedKey' }
  | { kind: 'randomSigs'; secp: Uint8Array; mldsa: Uint8Array };

const which = fc.constantFrom('secp256k1' as const, 'mldsa44' as const);
const mask = fc.integer({ min: 1, max: 255 });
const at = fc.nat({ max: 10_000 });

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('msgByte' as const), at, mask }),
  fc.record({ kind: fc.constant('secpSigByte' as const), at, mask }),
  fc.record({ kind: fc.constant('mldsaSigByte' as const), at, mask }),
  fc.record({ kind: fc.constant('truncate' as const), which, by: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('extend' as const), which, extra: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('wrongKey' as const), which, other: fc.integer({ min: 1, max: KEYS.length - 1 }) }),
  fc.record({ kind: fc.constant('highS' as const) }),
  fc.record({
    kind: fc.constant('badScalar' as const),
    which: fc.constantFrom('r0' as const, 's0' as const, 'rN' as const, 'sN' as const),
  }),
  fc.record({ kind: fc.constant('pubPrefix' as const), prefix: fc.constantFrom(0x00, 0x02, 0x03, 0x05, 0x06, 0x07) }),
  fc.record({ kind: fc.constant('pubByte' as const), which, at, mask }),
  fc.record({ kind: fc.constant('compressedKey' as const) }),
  fc.record({
    kind: fc.constant('randomSigs' as const),
    secp: fc.uint8Array({ minLength: 64, maxLength: 64 }),
    mldsa: fc.uint8Array({ minLength: 2420, maxLength: 2420 }),
  }),
);

function apply(job: VerifyJob, m: Mutation, keyIndex: number): { job: VerifyJob; stillValid: boolean | 'either' } {
  const { msg, pubs, sigs } = job;
  switch (m.kind) {
    case 'msgByte':
      return { job: { ...job, msg: flip(msg, m.at, m.mask) }, stillValid: false };
    case 'secpSigByte':
      return { job: { ...job, sigs: { ...sigs, secp256k1: flip(sigs.secp256k1, m.at, m.mask) } }, stillValid: false };
    case 'mldsaSigByte':
      // Some ML-DSA signature bytes are padding-like; agreement is what matters.
      return { job: { ...job, sigs: { ...sigs, mldsa44: flip(sigs.mldsa44, m.at, m.mask) } }, stillValid: 'either' };
    case 'truncate':
      return {
        job: { ...job, sigs: { ...sigs, [m.which]: sigs[m.which].subarray(0, sigs[m.which].length - m.by) } },
        stillValid: false,
      };
    case 'extend': {
      const ext = new Uint8Array(sigs[m.which].length + m.extra.length);
      ext.set(sigs[m.which]);
      ext.set(m.extra, sigs[m.which].length);
      return { job: { ...job, sigs: { ...sigs, [m.which]: ext } }, stillValid: false };
    }
    case 'wrongKey': {
      const other = KEYS[(keyIndex + m.other) % KEYS.length];
      const pub = m.which === 'secp256k1' ? other.secp256k1.publicKey : other.mldsa44.publicKey;
      return { job: { ...job, pubs: { ...pubs, [m.which]: pub } }, stillValid: false };
    }
    case 'highS':
      return {
        job: { ...job, sigs: { ...sigs, secp256k1: withS(sigs.secp256k1, N - sOf(sigs.secp256k1)) } },
        stillValid: false,
      };
    case 'badScalar': {
      const s = sigs.secp256k1;
      const bad =
        m.which === 'r0'
          ? withR(s, 0n)
          : m.which === 's0'
            ? withS(s, 0n)
            : m.which === 'rN'
              ? withR(s, N)
              : withS(s, N);
      return { job: { ...job, sigs: { ...sigs, secp256k1: bad } }, stillValid: false };
    }
    case 'pubPrefix': {
      const p = Uint8Array.from(pubs.secp256k1);
      p[0] = m.prefix;
      return { job: { ...job, pubs: { ...pubs, secp256k1: p } }, stillValid: false };
    }
    case 'pubByte':
      return { job: { ...job, pubs: { ...pubs, [m.which]: flip(pubs[m.which], m.at, m.mask) } }, stillValid: 'either' };
    case 'compressedKey':
      return {
        job: { ...job, pubs: { ...pubs, secp256k1: secp256k1.Point.fromBytes(pubs.secp256k1).toBytes(true) } },
        stillValid: true,
      };
    case 'randomSigs':
      return { job: { ...job, sigs: { secp256k1: m.secp, mldsa44: m.mldsa } }, stillValid: false };
  }
}

const signed = (keyIndex: number, msg: Uint8Array): VerifyJob => {
  const k = KEYS[keyIndex];
  return { msg, pubs: { secp256k1: k.secp256k1.publicKey, mldsa44: k.mldsa44.publicKey }, sigs: signHybrid(k, msg) };
};

describe('fast verifier agrees with the noble reference', () => {
  let fast: FastVerifier;
  let pool: VerifyPool;
  const collected: VerifyJob[] = [];

  beforeAll(async () => {
    [fast, pool] = await Promise.all([createFastVerifier({ keyCacheSize: 3 }), VerifyPool.start({ workers: 2 })]);
  });
  afterAll(async () => {
    await pool.close();
  });

  it(`on valid and mutated signatures (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.nat({ max: KEYS.length - 1 }), fc.uint8Array({ maxLength: 300 }), mutation, (keyIndex, msg, m) => {
        const job = signed(keyIndex, msg);
        expect(verifyHybridReference(job.msg, job.pubs, job.sigs)).toBe(true);
        expect(fast.verify(job.msg, job.pubs, job.sigs)).toBe(true);
        const { job: bad, stillValid } = apply(job, m, keyIndex);
        const reference = verifyHybridReference(bad.msg, bad.pubs, bad.sigs);
        expect(fast.verify(bad.msg, bad.pubs, bad.sigs)).toBe(reference);
        if (stillValid !== 'either') expect(reference).toBe(stillValid);
        if (collected.length < 64) collected.push(job, bad);
      }),
      { numRuns: RUNS },
    );
  });

  it('on random bytes in every position', () => {
    const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.oneof(bytes(33), bytes(65), fc.uint8Array({ maxLength: 70 })),
        fc.oneof(bytes(1312), fc.uint8Array({ maxLength: 16 })),
        fc.oneof(bytes(64), fc.uint8Array({ maxLength: 70 })),
        fc.oneof(bytes(2420), fc.uint8Array({ maxLength: 16 })),
        (msg, secpPub, mlPub, secpSig, mlSig) => {
          const pubs = { secp256k1: secpPub, mldsa44: mlPub };
          const sigs = { secp256k1: secpSig, mldsa44: mlSig };
          expect(fast.verify(msg, pubs, sigs)).toBe(verifyHybridReference(msg, pubs, sigs));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('the worker pool agrees with the in-thread fast verifier on a batch', async () => {
    expect(collected.length).toBeGreaterThan(32);
    const expected = collected.map((j) => fast.verify(j.msg, j.pubs, j.sigs));
    expect(expected).toContain(true);
    expect(expected).toContain(false);
    expect(await pool.verifyMany(collected)).toEqual(expected);
  });
});
