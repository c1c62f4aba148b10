import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/** Why STAKE, UNSTAKE, VOTE, SET_COMMISSION, CLAIM_VOTER_REWARD and SLASH_DOUBLE_SIGN are refused. */
export const STAKING = refusals('staking', {
  /** A candidate jailed for double signing is jailed for good: it may not stand again. */
  STAKING_SLASHED_FOR_DOUBLE_SIGN: (_m: { address: Address }) =>
    'the sender was slashed for double signing and cannot stand again',
  STAKING_ALREADY_CANDIDATE: (_m: { address: Address }) => 'the sender is already a validator candidate',
  /** The candidate's own stake after this STAKE is below MIN_CANDIDATE_STAKE. */
  STAKING_CANDIDATE_STAKE_TOO_LOW: (m: { address: Address; min: bigint; staked: bigint }) =>
    `a validator candidate needs at least ${m.min} base units of own stake (MIN_CANDIDATE_STAKE); it would ` +
    `have ${m.staked}`,
  /** Neither data.signingKeys nor the transaction's own keys (an eth envelope has none) give block-signing keys. */
  STAKING_SIGNING_KEYS_MISSING: (_m: { address: Address }) => 'a validator candidate must bind block-signing keys',
  STAKING_INSUFFICIENT_STAKE: (m: { address: Address; amount: bigint; staked: bigint }) =>
    `insufficient stake: ${m.staked} base units staked`,
  /** UNSTAKE would take stake that the sender's VOTE allocation uses. */
  STAKING_STAKE_BACKS_VOTES: (m: { address: Address; amount: bigint; allocated: bigint }) =>
    `stake backs votes: ${m.allocated} base units are allocated by VOTE; reduce them first`,
  /** UNSTAKE would take stake whose energy capacity is lent by DELEGATE_RESOURCE. */
  STAKING_STAKE_BACKS_DELEGATIONS: (m: { address: Address; amount: bigint; lent: bigint }) =>
    `stake backs resource delegations: ${m.lent} base units are lent by DELEGATE_RESOURCE; undelegate first`,
  /** The sender is the only eligible candidate and UNSTAKE would take it below MIN_CANDIDATE_STAKE. */
  STAKING_LAST_ELIGIBLE_CANDIDATE: (_m: { address: Address; amount: bigint }) =>
    'UNSTAKE would leave the chain without an eligible validator candidate',
  STAKING_VOTES_EXCEED_STAKE: (m: { address: Address; total: bigint; staked: bigint }) =>
    `VOTE allocates ${m.total} base units but the sender has ${m.staked} staked`,
  STAKING_VOTE_TARGET_NOT_CANDIDATE: (m: { target: Address }) => `VOTE target ${m.target} is not a validator candidate`,
  /** The sender (SET_COMMISSION) or the accused producer (SLASH_DOUBLE_SIGN) is not a validator candidate. */
  STAKING_NOT_CANDIDATE: (m: { role: 'sender' | 'producer'; address: Address }) =>
    `the ${m.role} is not a validator candidate`,
  STAKING_NO_VOTER_REWARD: (_m: { address: Address }) => 'no voter reward to claim',
  STAKING_EVIDENCE_PRODUCERS_DIFFER: (_m: { a: Address; b: Address }) => 'the two headers have different producers',
  STAKING_EVIDENCE_HEIGHTS_DIFFER: (_m: { a: number; b: number }) => 'the two headers are at different heights',
  STAKING_EVIDENCE_SAME_BLOCK: (_m: { hash: Hex }) => 'the two headers have the same hash: they are one block, not two',
  /** A header's stated hash is not the hash of its contents. */
  STAKING_EVIDENCE_HASH_MISMATCH: (m: { header: 'a' | 'b'; hash: Hex }) =>
    `header ${m.header}'s hash does not match its contents`,
  /** This offence (producer and height) has its nullifier already: one double sign is slashed once. */
  STAKING_ALREADY_SLASHED: (_m: { producer: Address; height: number }) =>
    'this double sign (producer and height) was already slashed',
  STAKING_EVIDENCE_BAD_SIGNATURE: (m: { header: 'a' | 'b'; producer: Address }) =>
    `header ${m.header}'s signatures do not verify against the producer's block-signing keys`,
});
