import type { SignedTx } from './types';

/**
 * How block building takes its candidates (from the mempool, in its order) without
 * knowing the pool: it pulls the next transaction and, when that one got in or was
 * dropped for good, calls `advance()` to let the sender's next nonce follow. A candidate
 * not advanced leaves its sender out of the rest of the block (a gap or a temporary skip).
 */
export interface Candidate {
  tx: SignedTx;
  advance(): void;
}

export type Candidates = Iterator<Candidate, undefined>;
