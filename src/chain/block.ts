import { headerHash, headerSigningBytes } from '../crypto/blockHeader';
import { keccakHex } from '../crypto/hash';
import { signHybrid } from '../crypto/hybrid';
import type { HybridKeys } from '../crypto/keys';
import { txRootOf } from '../crypto/merkle';
import { toHex, type Hex } from '../primitives/hex';
import type { Block, BlockHeader, SignedBlockHeader, SignedTx } from '../protocol/types';

/**
 * The header's signing bytes, hash and check live in crypto/blockHeader.ts (modules/ verifies
 * headers too), the tx root in crypto/merkle.ts (consensus/blockRules.ts checks it).
 */
export { headerHash, headerSigningBytes, verifyHeader } from '../crypto/blockHeader';
export { txRootOf };

export const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`;
export const ZERO_ADDRESS: Hex = `0x${'00'.repeat(20)}`;

export function signHeader(keys: HybridKeys, h: BlockHeader): SignedBlockHeader {
  const msg = headerSigningBytes(h);
  const sig = signHybrid(keys, msg);
  return { ...h, hash: keccakHex(msg), signatures: { secp256k1: toHex(sig.secp256k1), mldsa44: toHex(sig.mldsa44) } };
}

/**
 * The signed block of a built body on `parent`: header (tx root, state root, count), the
 * producer's signatures, and the end-of-block events when there are any.
 */
export function sealBlock(
  keys: HybridKeys,
  b: {
    parent: { height: number; hash: Hex };
    timestamp: number;
    producer: BlockHeader['producer'];
    stateRoot: Hex;
    txs: SignedTx[];
    results: Block['results'];
    events: NonNullable<Block['events']>;
    /** The block is not the producer's finality vote (BlockHeader.abstain). */
    abstain?: boolean;
  },
): Block {
  const header = signHeader(keys, {
    height: b.parent.height + 1,
    parentHash: b.parent.hash,
    timestamp: b.timestamp,
    producer: b.producer,
    txRoot: txRootOf(b.txs),
    stateRoot: b.stateRoot,
    txCount: b.txs.length,
    ...(b.abstain ? { abstain: true as const } : {}),
  });
  return { header, txs: b.txs, results: b.results, ...(b.events.length ? { events: b.events } : {}) };
}

/** Genesis has no producer and no signatures. */
export function genesisHeader(h: BlockHeader): SignedBlockHeader {
  const empty = '0x' as Hex;
  return { ...h, hash: headerHash(h), signatures: { secp256k1: empty, mldsa44: empty } };
}
