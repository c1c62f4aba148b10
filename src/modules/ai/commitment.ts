import { keccakHex } from '../../crypto/hash';
import { canonicalBytes } from '../../primitives/canonical';
import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';

/**
 * AI_COMMIT's `data.commit`: 0x + keccak-256 of the UTF-8 bytes of the RFC 8785 canonical JSON
 * of {oracle (the committer's 0x address, lower case), output, salt, taskId}. The oracle is
 * inside so one oracle cannot copy another's commitment; the salt keeps a short answer from
 * being guessed before the reveal. Oracles and the SDK compute it with this same function.
 */
export const taskCommitment = (c: { oracle: Address; output: string; salt: string; taskId: Hex }): Hex =>
  keccakHex(
    canonicalBytes({ oracle: c.oracle.toLowerCase(), output: c.output, salt: c.salt, taskId: c.taskId.toLowerCase() }),
  );
