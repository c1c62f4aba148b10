import { describe, expect, it } from 'vitest';
import { fastHybridSigner, signDevTxs } from '../../../bench/lib/sign';
import { decodeEnvelope, signTx, verifyJobOf } from '../../../src/chain/envelope';
import { verifyHybridReference } from '../../../src/crypto/hybrid';
import { deriveKeys, devSecret } from '../../../src/crypto/keys';
import { DEV_NETWORK } from '../../../src/chain/devnet';

// Benchmark fixtures are signed with liboqs (hedged) for speed: the envelopes must be the
// ones the reference signer would make, up to the signature bytes, and verify under noble.
describe('bench signer', () => {
  const keys = deriveKeys(devSecret(3));
  const fields = {
    type: 'TRANSFER',
    to: deriveKeys(devSecret(4)).address,
    amount: '1000',
    nonce: 0,
    fee: '1000000000000000000',
    timestamp: 1_767_225_600_000,
  } as const;

  it('signs what the reference signer signs: same id, signatures valid under noble', async () => {
    const sign = await fastHybridSigner();
    const ref = signTx(keys, fields, DEV_NETWORK);
    const fast = signTx(keys, fields, DEV_NETWORK, sign);
    expect(fast.id).toBe(ref.id);
    expect(fast.publicKeys).toEqual(ref.publicKeys);
    const job = verifyJobOf(fast, DEV_NETWORK);
    expect(verifyHybridReference(job.msg, job.pubs, job.sigs)).toBe(true);
  });

  it('worker-signed envelopes decode, in order', async () => {
    const items = [0, 1, 2].map((n) => ({ dev: 3, fields: { ...fields, nonce: n } }));
    const out = await signDevTxs(items, { network: DEV_NETWORK });
    expect(out.map((e) => decodeEnvelope(JSON.parse(e.body), DEV_NETWORK)).map((d) => d.ok && d.tx.nonce)).toEqual([
      0, 1, 2,
    ]);
    expect(out[0].id).toBe(signTx(keys, items[0].fields, DEV_NETWORK).id);
  });
});
