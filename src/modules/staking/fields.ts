import { Type } from '@sinclair/typebox';
import { parseAddress } from '../../crypto/address';
import { SIGNED_HEADER_SCHEMA } from '../../crypto/blockHeader';
import type { Address, SignedBlockHeader } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { addressKeys, check, integerField } from '../tx/fields';
import type { Field, OptionalField } from '../tx/entry';
import { isRecord } from '../../primitives/record';

/** Field kinds of the staking types. */

/** At most this many candidates in one VOTE (TRON's limit). */
export const MAX_VOTE_TARGETS = 30;
const AMOUNT = '^[1-9][0-9]{0,77}$';
/** A compressed (33-byte) or uncompressed (65-byte) secp256k1 public key; an ML-DSA-44 public key is 1,312 bytes. */
const SECP_KEY = '^0x(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$';
const MLDSA_KEY = '^0x[0-9a-fA-F]{2624}$';

/** VOTE's data.votes: candidate (0x or cairn1…) → positive integer string; read with 0x lower-case keys. */
export function votesField(): Field<Record<Address, bigint>, Record<string, bigint | string>> {
  const sdk = (got: string) => `must map candidate addresses to positive integer amounts, got ${got}`;
  return {
    checks: [
      check(
        Type.Record(Type.String(), Type.String({ pattern: AMOUNT })),
        'must map candidate addresses to positive integer strings (base units)',
        sdk,
      ),
      check(
        Type.Record(Type.String(), Type.String(), { maxProperties: MAX_VOTE_TARGETS }),
        `names at most ${MAX_VOTE_TARGETS} candidates`,
        sdk,
      ),
      check(addressKeys(), 'has a key that is not an address (0x… or cairn1…)', sdk),
    ],
    read: (v) => {
      const out: Record<Address, bigint> = {};
      for (const [k, n] of Object.entries(v as Record<string, string>)) {
        const a = parseAddress(k)!;
        out[a] = (out[a] ?? 0n) + BigInt(n);
      }
      return out;
    },
    input: {
      convert: (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
        const out: Record<string, string> = {};
        for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
          const a = parseAddress(k);
          const amount =
            typeof n === 'bigint'
              ? n.toString()
              : typeof n === 'string'
                ? n
                : typeof n === 'number' && Number.isSafeInteger(n)
                  ? String(n)
                  : undefined;
          if (!a || amount === undefined) return undefined;
          out[a] = amount;
        }
        return out;
      },
      refused: sdk,
    },
    doc:
      'object: candidate address (0x or cairn1…) → votes, a positive integer string of base units; replaces the ' +
      'previous allocation ({} clears it)',
  };
}

/** STAKE's optional data.signingKeys: the block-signing public keys a candidate binds. */
export function signingKeysField(
  doc: string,
): OptionalField<{ secp256k1: Hex; mldsa44: Hex } | null, { secp256k1: string; mldsa44: string }> {
  const sdk = (got: string) => `must be {secp256k1, mldsa44} hex public keys, got ${got}`;
  return {
    checks: [
      check(
        Type.Object(
          { secp256k1: Type.String({ pattern: SECP_KEY }), mldsa44: Type.String({ pattern: MLDSA_KEY }) },
          { additionalProperties: false },
        ),
        'must be {secp256k1, mldsa44}: a 33- or 65-byte secp256k1 and a 1,312-byte ML-DSA-44 public key, 0x hex',
        sdk,
      ),
    ],
    optional: true,
    read: (v) =>
      v === undefined
        ? null
        : {
            secp256k1: (v as { secp256k1: string }).secp256k1.toLowerCase() as Hex,
            mldsa44: (v as { mldsa44: string }).mldsa44.toLowerCase() as Hex,
          },
    doc,
  };
}

/** A commission in basis points, 0..10,000. */
export const commissionField = (doc: string): Field<number> =>
  integerField('must be an integer from 0 to 10000 (basis points)', doc, 0, 10_000);

/** An optional commission (absent: the default). */
export function optionalCommissionField(doc: string, fallback: number): OptionalField<number> {
  return { ...commissionField(doc), optional: true, read: (v) => (v === undefined ? fallback : (v as number)) };
}

/** Two signed block headers of one producer: SLASH_DOUBLE_SIGN's evidence. */
export interface DoubleSignEvidence {
  a: SignedBlockHeader;
  b: SignedBlockHeader;
}

/**
 * The evidence in what an operator has at hand: `{a, b}` itself; the node's `double_sign`
 * alert (GET /security/alerts: `details.evidence` holds both headers) or its `details`; or a
 * SLASH_DOUBLE_SIGN data object `{evidence: {a, b}}`. Undefined when it holds none of these.
 */
export function evidenceOf(v: unknown): unknown {
  if (!isRecord(v)) return undefined;
  if ('a' in v || 'b' in v) return v;
  const details = isRecord(v.details) ? v.details : v;
  const e = details.evidence;
  if (Array.isArray(e)) return e.length === 2 ? { a: e[0], b: e[1] } : undefined;
  return isRecord(e) ? e : undefined;
}

/** A long input (a whole alert) prints its beginning only in SDK messages. */
const brief = (got: string): string => (got.length > 120 ? `${got.slice(0, 117)}…` : got);

/** SLASH_DOUBLE_SIGN's data.evidence: two signed block headers (the shape only; `run` checks what they prove). */
export function evidenceField(doc: string): Field<DoubleSignEvidence, unknown> {
  const headers = '{a, b}: two signed block headers';
  return {
    checks: [
      check(
        Type.Object({ a: Type.Object({}), b: Type.Object({}) }, { additionalProperties: false }),
        `must be ${headers}`,
        (got) => `must be ${headers}, got ${brief(got)}`,
      ),
      check(
        Type.Object({ a: SIGNED_HEADER_SCHEMA, b: SIGNED_HEADER_SCHEMA }, { additionalProperties: false }),
        'must hold two signed block headers ' +
          '{height, parentHash, timestamp, producer, txRoot, stateRoot, txCount, hash, signatures: ' +
          '{secp256k1, mldsa44}}: ' +
          'integers (height ≥ 1), lower-case 0x hex, a 64-byte secp256k1 and a 2,420-byte ML-DSA-44 signature',
        (got) => `must hold two signed block headers as blocks carry them, got ${brief(got)}`,
      ),
    ],
    read: (v) => v as DoubleSignEvidence,
    input: {
      convert: evidenceOf,
      refused: (got) => `must be ${headers}, a double_sign alert or its details, got ${brief(got)}`,
    },
    doc,
  };
}
