import { addressFromPublicKey } from '../../crypto/address';
import { keccak256 } from '../../crypto/hash';
import { signHybrid, verifyHybridReference, type VerifyJob } from '../../crypto/hybrid';
import type { HybridKeys } from '../../crypto/keys';
import { canonicalBytes } from '../../primitives/canonical';
import { fromHex, toHex, utf8, type Hex } from '../../primitives/hex';
import { committeeRefusal, type CommitteeMember, type CommitteeRecord } from '../../protocol/bridge';
import { CHAIN_ID } from '../../protocol/params';
import type { Refusal } from '../../protocol/refusal';
import type { Address } from '../../protocol/types';
import { BRIDGE } from './errors';

/**
 * What the bridge committee signs, and the quorum check. Every digest is
 * keccak-256(UTF-8 domain tag ‖ UTF-8 RFC 8785 canonical JSON of the message), the chain id
 * inside the message, so a signature made for one purpose or one chain is worthless for
 * another. Members sign the 32-byte digest with both halves of Cairn's hybrid scheme.
 */
export const INBOUND_TAG = 'cairn/bridge/in/v1';
export const COMMITTEE_TAG = 'cairn/bridge/committee/v1';

/** An inbound deposit as the committee attests it (amount in base units, as a string). */
export interface InboundMessage {
  sourceChain: string;
  sourceTx: string;
  /** "native" or a token id. */
  asset: string;
  to: Address;
  amount: string;
}

/** A committee as its predecessor attests it: `epoch` is the epoch it will have. */
export interface CommitteeMessage {
  epoch: number;
  members: CommitteeMember[];
  threshold: number;
}

/** One member's hybrid signature of a digest (hex). */
export interface MemberSignature {
  signer: Address;
  secp256k1: Hex;
  mldsa44: Hex;
}

/**
 * `chainId`: the Cairn chain the message is for (its chain specification's id): a quorum signed for one chain is
 * worthless on another.
 */
const digest = (tag: string, msg: object, chainId: number): Uint8Array => {
  const body = canonicalBytes({ chainId, ...msg });
  const t = utf8(tag);
  const all = new Uint8Array(t.length + body.length);
  all.set(t);
  all.set(body, t.length);
  return keccak256(all);
};

/**
 * Addresses, token ids and keys are signed in lower case, as the node reads them (an SDK caller may pass checksum
 * case).
 */
const lower = <T extends string>(s: T): T => s.toLowerCase() as T;

export const inboundDigest = (m: InboundMessage, chainId: number = CHAIN_ID): Uint8Array =>
  digest(
    INBOUND_TAG,
    {
      sourceChain: m.sourceChain,
      sourceTx: m.sourceTx,
      asset: m.asset === 'native' ? m.asset : lower(m.asset),
      to: lower(m.to),
      amount: m.amount,
    },
    chainId,
  );

/** Only each member's address and keys are signed, whatever else the objects carry (GET /bridge adds `native`). */
export const committeeDigest = (m: CommitteeMessage, chainId: number = CHAIN_ID): Uint8Array =>
  digest(COMMITTEE_TAG, { epoch: m.epoch, members: sortMembers(m.members), threshold: m.threshold }, chainId);

export const sortMembers = (ms: readonly CommitteeMember[]): CommitteeMember[] =>
  ms
    .map((x) => ({ address: lower(x.address), secp256k1: lower(x.secp256k1), mldsa44: lower(x.mldsa44) }))
    .sort((a, b) => (a.address < b.address ? -1 : 1));

/** A member's signature of `digest` (relayers and tests; the SDK re-exports it). */
export function signAsMember(keys: HybridKeys, digestBytes: Uint8Array): MemberSignature {
  const s = signHybrid(keys, digestBytes);
  return { signer: keys.address, secp256k1: toHex(s.secp256k1), mldsa44: toHex(s.mldsa44) };
}

/** The member entry of a key pair: what a committee proposal lists. */
export const memberOf = (keys: HybridKeys): CommitteeMember => ({
  address: keys.address,
  secp256k1: toHex(keys.secp256k1.publicKey),
  mldsa44: toHex(keys.mldsa44.publicKey),
});

/**
 * What a quorum check verifies: each member's first signature in the list, with the member's keys (non-members
 * ignored).
 */
function quorumJobs(
  c: CommitteeRecord,
  digestBytes: Uint8Array,
  sigs: readonly MemberSignature[],
): { signer: Address; job: VerifyJob }[] {
  const byAddress = new Map(c.members.map((m) => [m.address, m]));
  const tried = new Set<Address>();
  const jobs: { signer: Address; job: VerifyJob }[] = [];
  // Each member's first signature is the only one checked: repeating a bad signature costs
  // the node nothing more (at most one verification per member, seven at most).
  for (const s of sigs) {
    const m = byAddress.get(s.signer);
    if (!m || tried.has(s.signer)) continue;
    tried.add(s.signer);
    jobs.push({
      signer: s.signer,
      job: {
        msg: digestBytes,
        pubs: { secp256k1: fromHex(m.secp256k1), mldsa44: fromHex(m.mldsa44) },
        sigs: { secp256k1: fromHex(s.secp256k1), mldsa44: fromHex(s.mldsa44) },
      },
    });
  }
  return jobs;
}

const quorumVerdict = (c: CommitteeRecord, valid: number, what: string): Refusal | undefined =>
  valid >= c.threshold
    ? undefined
    : BRIDGE.BRIDGE_QUORUM_MISSING({ what, valid, threshold: c.threshold, epoch: c.epoch });

/**
 * Undefined when at least `threshold` distinct members signed `digest` with both halves of the
 * hybrid scheme; otherwise the refusal. A signature by a non-member, any but a member's first,
 * or one whose ML-DSA-44 half is missing or wrong (a classical-only signature) does not count.
 * Block execution uses the reference verifier (deterministic, no workers).
 */
export function quorumRefusal(
  c: CommitteeRecord,
  digestBytes: Uint8Array,
  sigs: readonly MemberSignature[],
  what: string,
): Refusal | undefined {
  const valid = quorumJobs(c, digestBytes, sigs).filter(({ job }) =>
    verifyHybridReference(job.msg, job.pubs, job.sigs),
  ).length;
  return quorumVerdict(c, valid, what);
}

/** The same check with another verifier (admission: the worker pool, concurrently, off the main thread). */
export async function quorumRefusalWith(
  c: CommitteeRecord,
  digestBytes: Uint8Array,
  sigs: readonly MemberSignature[],
  what: string,
  verify: (job: VerifyJob) => Promise<boolean>,
): Promise<Refusal | undefined> {
  const results = await Promise.all(quorumJobs(c, digestBytes, sigs).map(({ job }) => verify(job)));
  return quorumVerdict(c, results.filter(Boolean).length, what);
}

/** committeeRefusal, plus: each address is the one its secp256k1 key controls. */
export function fullCommitteeRefusal(members: readonly CommitteeMember[], threshold: number): Refusal | undefined {
  const shape = committeeRefusal(members, threshold);
  if (shape) return shape;
  for (const m of members) {
    let derived: Address;
    try {
      derived = addressFromPublicKey(fromHex(m.secp256k1));
    } catch {
      return BRIDGE.BRIDGE_MEMBER_SECP256K1_NOT_ON_CURVE({ member: m.address });
    }
    if (derived !== m.address) return BRIDGE.BRIDGE_MEMBER_ADDRESS_MISMATCH({ member: m.address, derived });
  }
  return undefined;
}
