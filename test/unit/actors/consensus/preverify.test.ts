import { describe, expect, it } from 'vitest';
import { preverifyTxs } from '../../../../src/actors/consensus/importer';
import { sealBlock, ZERO_HASH } from '../../../../src/chain/block';
import { DEV_NETWORK } from '../../../../src/chain/devnet';
import { signTx } from '../../../../src/chain/envelope';
import type { VerifyJob } from '../../../../src/crypto/hybrid';
import { deriveKeys, devSecret } from '../../../../src/crypto/keys';
import { realVerifier } from '../../../helpers/verifier';

/**
 * The signature checks of a run of blocks (consensus/importer.ts): started once per block object, so the sync can
 * start them for the page it fetched ahead and the import awaits the same checks instead of making them again.
 */
describe('preverifyTxs', () => {
  const [alice, bob] = [0, 1].map((i) => deriveKeys(devSecret(i)));
  const block = (h: number) =>
    sealBlock(bob, {
      parent: { height: h - 1, hash: ZERO_HASH },
      timestamp: 1_000 * h,
      producer: bob.address,
      stateRoot: ZERO_HASH,
      txs: [0, 1].map((n) =>
        signTx(
          alice,
          { type: 'TRANSFER', to: bob.address, amount: '1', nonce: 2 * h + n, data: null, timestamp: 1 + n },
          DEV_NETWORK,
        ),
      ),
      results: [0, 1].map(() => ({ status: 'success' as const, energyUsed: '0', burned: '1' })),
      events: [],
    });

  it('checks each block once, whoever asks first: the second ask gets the same checks', async () => {
    const batches: number[] = [];
    const verifier = {
      verifyMany: (jobs: VerifyJob[]) => (batches.push(jobs.length), realVerifier.verifyMany(jobs)),
    };
    const page = [block(1), block(2)];
    const early = preverifyTxs(verifier, page, DEV_NETWORK); // the sync, as the page arrives
    const atImport = preverifyTxs(verifier, page, DEV_NETWORK); // the import, later
    expect(atImport[0]).toBe(early[0]);
    expect(atImport[1]).toBe(early[1]);
    const passed = await atImport[1];
    expect(page[1].txs.every((t) => passed.has(t))).toBe(true);
    expect(batches).toEqual([2, 2]); // one batch per block, not two
    // Other block objects (another page with the same blocks) are checked anew.
    await preverifyTxs(verifier, [block(1)], DEV_NETWORK)[0];
    expect(batches).toEqual([2, 2, 2]);
  });

  it('a check the verifier failed is made again by the next ask', async () => {
    let crash = true;
    const verifier = {
      verifyMany: (jobs: VerifyJob[]) =>
        crash ? Promise.reject(new Error('verify pool crashed')) : realVerifier.verifyMany(jobs),
    };
    const page = [block(3)];
    await expect(preverifyTxs(verifier, page, DEV_NETWORK)[0]).rejects.toThrow('verify pool crashed');
    crash = false;
    const passed = await preverifyTxs(verifier, page, DEV_NETWORK)[0];
    expect(page[0].txs.every((t) => passed.has(t))).toBe(true);
  });
});
