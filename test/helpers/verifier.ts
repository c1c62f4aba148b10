import { createFastVerifier } from '../../src/crypto/fastVerify';
import type { VerifyJob } from '../../src/crypto/hybrid';

const fast = await createFastVerifier();

/**
 * A verifier for actors under test: every job really checked, on the calling thread, with the verify pool's code
 * (block headers go through it too, so a stub that passed everything would let forged headers in).
 */
export const realVerifier = {
  verifyMany: async (jobs: readonly VerifyJob[]): Promise<boolean[]> =>
    jobs.map((j) => fast.verify(j.msg, j.pubs, j.sigs)),
};
