import { Type } from '@sinclair/typebox';
import type { CommitteeMember } from '../../protocol/bridge';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import type { Field, OptionalField } from '../tx/entry';
import { check, txIdField } from '../tx/fields';
import type { MemberSignature } from './committee';
import type { Asset } from './pool';

/** Data fields of the bridge types. */

export const CHAIN_NAME_RE = /^[a-z][a-z0-9-]{1,31}$/;
/** A transaction id on another chain: hex, base58, base64url or similar, no separators of Cairn's keys. */
export const FOREIGN_TX_RE = /^[0-9A-Za-z_.:+=-]{1,128}$/;
const FOREIGN_ADDRESS_RE = /^[0-9A-Za-z_.:+=-]{1,128}$/;

const pattern = (re: RegExp, reason: string, doc: string): Field<string> => ({
  checks: [check(Type.String({ pattern: re.source }), reason, (got) => `${reason}, got ${got}`)],
  read: (v) => v as string,
  doc,
});

export const chainField = (doc: string) =>
  pattern(CHAIN_NAME_RE, 'must be a chain name: a lower-case letter, then 1 to 31 of a-z, 0-9 and "-"', doc);
export const foreignTxField = (doc: string) =>
  pattern(FOREIGN_TX_RE, 'must be 1 to 128 characters of 0-9, A-Z, a-z and _ . : + = -', doc);
export const foreignAddressField = (doc: string) =>
  pattern(FOREIGN_ADDRESS_RE, 'must be 1 to 128 characters of 0-9, A-Z, a-z and _ . : + = -', doc);

export const transferIdField = (doc = 'the transfer (its BRIDGE_OUT transaction id)'): Field<Hex, string> =>
  txIdField('a transfer', 'BRIDGE_OUT', doc);

/** BRIDGE_IN data.asset: "native" or a token id. */
export function assetField(doc: string): Field<Asset, string> {
  const reason = 'must be "native" or a token id (0x + 40 lower-case hex digits)';
  return {
    checks: [
      check(
        Type.Union([Type.Literal('native'), Type.String({ pattern: '^0x[0-9a-f]{40}$' })]),
        reason,
        (got) => `${reason}, got ${got}`,
      ),
    ],
    read: (v) => v as Asset,
    input: {
      convert: (v) => (typeof v === 'string' ? (v === 'native' ? v : v.toLowerCase()) : undefined),
      refused: (got) => `${reason}, got ${got}`,
    },
    doc,
  };
}

const HEX_BYTES = (n: number | readonly number[]) => {
  const ns = typeof n === 'number' ? [n] : n;
  return `^0x(${ns.map((k) => `[0-9a-fA-F]{${k * 2}}`).join('|')})$`;
};
const ADDRESS = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const lowerHex = (h: string) => h.toLowerCase() as Hex;

/** data.signatures: the committee members' hybrid signatures of the digest. */
export function signaturesField(doc: string): Field<MemberSignature[], MemberSignature[]> {
  const reason =
    'must be a list of 1 to 16 ' +
    '{signer: 0x address, secp256k1: 0x + 64-byte signature, mldsa44: 0x + 2420-byte signature}';
  const schema = Type.Array(
    Type.Object(
      {
        signer: ADDRESS,
        secp256k1: Type.String({ pattern: HEX_BYTES(64) }),
        mldsa44: Type.String({ pattern: HEX_BYTES(2420) }),
      },
      { additionalProperties: false },
    ),
    { minItems: 1, maxItems: 16 },
  );
  return {
    checks: [check(schema, reason, (got) => `${reason}, got ${got.length > 80 ? `${got.slice(0, 80)}…` : got}`)],
    read: (v) =>
      (v as MemberSignature[]).map((s) => ({
        signer: lowerHex(s.signer) as Address,
        secp256k1: lowerHex(s.secp256k1),
        mldsa44: lowerHex(s.mldsa44),
      })),
    doc,
  };
}

const MEMBER = Type.Object(
  {
    address: ADDRESS,
    secp256k1: Type.String({ pattern: HEX_BYTES([33, 65]) }),
    mldsa44: Type.String({ pattern: HEX_BYTES(1312) }),
  },
  { additionalProperties: false },
);
const readMembers = (v: unknown): CommitteeMember[] =>
  (v as CommitteeMember[]).map((m) => ({
    address: lowerHex(m.address) as Address,
    secp256k1: lowerHex(m.secp256k1),
    mldsa44: lowerHex(m.mldsa44),
  }));
const MEMBERS_REASON =
  'must be a list of 1 to 7 ' +
  '{address: 0x address, secp256k1: 0x + 33- or 65-byte public key, mldsa44: 0x + 1312-byte public key}';
const cut = (got: string) => (got.length > 80 ? `${got.slice(0, 80)}…` : got);

/** BRIDGE_COMMITTEE_UPDATE data.members. */
export function membersField(doc: string): Field<CommitteeMember[], CommitteeMember[]> {
  return {
    checks: [
      check(
        Type.Array(MEMBER, { minItems: 1, maxItems: 7 }),
        MEMBERS_REASON,
        (got) => `${MEMBERS_REASON}, got ${cut(got)}`,
      ),
    ],
    read: readMembers,
    doc,
  };
}

/** A committee's threshold (its range against the members is a data rule). */
export function thresholdField(doc: string): Field<number> {
  const reason = 'must be an integer from 1 to 7';
  return {
    checks: [check(Type.Integer({ minimum: 1, maximum: 7 }), reason, (got) => `${reason}, got ${got}`)],
    read: (v) => v as number,
    doc,
  };
}

/** GOV_PROPOSE data.committee: {members, threshold}, a bridge committee to install. */
export function committeeField(
  doc: string,
): OptionalField<
  { members: CommitteeMember[]; threshold: number } | null,
  { members: CommitteeMember[]; threshold: number }
> {
  const reason = `must be {members: [...], threshold: integer}; members ${MEMBERS_REASON.replace('must be ', '')}`;
  return {
    checks: [
      check(
        Type.Object(
          {
            members: Type.Array(MEMBER, { minItems: 1, maxItems: 7 }),
            threshold: Type.Integer({ minimum: 1, maximum: 7 }),
          },
          { additionalProperties: false },
        ),
        reason,
        (got) => `${reason}, got ${cut(got)}`,
      ),
    ],
    optional: true,
    read: (v) =>
      v === undefined
        ? null
        : {
            members: readMembers((v as { members: unknown }).members),
            threshold: (v as { threshold: number }).threshold,
          },
    doc,
  };
}
