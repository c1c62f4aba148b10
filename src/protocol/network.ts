import type { Hex } from '../primitives/hex';

/**
 * The chain a transaction belongs to: its chain id (the chain specification's `chainId`,
 * also EIP-155's) and the hash of its genesis block. A hybrid transaction's signatures cover
 * the genesis hash (docs/PROTOCOL.md "Canonical payload, signing bytes, id"), so a transaction
 * signed for one chain is `invalid signature` on every other, even one with the same chain id.
 * A node learns its own from its store; a client from GET /status (`chainId`, `genesisHash`).
 */
export interface Network {
  readonly chainId: number;
  readonly genesisHash: Hex;
}
