import { credit } from '../../protocol/accounts';
import { bps } from '../../protocol/governable';
import { REWARD_POOL_ADDRESS } from '../../protocol/params';
import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import {
  getCandidate,
  putCandidate,
  REWARD_SCALE,
  sortedKeys,
  type CandidateRecord,
  type VoterRecord,
} from './records';

/**
 * Voter rewards by accumulator (the F1 idea, as Cosmos distributes): each candidate keeps
 * `accPerVote`, the reward one vote has earned since registration (× REWARD_SCALE). A voter
 * is owed votes × (accPerVote − its debt) / REWARD_SCALE for each candidate it backs; settling
 * moves that into `claimable` and resets the debt. A block's voter share is minted into the
 * reward pool account; rounding leaves dust in the pool, never creates coins.
 */

/** What `v` is owed by `candidate` since its last settlement. */
export function pendingFrom(v: VoterRecord, candidate: Address, accPerVote: bigint): bigint {
  const votes = BigInt(v.votes[candidate] ?? '0');
  if (votes === 0n) return 0n;
  return (votes * (accPerVote - BigInt(v.debts[candidate] ?? '0'))) / REWARD_SCALE;
}

/** Settles everything `v` is owed into `claimable` and brings its debts up to date (mutates `v`). */
export async function settle(s: ExecState, v: VoterRecord): Promise<void> {
  let claimable = BigInt(v.claimable);
  for (const c of sortedKeys(v.votes)) {
    const cand = await getCandidate(s, c);
    const acc = BigInt(cand?.accPerVote ?? '0');
    claimable += pendingFrom(v, c, acc);
    v.debts[c] = acc.toString();
  }
  v.claimable = claimable.toString();
}

/** Rewards `v` could claim now (settled plus pending), without changing anything. */
export async function claimableNow(s: ExecState, v: VoterRecord): Promise<bigint> {
  let total = BigInt(v.claimable);
  for (const c of sortedKeys(v.votes))
    total += pendingFrom(v, c, BigInt((await getCandidate(s, c))?.accPerVote ?? '0'));
  return total;
}

/** A candidate's commission at `height` (a pending change counts from its height). */
export const commissionAt = (c: CandidateRecord, height: number): number =>
  c.pendingCommission && c.pendingCommission.at <= height ? c.pendingCommission.bps : c.commissionBps;

/**
 * Pays one block's reward for `producer`: its commission (all of it when nobody votes for it,
 * or when it is not a candidate) to the producer, the rest to its voters' accumulator.
 */
export async function payBlockReward(s: ExecState, producer: Address, reward: bigint, height: number): Promise<void> {
  if (reward === 0n) return;
  const cand = await getCandidate(s, producer);
  if (cand?.pendingCommission && cand.pendingCommission.at <= height) {
    // A SET_COMMISSION takes effect with the producer's first block at or after its height.
    cand.commissionBps = cand.pendingCommission.bps;
    cand.pendingCommission = null;
    await putCandidate(s, cand);
  }
  const received = BigInt(cand?.received ?? '0');
  if (!cand || received === 0n) {
    await credit(s, producer, reward, height);
    return;
  }
  const commission = bps(reward, BigInt(cand.commissionBps));
  const voters = reward - commission;
  if (commission > 0n) await credit(s, producer, commission, height);
  if (voters > 0n) {
    await credit(s, REWARD_POOL_ADDRESS, voters, height);
    cand.accPerVote = (BigInt(cand.accPerVote) + (voters * REWARD_SCALE) / received).toString();
    await putCandidate(s, cand);
  }
}
