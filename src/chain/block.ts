import { keccakHex } from '../crypto/hash';
import { signHybrid, verifyHybridReference } from '../crypto/hybrid';
import type { HybridKeys } from '../crypto/keys';
import { canonicalBytes } from '../primitives/canonical';
import { concatBytes, fromHex, toHex, utf8, type Hex } from '../primitives/hex';
import { merkleRoot } from './merkle';
import { BLOCK_DOMAIN } from '../protocol/params';
import type { Block, BlockHeader, SignedBlockHeader, SignedTx, SigningKeys } from '../protocol/types';

export const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`;
export const ZERO_ADDRESS: Hex = `0x${'00'.repeat(20)}`;

/** Bytes both producer signatures cover; the block hash is their keccak. */
export function headerSigningBytes(h: BlockHeader): Uint8Array {
  const { height, parentHash, timestamp, producer, txRoot, stateRoot, txCount } = h;
  return concatBytes(utf8(BLOCK_DOMAIN), canonicalBytes({ height, parentHash, timestamp, producer, txRoot, stateRoot, txCount }));
}

export const headerHash = (h: BlockHeader): Hex => keccakHex(headerSigningBytes(h));

export const txRootOf = (txs: SignedTx[]): Hex => merkleRoot(txs.map((t) => t.id));

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
  b: { parent: { height: number; hash: Hex }; timestamp: number; producer: BlockHeader['producer']; stateRoot: Hex; txs: SignedTx[]; results: Block['results']; events: NonNullable<Block['events']> },
): Block {
  const header = signHeader(keys, {
    height: b.parent.height + 1, parentHash: b.parent.hash, timestamp: b.timestamp, producer: b.producer,
    txRoot: txRootOf(b.txs), stateRoot: b.stateRoot, txCount: b.txs.length,
  });
  return { header, txs: b.txs, results: b.results, ...(b.events.length ? { events: b.events } : {}) };
}

/** Genesis has no producer and no signatures. */
export function genesisHeader(h: BlockHeader): SignedBlockHeader {
  const empty = '0x' as Hex;
  return { ...h, hash: headerHash(h), signatures: { secp256k1: empty, mldsa44: empty } };
}

/**
 * Checks the hash and both producer signatures against the producer's bound signing keys
 * (its candidate record in the parent state; reference implementation).
 */
export function verifyHeader(h: SignedBlockHeader, keys: SigningKeys): string | undefined {
  const msg = headerSigningBytes(h);
  if (keccakHex(msg) !== h.hash) return 'block hash does not match header';
  let ok: boolean;
  try {
    ok = verifyHybridReference(
      msg,
      { secp256k1: fromHex(keys.secp256k1), mldsa44: fromHex(keys.mldsa44) },
      { secp256k1: fromHex(h.signatures.secp256k1), mldsa44: fromHex(h.signatures.mldsa44) },
    );
  } catch {
    ok = false;
  }
  return ok ? undefined : 'invalid block signature';
}

/** The block line: its JSON text, whose byte length is the block's `size`. */
export const encodeBlock = (b: Block): string => JSON.stringify(b);
export const decodeBlock = (s: string | Uint8Array): Block =>
  JSON.parse(typeof s === 'string' ? s : Buffer.from(s).toString('utf8')) as Block;
