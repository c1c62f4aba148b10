import { describe, expect, it } from 'vitest';
import { signHeader } from '../../../src/chain/block';
import { verifyHeader, verifyHeaderWith } from '../../../src/crypto/blockHeader';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import { toHex } from '../../../src/primitives/hex';
import { realVerifier } from '../../helpers/verifier';

const producer = deriveKeys(devSecret(3));
const other = deriveKeys(devSecret(4));
const keysOf = (k: typeof producer) => ({
  secp256k1: toHex(k.secp256k1.publicKey),
  mldsa44: toHex(k.mldsa44.publicKey),
});
const header = (height: number) =>
  signHeader(producer, {
    height,
    parentHash: `0x${'01'.repeat(32)}`,
    timestamp: 1_000 + height,
    producer: producer.address,
    txRoot: `0x${'02'.repeat(32)}`,
    stateRoot: `0x${'03'.repeat(32)}`,
    txCount: 0,
  });

describe('block header verification through a verifier (the import: off the main thread)', () => {
  it('agrees with the reference: a good header passes, a forged or re-keyed one is refused', async () => {
    const good = header(11);
    expect(await verifyHeaderWith(realVerifier, good, keysOf(producer))).toBeUndefined();
    const forged = { ...header(12), signatures: header(13).signatures };
    expect(await verifyHeaderWith(realVerifier, forged, keysOf(producer))).toBe('invalid block signature');
    expect(verifyHeader(forged, keysOf(producer))).toBe('invalid block signature');
    expect(await verifyHeaderWith(realVerifier, header(14), keysOf(other))).toBe('invalid block signature');
    const rehashed = { ...header(15), timestamp: 1 };
    expect(await verifyHeaderWith(realVerifier, rehashed, keysOf(producer))).toBe('block hash does not match header');
  });

  it('a header verified once is not sent to the verifier again', async () => {
    const h = header(21);
    let jobs = 0;
    const counting = {
      verifyMany: async (js: Parameters<typeof realVerifier.verifyMany>[0]) => {
        jobs += js.length;
        return realVerifier.verifyMany(js);
      },
    };
    expect(await verifyHeaderWith(counting, h, keysOf(producer))).toBeUndefined();
    expect(await verifyHeaderWith(counting, h, keysOf(producer))).toBeUndefined();
    expect(jobs).toBe(1);
  });
});
