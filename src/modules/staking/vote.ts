import { credit, debit } from '../../protocol/accounts';
import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { REWARD_POOL_ADDRESS } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import { defineTx } from '../tx/define';
import { commissionField, votesField } from './fields';
import { getCandidate, getVoter, putCandidate, putVoter, sortedKeys } from './records';
import { settle } from './rewards';
import { STAKING } from './errors';

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
  fields: { votes: votesField() },
  energy: 300n,
  cli: {
    command: 'stake vote',
    about: `Allocates your stake to validator candidates, replacing your previous allocation
(rewards earned under it are kept). The amounts may not exceed your stake; --none
withdraws every vote.`,
    summary: '--for <address>=<amount>… | --none',
    flags: [
      {
        flag: 'for',
        field: 'votes',
        kind: 'map',
        metavar: '<address>=<n>',
        help: 'a candidate and the base units of your stake it gets; repeat for\nseveral candidates (at most 30)',
      },
      { flag: 'none', field: 'votes', kind: 'clear', help: 'withdraw every vote' },
    ],
    exclusive: 'give --for <address>=<n> (repeatable) or --none',
    example: 'cairn stake vote --for cairn1…=6000000 --for cairn1…=4000000 --wait included',
  },
  async run({ state, sender }, { votes }) {
    const acc = await state.getAccount(sender);
    const total = Object.values(votes).reduce((n, v) => n + v, 0n);
    const staked = acc?.staked ?? 0n;
    if (total > staked) throw new TxFailure(STAKING.STAKING_VOTES_EXCEED_STAKE({ address: sender, total, staked }));
    const targets = sortedKeys(votes);
    for (const c of targets)
      if (!(await getCandidate(state, c)))
        throw new TxFailure(STAKING.STAKING_VOTE_TARGET_NOT_CANDIDATE({ target: c }));

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
  cli: {
    command: 'stake commission',
    about: 'Changes your commission as a validator candidate; it takes effect COMMISSION_DELAY_BLOCKS later.',
    summary: '--bps <n> (candidates)',
    flags: [
      {
        flag: 'bps',
        field: 'commission',
        kind: 'int',
        metavar: '<n>',
        help: 'the new commission in basis points, 0 to 10000',
      },
    ],
    example: 'cairn stake commission --bps 800',
  },
  async run({ state, height, sender }, { commission }) {
    const cand = await getCandidate(state, sender);
    if (!cand) throw new TxFailure(STAKING.STAKING_NOT_CANDIDATE({ role: 'sender', address: sender }));
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
  cli: {
    command: 'stake claim',
    about: `Pays you every block reward your votes have earned, from the reward pool.
With --wait, the answer also carries the amount paid ("reward").`,
    summary: 'claim voter rewards',
    flags: [],
    example: 'cairn stake claim --wait included',
  },
  report: (events) => ({ reward: events.find((e) => e.kind === 'reward.claim')?.amount }),
  async run({ state, height, sender, events }) {
    const v = await getVoter(state, sender);
    await settle(state, v);
    const amount = BigInt(v.claimable);
    if (amount === 0n) throw new TxFailure(STAKING.STAKING_NO_VOTER_REWARD({ address: sender }));
    await debit(state, REWARD_POOL_ADDRESS, amount);
    await credit(state, sender, amount, height);
    await putVoter(state, sender, { ...v, claimable: '0' });
    events.push({ kind: 'reward.claim', voter: sender, amount: amount.toString() });
  },
});
