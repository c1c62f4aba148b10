import { createPublicKey, verify as opensslVerify } from 'node:crypto';
import { bech32, bech32m } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressFromPublicKey, isAddress, parseAddress, toNative } from '../../../src/crypto/address';
import { createFastVerifier, type FastVerifier } from '../../../src/crypto/fastVerify';
import { keccak256, keccakHex } from '../../../src/crypto/hash';
import {
  signHybrid,
  verifyHybridReference,
  type HybridPublicKeys,
  type HybridSignatures,
} from '../../../src/crypto/hybrid';
import { DEV_SEED, deriveKeys, devSecret, generateSecret, type HybridKeys } from '../../../src/crypto/keys';
import { VerifyPool } from '../../../src/crypto/verifyPool';
import { fromHex, toHex, utf8 } from '../../../src/primitives/hex';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The same signature with s replaced by n − s: valid ECDSA, but the malleable twin. */
function highS(sig: Uint8Array): Uint8Array {
  const s = BigInt(toHex(sig.subarray(32)));
  const out = Uint8Array.from(sig);
  out.set(fromHex((N - s).toString(16).padStart(64, '0')), 32);
  return out;
}

const pubsOf = (k: HybridKeys): HybridPublicKeys => ({
  secp256k1: k.secp256k1.publicKey,
  mldsa44: k.mldsa44.publicKey,
});

describe('hash', () => {
  it('keccak256 is the Ethereum keccak, not SHA3-256', () => {
    expect(keccakHex(new Uint8Array())).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256(utf8('abc'))).toHaveLength(32);
  });
});

describe('addresses', () => {
  it('follows the Ethereum rule (well-known keys 1 and 2)', () => {
    const one = secp256k1.getPublicKey(fromHex(`0x${'0'.repeat(63)}1`), false);
    const two = secp256k1.getPublicKey(fromHex(`0x${'0'.repeat(63)}2`), true);
    expect(addressFromPublicKey(one)).toBe('0x7e5f4552091a69125d5dfcb7b8c2659029395bdf');
    expect(addressFromPublicKey(two)).toBe('0x2b5ad5c4795c026514f8317c7a215e218dccd6cf');
  });

  it('gives the same address for the compressed and uncompressed key', () => {
    const k = deriveKeys(devSecret(3));
    const compressed = secp256k1.Point.fromBytes(k.secp256k1.publicKey).toBytes(true);
    expect(addressFromPublicKey(compressed)).toBe(k.address);
  });

  it('refuses keys of the wrong size or prefix, and points off the curve', () => {
    const k = deriveKeys(devSecret(3));
    expect(() => addressFromPublicKey(k.secp256k1.publicKey.subarray(1))).toThrow(/33 .* or 65/);
    const hybridPrefix = Uint8Array.from(k.secp256k1.publicKey);
    hybridPrefix[0] = 0x06;
    expect(() => addressFromPublicKey(hybridPrefix)).toThrow();
    const offCurve = new Uint8Array(33).fill(0xff);
    offCurve[0] = 0x02;
    expect(() => addressFromPublicKey(offCurve)).toThrow(/curve/);
  });

  it('round-trips between 0x and cairn1 forms', () => {
    for (let i = 0; i < 5; i++) {
      const a = deriveKeys(devSecret(i)).address;
      const native = toNative(a);
      expect(native).toMatch(/^cairn1[02-9ac-hj-np-z]{38}$/);
      expect(parseAddress(native)).toBe(a);
      expect(parseAddress(native.toUpperCase())).toBe(a);
      expect(parseAddress(a.toUpperCase().replace('0X', '0x'))).toBe(a);
      expect(isAddress(native) && isAddress(a)).toBe(true);
    }
  });

  it('rejects bad checksums, wrong prefixes, wrong lengths and bech32 (non-m)', () => {
    const a = deriveKeys(devSecret(0)).address;
    const native = toNative(a);
    const last = native.at(-1) === 'q' ? 'p' : 'q';
    expect(parseAddress(native.slice(0, -1) + last)).toBeUndefined();
    const words = bech32m.toWords(fromHex(a));
    expect(parseAddress(bech32m.encode('cosmos', words))).toBeUndefined();
    expect(parseAddress(bech32.encode('cairn', words))).toBeUndefined();
    expect(parseAddress(bech32m.encode('cairn', bech32m.toWords(new Uint8Array(19))))).toBeUndefined();
    expect(parseAddress(bech32m.encode('cairn', bech32m.toWords(new Uint8Array(32))))).toBeUndefined();
    expect(parseAddress(native.slice(0, 10) + native.slice(10).toUpperCase())).toBeUndefined(); // mixed case
    expect(parseAddress(`${a}00`)).toBeUndefined();
    expect(parseAddress(a.slice(0, -1))).toBeUndefined();
    expect(parseAddress(a.slice(2))).toBeUndefined();
    expect(parseAddress('')).toBeUndefined();
    expect(isAddress(42)).toBe(false);
  });
});

