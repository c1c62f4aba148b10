import nodeCrypto from 'node:crypto';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableFastMldsaSigning, enableFastMldsaSigning, signMldsa44 } from '../../../src/crypto/mldsaSign';

describe('ML-DSA-44 deterministic signing through liboqs', () => {
  beforeAll(async () => {
    expect(await enableFastMldsaSigning()).toBe(true);
  });
  afterAll(() => disableFastMldsaSigning());

  it('gives noble’s deterministic signature byte for byte, for any key and message', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 300 }), (seed, msg) => {
        const { secretKey } = ml_dsa44.keygen(seed);
        const fast = signMldsa44(msg, secretKey);
        expect(Buffer.from(fast).equals(Buffer.from(ml_dsa44.sign(msg, secretKey, { extraEntropy: false })))).toBe(
          true,
        );
      }),
      { numRuns: 40 },
    );
  });

  it('takes a Buffer key and message as liboqs would not (copied into plain arrays)', () => {
    const { secretKey } = ml_dsa44.keygen(new Uint8Array(32).fill(3));
    const msg = Buffer.from('a header hash, as a Buffer');
    expect(Buffer.from(signMldsa44(msg, Buffer.from(secretKey)))).toEqual(
      Buffer.from(ml_dsa44.sign(new Uint8Array(msg), secretKey, { extraEntropy: false })),
    );
  });

  it('gives node:crypto its randomness back after each signature', () => {
    const before = nodeCrypto.randomFillSync;
    const { secretKey } = ml_dsa44.keygen(new Uint8Array(32).fill(4));
    signMldsa44(new Uint8Array([1, 2, 3]), secretKey);
    expect(nodeCrypto.randomFillSync).toBe(before);
    const a = nodeCrypto.randomFillSync(new Uint8Array(32));
    expect(a.some((b) => b !== 0)).toBe(true);
  });
});
