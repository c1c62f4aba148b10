import { OPTIONS, ZERO_TALLY, type Tally, type VoteOption } from './options';
import type { ExecState } from '../../protocol/execState';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import { getCandidate, getVoter } from '../staking/records';

/**
 * Voting power (docs/PROTOCOL.md "Governance"): a voter's power is its own staked coins. A
 * validator candidate that votes also carries the votes its backers allocated to it — except
 * the part of backers who voted on the proposal themselves (their own vote wins). The tally
 * is recounted from the current stakes and allocations after every GOV_VOTE and once more at
 * the end of the last voting block, so it never depends on the order of votes.
 *   gov/voters/<proposal>        → Address[]  who voted, sorted
 *   gov/vote/<proposal>/<voter>  → VoteOption its latest choice
 */
export const votersKey = (proposal: string): string => recordKey('govVoters', proposal);
export const voteKey = (proposal: string, voter: Address): string => recordKey('govVote', proposal, voter);

export const getVoters = async (s: ExecState, proposal: string): Promise<Address[]> =>
  (await s.getRecord<Address[]>(votersKey(proposal))) ?? [];

/**
 * The power of `voter` now, given every direct voter's vote allocation (`allocations`, its
 * own included): its stake, plus — for a candidate — the votes received from backers who did
 * not vote themselves (its own allocation is already in its stake).
 */
export async function powerOf(
  s: ExecState,
  voter: Address,
  allocations: ReadonlyMap<Address, Record<Address, string>>,
): Promise<bigint> {
  const own = (await s.getAccount(voter))?.staked ?? 0n;
  const cand = await getCandidate(s, voter);
  if (!cand) return own;
  let inherited = BigInt(cand.received);
  for (const votes of allocations.values()) inherited -= BigInt(votes[voter] ?? '0');
  return own + (inherited > 0n ? inherited : 0n);
}

/** The tally of `proposal` from its recorded votes and the stakes as they are now. */
export async function recount(s: ExecState, proposal: string): Promise<{ tally: Tally; voters: number }> {
  const voters = await getVoters(s, proposal);
  const allocations = new Map<Address, Record<Address, string>>();
  for (const v of voters) allocations.set(v, (await getVoter(s, v)).votes);
  const sums: Record<VoteOption, bigint> = { yes: 0n, no: 0n, abstain: 0n, veto: 0n };
  for (const v of voters) {
    const option = (await s.getRecord<VoteOption>(voteKey(proposal, v)))!;
    sums[option] += await powerOf(s, v, allocations);
  }
  const tally = { ...ZERO_TALLY };
  for (const k of OPTIONS) tally[k] = sums[k].toString();
  return { tally, voters: voters.length };
}

/**
 * Whether `voter` may vote at all: it has stake of its own, or votes received as a candidate (GOV_VOTE's check, and
 * `?for=`'s).
 */
export async function hasVotingPower(s: ExecState, voter: Address): Promise<boolean> {
  const acc = await s.getAccount(voter);
  return (acc?.staked ?? 0n) > 0n || BigInt((await getCandidate(s, voter))?.received ?? '0') > 0n;
}