describe('key derivation', () => {
  it('is deterministic and separates secrets', () => {
    const s = devSecret(7);
    const a = deriveKeys(Uint8Array.from(s));
    const b = deriveKeys(Uint8Array.from(s));
    expect(toHex(b.mldsa44.publicKey)).toBe(toHex(a.mldsa44.publicKey));
    expect(b.address).toBe(a.address);
    const c = deriveKeys(devSecret(8));
    expect(c.address).not.toBe(a.address);
    expect(toHex(c.mldsa44.publicKey)).not.toBe(toHex(a.mldsa44.publicKey));
    expect(a.secp256k1.publicKey).toHaveLength(65);
    expect(a.mldsa44.publicKey).toHaveLength(1312);
    expect(addressFromPublicKey(a.secp256k1.publicKey)).toBe(a.address);
  });

  it('dev secrets are keccak256 of "<seed>/<index>"', () => {
    expect(toHex(devSecret(2))).toBe(keccakHex(utf8(`${DEV_SEED}/2`)));
    expect(toHex(devSecret(2, 'other'))).toBe(keccakHex(utf8('other/2')));
    expect(() => devSecret(-1)).toThrow();
  });

  it('generates random 32-byte secrets and refuses other sizes', () => {
    const a = generateSecret();
    expect(a).toHaveLength(32);
    expect(toHex(a)).not.toBe(toHex(generateSecret()));
    expect(() => deriveKeys(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});

describe('hybrid signatures', () => {
  let fast: FastVerifier;
  const k = deriveKeys(devSecret(0));
  const msg = utf8('CAIRN/TX/v1\n{"amount":"1"}');
  let sigs: HybridSignatures;

  beforeAll(async () => {
    fast = await createFastVerifier();
    sigs = signHybrid(k, msg);
  });

  it('signs deterministically and both verifiers accept', () => {
    expect(sigs.secp256k1).toHaveLength(64);
    expect(sigs.mldsa44).toHaveLength(2420);
    expect(toHex(signHybrid(k, msg).mldsa44)).toBe(toHex(sigs.mldsa44));
    expect(verifyHybridReference(msg, pubsOf(k), sigs)).toBe(true);
    expect(fast.verify(msg, pubsOf(k), sigs)).toBe(true);
  });

  it('accepts a compressed secp256k1 key in both verifiers', () => {
    const pubs = { ...pubsOf(k), secp256k1: secp256k1.Point.fromBytes(k.secp256k1.publicKey).toBytes(true) };
    expect(verifyHybridReference(msg, pubs, sigs)).toBe(true);
    expect(fast.verify(msg, pubs, sigs)).toBe(true);
  });

  it('fails on a tampered payload', () => {
    const tampered = Uint8Array.from(msg);
    tampered[tampered.length - 2] ^= 1;
    expect(verifyHybridReference(tampered, pubsOf(k), sigs)).toBe(false);
    expect(fast.verify(tampered, pubsOf(k), sigs)).toBe(false);
  });

  it('fails when only one of the two signatures is valid', () => {
    const other = signHybrid(k, utf8('something else'));
    for (const mixed of [
      { ...sigs, mldsa44: other.mldsa44 },
      { ...sigs, secp256k1: other.secp256k1 },
    ]) {
      expect(verifyHybridReference(msg, pubsOf(k), mixed)).toBe(false);
      expect(fast.verify(msg, pubsOf(k), mixed)).toBe(false);
    }
  });

  it('rejects the high-s twin in both verifiers although OpenSSL alone accepts it', () => {
    const high = { ...sigs, secp256k1: highS(sigs.secp256k1) };
    // Prove the twin is a mathematically valid signature: what makes us refuse it is the rule.
    expect(secp256k1.verify(high.secp256k1, msg, k.secp256k1.publicKey, { lowS: false })).toBe(true);
    const key = createPublicKey({
      key: Buffer.concat([Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex'), k.secp256k1.publicKey]),
      format: 'der',
      type: 'spki',
    });
    expect(opensslVerify('sha256', msg, { key, dsaEncoding: 'ieee-p1363' }, high.secp256k1)).toBe(true);
    expect(verifyHybridReference(msg, pubsOf(k), high)).toBe(false);
    expect(fast.verify(msg, pubsOf(k), high)).toBe(false);
  });

  it('returns false, never throws, on malformed input', () => {
    const empty = new Uint8Array(0);
    const cases: [Uint8Array, HybridPublicKeys, HybridSignatures][] = [
      [msg, pubsOf(k), { secp256k1: empty, mldsa44: empty }],
      [msg, pubsOf(k), { ...sigs, secp256k1: sigs.secp256k1.subarray(0, 63) }],
      [msg, pubsOf(k), { ...sigs, mldsa44: new Uint8Array(2421) }],
      [msg, { ...pubsOf(k), mldsa44: k.mldsa44.publicKey.subarray(1) }, sigs],
      [msg, { ...pubsOf(k), secp256k1: new Uint8Array(65) }, sigs],
      [msg, { ...pubsOf(k), secp256k1: Uint8Array.from([6, ...k.secp256k1.publicKey.subarray(1)]) }, sigs],
      [msg, undefined as unknown as HybridPublicKeys, sigs],
      [undefined as unknown as Uint8Array, pubsOf(k), sigs],
      [msg, pubsOf(k), { secp256k1: 'ab', mldsa44: null } as unknown as HybridSignatures],
    ];
    for (const [m, p, s] of cases) {
      expect(verifyHybridReference(m, p, s)).toBe(false);
      expect(fast.verify(m, p, s)).toBe(false);
    }
  });
});

describe('VerifyPool', () => {
  let pool: VerifyPool;
  const k = deriveKeys(devSecret(1));
  const jobs = Array.from({ length: 6 }, (_, i) => {
    const msg = utf8(`message ${i}`);
    return { msg, pubs: pubsOf(k), sigs: signHybrid(k, msg) };
  });

  beforeAll(async () => {
    pool = await VerifyPool.start({ workers: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('verifies a batch, grouping same-tick jobs', async () => {
    const bad = { ...jobs[0], msg: utf8('forged') };
    const before = pool.stats().batches;
    const results = await pool.verifyMany([...jobs, bad]);
    expect(results).toEqual([true, true, true, true, true, true, false]);
    expect(pool.stats().batches - before).toBeLessThanOrEqual(2); // one message per worker
    expect(pool.inFlight).toBe(0);
  });

  it('answers a check it already passed from memory, and only a pass, and only for the same bytes', async () => {
    const msg = utf8('admitted, then in a block');
    const job = { msg, pubs: pubsOf(k), sigs: signHybrid(k, msg) };
    expect(await pool.verify(job)).toBe(true);
    const before = pool.stats();
    expect(await pool.verify({ ...job, sigs: { ...job.sigs } })).toBe(true); // equal bytes, another object
    expect(pool.stats()).toMatchObject({ cacheHits: before.cacheHits + 1, completed: before.completed });
    // One byte of the ML-DSA signature changed (the secp256k1 one and the id as they were): checked, and refused.
    const mldsa = job.sigs.mldsa44.slice();
    mldsa[100] ^= 1;
    const forged = { ...job, sigs: { secp256k1: job.sigs.secp256k1, mldsa44: mldsa } };
    expect(await pool.verify(forged)).toBe(false);
    expect(await pool.verify(forged)).toBe(false); // a failure is never remembered as anything
    expect(pool.stats().cacheHits).toBe(before.cacheHits + 1);
    expect(pool.stats().completed).toBe(before.completed + 2);
  });

  it('a check asked uncached (blocks synced from far behind) is neither answered from memory nor remembered', async () => {
    const msg = utf8('in a block fetched ahead by a sync');
    const job = { msg, pubs: pubsOf(k), sigs: signHybrid(k, msg) };
    const before = pool.stats();
    expect(await pool.verifyMany([job], false)).toEqual([true]);
    expect(await pool.verify(job)).toBe(true); // not remembered: checked again
    expect(pool.stats()).toMatchObject({ cacheHits: before.cacheHits, completed: before.completed + 2 });
    expect(await pool.verifyMany([job], false)).toEqual([true]); // now remembered, but not looked up
    expect(pool.stats()).toMatchObject({ cacheHits: before.cacheHits, completed: before.completed + 3 });
  });

  it('resolves false for malformed jobs without reaching a worker', async () => {
    expect(await pool.verify({ msg: utf8('x'), pubs: pubsOf(k), sigs: { secp256k1: 'zz' } } as never)).toBe(false);
  });

  it('rejects in-flight jobs when a worker crashes, then respawns it', async () => {
    // Enough work that worker 0 still holds batches when it is killed, however loaded the machine. Each job is new
    // (a message its signatures do not sign), so none is answered from the checks already passed.
    const many = Array.from({ length: 400 }, (_, i) => ({ ...jobs[i % jobs.length], msg: utf8(`unsigned ${i}`) }));
    const pending = many.map((j) => pool.verify(j));
    await new Promise((r) => setImmediate(r)); // let the batches be dispatched
    expect(pool.inFlight).toBe(400);
    await pool.terminateWorker(0);
    const settled = await Promise.allSettled(pending);
    const rejected = settled.filter((s) => s.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    for (const r of rejected)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'VERIFY_WORKER_CRASHED' });
    for (const s of settled) if (s.status === 'fulfilled') expect(s.value).toBe(false);
    expect(pool.stats().crashes).toBe(1);
    expect(pool.inFlight).toBe(0);
    await expect.poll(() => pool.stats().alive, { timeout: 10_000 }).toBe(2);
    expect(await pool.verifyMany(jobs)).toEqual(jobs.map(() => true));
  });

  it(
    'bounds the jobs it holds: beyond maxPending a job is refused at once ' +
      '(VERIFY_POOL_FULL), the held ones complete',
    async () => {
      const p = await VerifyPool.start({ workers: 1, maxPending: 5 });
      try {
        const held = Array.from({ length: 5 }, (_, i) => p.verify(jobs[i % jobs.length]));
        expect(p.inFlight).toBe(5);
        await expect(p.verify(jobs[0])).rejects.toMatchObject({ code: 'VERIFY_POOL_FULL' });
        expect(await Promise.all(held)).toEqual([true, true, true, true, true]);
        expect(p.inFlight).toBe(0);
        expect(await p.verify(jobs[0])).toBe(true); // room again once answered
      } finally {
        await p.close();
      }
    },
  );

  it('refuses work after close', async () => {
    const p = await VerifyPool.start({ workers: 1 });
    await p.close();
    await expect(p.verify(jobs[0])).rejects.toMatchObject({ code: 'VERIFY_POOL_CLOSED' });
  });
});
