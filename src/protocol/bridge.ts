import type { Hex } from '../primitives/hex';
import type { ExecState } from './execState';
import { recordKey } from './records';
import { refusals, type Refusal } from './refusal';
import type { Address } from './types';

/**
 * The bridge committee and the per-asset pools (modules/bridge). The committee lives here,
 * not in modules/, because a governance proposal installs it (modules/governance/machine.ts may import
 * protocol/ only); its signatures are checked in modules/bridge/committee.ts.
 */

/** One member: its account address and both public keys of Cairn's hybrid scheme (hex). */
export interface CommitteeMember {
  address: Address;
  /** secp256k1 public key, 33 (compressed) or 65 bytes. */
  secp256k1: Hex;
  /** ML-DSA-44 public key, 1312 bytes. */
  mldsa44: Hex;
}

export interface CommitteeRecord {
  /** 1 for the committee a proposal created; +1 per rotation (BRIDGE_COMMITTEE_UPDATE or a later proposal). */
  epoch: number;
  /** Sorted by address. */
  members: CommitteeMember[];
  /** Distinct member signatures needed: more than half the members, at most all of them. */
  threshold: number;
  /** Height the committee took office. */
  since: number;
}

/**
 * At most 7 members: a rotation carries the new members' keys (1312-byte ML-DSA-44 keys) and
 * up to `threshold` hybrid signatures (2420-byte ML-DSA-44 signatures), hex-encoded inside the
 * transaction's data, which is bounded at 64 KiB; 7 of each fit with room to spare.
 */
export const MAX_COMMITTEE_MEMBERS = 7;

const HEX = /^0x([0-9a-f]{2})*$/;
const hexBytes = (h: string) => (h.length - 2) / 2;

/**
 * The bridge module's refusals of a committee's shape (here, not in modules/bridge/errors.ts:
 * governance installs committees and protocol/ may not import modules/).
 */
export const COMMITTEE = refusals('bridge', {
  BRIDGE_COMMITTEE_SIZE: (m: { members: number; max: number }) =>
    `a bridge committee has 1 to ${m.max} members, not ${m.members}`,
  BRIDGE_COMMITTEE_DUPLICATE_MEMBER: (_: { member: Address }) => 'a bridge committee lists each member once',
  BRIDGE_MEMBER_SECP256K1_MALFORMED: (m: { member: Address }) =>
    `member ${m.member}: secp256k1 must be 0x + a 33- or 65-byte public key in lower-case hex`,
  BRIDGE_MEMBER_MLDSA44_MALFORMED: (m: { member: Address }) =>
    `member ${m.member}: mldsa44 must be 0x + a 1312-byte ML-DSA-44 public key in lower-case hex`,
  /** Not more than half the members, or more than all of them. */
  BRIDGE_COMMITTEE_THRESHOLD: (m: { members: number; threshold: number }) =>
    `the threshold must be more than half the ${m.members} members and at most all of them, not ${m.threshold}`,
});

/**
 * Why `members`/`threshold` cannot be a committee (shape only: the address-to-key check needs crypto/), or undefined.
 */
export function committeeRefusal(members: readonly CommitteeMember[], threshold: number): Refusal | undefined {
  if (members.length === 0 || members.length > MAX_COMMITTEE_MEMBERS)
    return COMMITTEE.BRIDGE_COMMITTEE_SIZE({ members: members.length, max: MAX_COMMITTEE_MEMBERS });
  const seen = new Set<Address>();
  for (const m of members) {
    if (seen.has(m.address)) return COMMITTEE.BRIDGE_COMMITTEE_DUPLICATE_MEMBER({ member: m.address });
    seen.add(m.address);
  }
  for (const m of members) {
    if (!HEX.test(m.secp256k1) || ![33, 65].includes(hexBytes(m.secp256k1)))
      return COMMITTEE.BRIDGE_MEMBER_SECP256K1_MALFORMED({ member: m.address });
    if (!HEX.test(m.mldsa44) || hexBytes(m.mldsa44) !== 1312)
      return COMMITTEE.BRIDGE_MEMBER_MLDSA44_MALFORMED({ member: m.address });
  }
  if (!Number.isSafeInteger(threshold) || threshold * 2 <= members.length || threshold > members.length) {
    return COMMITTEE.BRIDGE_COMMITTEE_THRESHOLD({ members: members.length, threshold });
  }
  return undefined;
}

const COMMITTEE_KEY = recordKey('bridge', 'committee');
export const getCommittee = (s: ExecState): Promise<CommitteeRecord | undefined> =>
  s.getRecord<CommitteeRecord>(COMMITTEE_KEY);

/** Puts a new committee in office from `height` (the next epoch). The caller checked it (committeeRefusal). */
export async function installCommittee(
  s: ExecState,
  members: readonly CommitteeMember[],
  threshold: number,
  height: number,
): Promise<CommitteeRecord> {
  const epoch = ((await getCommittee(s))?.epoch ?? 0) + 1;
  const rec: CommitteeRecord = {
    epoch,
    members: [...members].sort((a, b) => (a.address < b.address ? -1 : 1)),
    threshold,
    since: height,
  };
  await s.putRecord(COMMITTEE_KEY, rec);
  return rec;
}
