import type { ExecState } from '../../protocol/execState';
import { recordKey, RECORD_PREFIX } from '../../protocol/records';
import type { Address, SigningKeys } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';

/**
 * Staking state, as records in the authenticated state (covered by the state root).
 * Amounts are integer strings. Maps are iterated in sorted key order only.
 *   stk/cand/<addr>      → CandidateRecord      a registered validator candidate
 *   stk/candidates       → Address[]            every candidate, sorted (elections walk it)
 *   stk/voter/<addr>     → VoterRecord          a staker's vote allocation and reward bookkeeping
 *   stk/unb/<addr>       → UnbondingEntry[]     coins of UNSTAKEs waiting to mature
 *   stk/due/<height>     → Address[]            accounts with an entry maturing at that height
 *   consensus/validators → ValidatorSet         the elected active set and standby bank
 *   consensus/schedule   → ScheduleRecord       the set in force for slots and finality (schedule.ts)
 *
 * An account's own stake is `AccountState.staked`. Each staked coin counts once in an
 * election: for the candidate it is allocated to by VOTE, or, unallocated, for its owner if
 * the owner is a candidate. So a candidate's weight = its staked − the votes it allocated +
 * the votes it received (its own votes for itself included).
 */
export interface CandidateRecord {
  address: Address;
  /** The block-signing keys the candidate bound (hex public keys). */
  signingKeys: { secp256k1: Hex; mldsa44: Hex };
  /** Share of its block rewards the producer keeps, in basis points. */
  commissionBps: number;
  /** A SET_COMMISSION waiting for its height. */
  pendingCommission: { bps: number; at: number } | null;
  /** Votes allocated to it by every voter (itself included): the base of its voters' rewards. */
  received: string;
  /** Reward per vote accumulated so far, scaled by REWARD_SCALE. */
  accPerVote: string;
  registeredAt: number;
  /** Out of elections since `at` (modules/staking/jail.ts); absent or null: free to stand. */
  jailed?: Jail | null;
}

/**
 * Why and since when a candidate is jailed. Downtime is lifted by asking back in (STAKE with candidate); double signing
 * is for good.
 */
export interface Jail {
  at: number;
  reason: 'downtime' | 'double-sign';
}

export interface VoterRecord {
  /** Candidate → votes (sum ≤ the voter's staked). */
  votes: Record<Address, string>;
  /** Sum of `votes`. */
  total: string;
  /** Candidate → its accPerVote when this voter's rewards were last settled. */
  debts: Record<Address, string>;
  /** Settled rewards not yet claimed (held by the reward pool). */
  claimable: string;
}

export interface UnbondingEntry {
  amount: string;
  matures: number;
}

/** consensus/validators. `active` in election order (weight, then address); `bank` behind it. */
export interface ValidatorSet {
  active: Address[];
  bank: Address[];
  /** Epoch number of the election that made this set (0: genesis). */
  epoch: number;
  electedAt: number;
}

export const REWARD_SCALE = 10n ** 18n;

export const candidateKey = (a: Address): string => recordKey('candidate', a);
export const voterKey = (a: Address): string => recordKey('voter', a);
export const unbondingKey = (a: Address): string => recordKey('unbonding', a);
export const unbondingDueKey = (h: number): string => recordKey('unbondingDue', h);
export const VALIDATORS_KEY = RECORD_PREFIX.validators;
export const CANDIDATES_KEY = RECORD_PREFIX.candidates;

export const getCandidate = (s: ExecState, a: Address): Promise<CandidateRecord | undefined> =>
  s.getRecord<CandidateRecord>(candidateKey(a));
/**
 * The block-signing keys a producer bound when it stood for election (genesis validators: in the chain specification);
 * undefined: none.
 */
export async function producerKeysOf(s: ExecState, producer: Address): Promise<SigningKeys | undefined> {
  const keys = (await getCandidate(s, producer))?.signingKeys;
  return keys && keys.secp256k1 !== '0x' ? keys : undefined;
}
export const putCandidate = (s: ExecState, c: CandidateRecord): Promise<void> =>
  s.putRecord(candidateKey(c.address), c);

export const emptyVoter = (): VoterRecord => ({ votes: {}, total: '0', debts: {}, claimable: '0' });
export const getVoter = async (s: ExecState, a: Address): Promise<VoterRecord> =>
  (await s.getRecord<VoterRecord>(voterKey(a))) ?? emptyVoter();

/** Stores a voter record, or deletes it when it holds nothing. */
export async function putVoter(s: ExecState, a: Address, v: VoterRecord): Promise<void> {
  if (v.total === '0' && v.claimable === '0' && Object.keys(v.votes).length === 0) await s.deleteRecord(voterKey(a));
  else await s.putRecord(voterKey(a), v);
}

export const getCandidates = async (s: ExecState): Promise<Address[]> =>
  (await s.getRecord<Address[]>(CANDIDATES_KEY)) ?? [];

export async function getValidatorSet(s: ExecState): Promise<ValidatorSet> {
  const v = await s.getRecord<Partial<ValidatorSet> & { active: Address[] }>(VALIDATORS_KEY);
  return { active: v?.active ?? [], bank: v?.bank ?? [], epoch: v?.epoch ?? 0, electedAt: v?.electedAt ?? 0 };
}

export const sortedKeys = <V>(m: Record<string, V>): Address[] => (Object.keys(m) as Address[]).sort();
