import type { Hex } from '../primitives/hex';
import type { ExecState } from './execState';
import { recordKey } from './records';
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

/** Why `members`/`threshold` cannot be a committee (shape only: the address-to-key check needs crypto/), or undefined. */
export function committeeRefusal(members: readonly CommitteeMember[], threshold: number): string | undefined {
  if (members.length === 0 || members.length > MAX_COMMITTEE_MEMBERS) return `a bridge committee has 1 to ${MAX_COMMITTEE_MEMBERS} members, not ${members.length}`;
  if (new Set(members.map((m) => m.address)).size !== members.length) return 'a bridge committee lists each member once';
  for (const m of members) {
    if (!HEX.test(m.secp256k1) || ![33, 65].includes(hexBytes(m.secp256k1))) return `member ${m.address}: secp256k1 must be 0x + a 33- or 65-byte public key in lower-case hex`;
    if (!HEX.test(m.mldsa44) || hexBytes(m.mldsa44) !== 1312) return `member ${m.address}: mldsa44 must be 0x + a 1312-byte ML-DSA-44 public key in lower-case hex`;
  }
  if (!Number.isSafeInteger(threshold) || threshold * 2 <= members.length || threshold > members.length) {
    return `the threshold must be more than half the ${members.length} members and at most all of them, not ${threshold}`;
  }
  return undefined;
}

const COMMITTEE_KEY = recordKey('bridge', 'committee');
export const getCommittee = (s: ExecState): Promise<CommitteeRecord | undefined> => s.getRecord<CommitteeRecord>(COMMITTEE_KEY);

/** Puts a new committee in office from `height` (the next epoch). The caller checked it (committeeRefusal). */
export async function installCommittee(s: ExecState, members: readonly CommitteeMember[], threshold: number, height: number): Promise<CommitteeRecord> {
  const epoch = ((await getCommittee(s))?.epoch ?? 0) + 1;
  const rec: CommitteeRecord = { epoch, members: [...members].sort((a, b) => (a.address < b.address ? -1 : 1)), threshold, since: height };
  await s.putRecord(COMMITTEE_KEY, rec);
  return rec;
}
