import { canonicalBytes } from '../primitives/canonical';
import { concatBytes, fromHex, utf8, type Hex } from '../primitives/hex';
import { BLOCK_DOMAIN } from '../protocol/params';
import type { BlockHeader, SignedBlockHeader, SigningKeys } from '../protocol/types';
import { keccakHex } from './hash';
import { Type } from '@sinclair/typebox';
import { MLDSA44_SIG_BYTES, SECP_SIG_BYTES, verifyHybridReference, type VerifyJob } from './hybrid';

/**
 * What a block header's hash and its producer's signatures cover, and their check: pure
 * functions over a header, here (not in chain/) so that modules/ can verify headers too
 * (SLASH_DOUBLE_SIGN's evidence). chain/block.ts re-exports them.
 */

/** Bytes both producer signatures cover; the block hash is their keccak. */
export function headerSigningBytes(h: BlockHeader): Uint8Array {
  const { height, parentHash, timestamp, producer, txRoot, stateRoot, txCount } = h;
  // `abstain` is signed only where it is set: every other header's bytes are what they always were.
  const abstain = h.abstain === true ? { abstain: true } : {};
  return concatBytes(
    utf8(BLOCK_DOMAIN),
    canonicalBytes({ height, parentHash, timestamp, producer, txRoot, stateRoot, txCount, ...abstain }),
  );
}

export const headerHash = (h: BlockHeader): Hex => keccakHex(headerSigningBytes(h));

/**
 * Headers that verified, by hash, signatures and keys (successes only, the newest
 * VERIFIED_KEPT): a header is checked once however often it arrives — gossiped, then in a sync
 * page, or a branch's headers before and during their import.
 */
const verifiedHeaders = new Set<string>();
const VERIFIED_KEPT = 1_024;

/**
 * Checks the hash and both producer signatures against the producer's bound signing keys
 * (its candidate record in the parent state; reference implementation).
 */
export function verifyHeader(h: SignedBlockHeader, keys: SigningKeys): string | undefined {
  const c = headerCheck(h, keys);
  if (typeof c !== 'object') return c;
  return verdict(c.seen, verifyHybridReference(c.job.msg, c.job.pubs, c.job.sigs)); // never throws
}

/**
 * verifyHeader with the signatures checked by `verifier` (the verify pool: off the calling thread, with the fast
 * verifier that agrees with the reference on every input): for a node importing blocks, whose main thread the
 * reference's ~5 ms per header would hold.
 */
export async function verifyHeaderWith(
  verifier: { verifyMany(jobs: VerifyJob[]): Promise<boolean[]> },
  h: SignedBlockHeader,
  keys: SigningKeys,
): Promise<string | undefined> {
  const c = headerCheck(h, keys);
  if (typeof c !== 'object') return c;
  const [ok] = await verifier.verifyMany([c.job]);
  return verdict(c.seen, ok === true);
}

/** The hash check, then the memo: undefined (verified before), a refusal, or the signature check still to do. */
function headerCheck(h: SignedBlockHeader, keys: SigningKeys): string | undefined | { seen: string; job: VerifyJob } {
  const msg = headerSigningBytes(h);
  if (keccakHex(msg) !== h.hash) return 'block hash does not match header';
  const seen = `${h.hash}${h.signatures.secp256k1}${h.signatures.mldsa44}${keys.secp256k1}${keys.mldsa44}`;
  if (verifiedHeaders.has(seen)) return undefined;
  try {
    const pubs = { secp256k1: fromHex(keys.secp256k1), mldsa44: fromHex(keys.mldsa44) };
    return {
      seen,
      job: { msg, pubs, sigs: { secp256k1: fromHex(h.signatures.secp256k1), mldsa44: fromHex(h.signatures.mldsa44) } },
    };
  } catch {
    return 'invalid block signature';
  }
}

function verdict(seen: string, ok: boolean): string | undefined {
  if (!ok) return 'invalid block signature';
  verifiedHeaders.add(seen);
  if (verifiedHeaders.size > VERIFIED_KEPT) verifiedHeaders.delete(verifiedHeaders.values().next().value!);
  return undefined;
}

const HASH = Type.String({ pattern: '^0x[0-9a-f]{64}$' });

/**
 * A signed block header as blocks carry it (POST /blocks, GET /chain, SLASH_DOUBLE_SIGN
 * evidence): integers, lower-case 0x hex, the producer's two signatures at their lengths.
 */
export const SIGNED_HEADER_SCHEMA = Type.Object(
  {
    height: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    parentHash: HASH,
    timestamp: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    producer: Type.String({ pattern: '^0x[0-9a-f]{40}$' }),
    txRoot: HASH,
    stateRoot: HASH,
    txCount: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    abstain: Type.Optional(Type.Literal(true)),
    hash: HASH,
    signatures: Type.Object(
      {
        secp256k1: Type.String({ pattern: `^0x[0-9a-f]{${2 * SECP_SIG_BYTES}}$` }),
        mldsa44: Type.String({ pattern: `^0x[0-9a-f]{${2 * MLDSA44_SIG_BYTES}}$` }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
