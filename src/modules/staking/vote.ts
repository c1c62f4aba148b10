import { credit, debit } from '../../protocol/accounts';
import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { REWARD_POOL_ADDRESS } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import { defineTx } from '../tx/define';
import { commissionField, votesField } from './fields';
import { getCandidate, getVoter, putCandidate, putVoter, sortedKeys } from './records';
import { settle } from './rewards';

/**
 * VOTE: allocates the sender's stake to validator candidates, replacing its previous
 * allocation. The sum may not exceed its staked coins; every target must be a candidate.
 * Rewards earned under the old allocation are settled first (nothing is lost by re-voting).
 */
export const vote = defineTx({
  type: 'VOTE',
  module: 'staking',
  summary: "allocates the sender's stake to validator candidates (data.votes), replacing its previous allocation",
  to: { kind: 'none' },
  fields: { votes: votesField('candidate → votes') },
  energy: 300n,
  async run({ state, sender }, { votes }) {
    const acc = await state.getAccount(sender);
    const total = Object.values(votes).reduce((n, v) => n + v, 0n);
    const staked = acc?.staked ?? 0n;
    if (total > staked) throw new TxFailure(`VOTE allocates ${total} base units but the sender has ${staked} staked`);
    const targets = sortedKeys(votes);
    for (const c of targets) if (!(await getCandidate(state, c))) throw new TxFailure(`VOTE target ${c} is not a validator candidate`);

    const v = await getVoter(state, sender);
    await settle(state, v);
    const change = new Map<Address, bigint>();
    for (const c of sortedKeys(v.votes)) change.set(c, -BigInt(v.votes[c]));
    for (const c of targets) change.set(c, (change.get(c) ?? 0n) + votes[c]);
    for (const c of [...change.keys()].sort()) {
      const delta = change.get(c)!;
      if (delta === 0n) continue;
      const cand = (await getCandidate(state, c))!;
      cand.received = (BigInt(cand.received) + delta).toString();
      await putCandidate(state, cand);
    }
    const debts: Record<Address, string> = {};
    const next: Record<Address, string> = {};
    for (const c of targets) {
      next[c] = votes[c].toString();
      debts[c] = (await getCandidate(state, c))!.accPerVote;
    }
    await putVoter(state, sender, { votes: next, total: total.toString(), debts, claimable: v.claimable });
  },
});

/** SET_COMMISSION: a candidate's new commission, effective COMMISSION_DELAY_BLOCKS later (voters see it coming). */
export const setCommission = defineTx({
  type: 'SET_COMMISSION',
  module: 'staking',
  summary: "changes a candidate's commission (data.commission, basis points), effective COMMISSION_DELAY_BLOCKS later",
  to: { kind: 'none' },
  fields: { commission: commissionField('the new commission in basis points (0..10000)') },
  energy: 200n,
  async run({ state, height, sender }, { commission }) {
    const cand = await getCandidate(state, sender);
    if (!cand) throw new TxFailure('the sender is not a validator candidate');
    const delay = (await loadParams(state)).COMMISSION_DELAY_BLOCKS;
    cand.pendingCommission = { bps: commission, at: height + Number(delay) };
    await putCandidate(state, cand);
  },
});

/** CLAIM_VOTER_REWARD: pays the sender every voter reward it has earned, from the reward pool. */
export const claimVoterReward = defineTx({
  type: 'CLAIM_VOTER_REWARD',
  module: 'staking',
  summary: 'pays the sender the block rewards its votes have earned (from the reward pool)',
  to: { kind: 'none' },
  energy: 200n,
  async run({ state, height, sender, events }) {
    const v = await getVoter(state, sender);
    await settle(state, v);
    const amount = BigInt(v.claimable);
    if (amount === 0n) throw new TxFailure('no voter reward to claim');
    await debit(state, REWARD_POOL_ADDRESS, amount);
    await credit(state, sender, amount, height);
    await putVoter(state, sender, { ...v, claimable: '0' });
    events.push({ kind: 'reward.claim', voter: sender, amount: amount.toString() });
  },
});
