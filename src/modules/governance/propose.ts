import { createInstance, loadInstance, refusalOf, sendEvent } from '../../machines/instance';
import { proposalDef, type ProposalAction } from './machine';
import { credit, debit } from '../../protocol/accounts';
import { loadSupply } from '../../protocol/execState';
import { loadParams, paramRefusal } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { GOV_ESCROW_ADDRESS } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import { defineTx } from '../tx/define';
import { addressFlag, coinsFlag, textFlag } from '../tx/cli';
import { fullCommitteeRefusal, sortMembers } from '../bridge/committee';
import { committeeField } from '../bridge/fields';
import { paramNameField, paramValueField, proposalIdField, spendField, voteOptionField } from './fields';
import { getVoters, hasVotingPower, recount, voteKey, votersKey } from './tally';
import { GOVERNANCE } from './errors';

/**
 * GOV_PROPOSE: opens a proposal whose id is this transaction's id. `amount` is the deposit
 * (at least GOV_DEPOSIT), held in escrow and refunded when the vote ends unless the proposal
 * is vetoed. One of `data.param` + `data.value` (a parameter change), `data.spend` (a
 * treasury spend) or `data.committee` (a bridge committee). The rules are the governable values of the proposal's
 * block.
 */
export const govPropose = defineTx({
  type: 'GOV_PROPOSE',
  module: 'governance',
  summary:
    'opens a proposal (id = this transaction id) changing a governable parameter, spending from the treasury ' +
    'or installing a bridge committee; amount = the deposit',
  to: { kind: 'none' },
  amount: { kind: 'positive', reason: 'GOV_PROPOSE amount is the deposit and must be positive', input: 'deposit' },
  fields: {
    param: paramNameField('a governable parameter\'s name (with value), e.g. "MAX_VALIDATORS"'),
    value: paramValueField("the new value, an integer string within the parameter's bounds"),
    spend: spendField('{to, amount}: a treasury spend (instead of param/value)'),
    committee: committeeField(
      '{members: [{address, secp256k1, mldsa44}], threshold}: installs a bridge committee ' +
        '(instead of param/value or spend)',
    ),
  },
  dataRules: [
    {
      broken: (d) =>
        [d.param !== null || d.value !== null, d.spend !== null, d.committee !== null].filter(Boolean).length !== 1,
      reason: 'GOV_PROPOSE needs exactly one of data.param with data.value, data.spend or data.committee',
      sdk: { field: 'param', message: 'give exactly one of param with value, spend or committee' },
    },
    {
      broken: (d) =>
        d.committee !== null && fullCommitteeRefusal(d.committee.members, d.committee.threshold) !== undefined,
      reason:
        'GOV_PROPOSE data.committee is not a committee: distinct members whose addresses their secp256k1 keys ' +
        'control, threshold more than half of them and at most all',
      sdk: {
        field: 'committee',
        message:
          'is not a committee: distinct members whose addresses their secp256k1 keys control, threshold more ' +
          'than half of them and at most all',
      },
    },
    {
      broken: (d) => (d.param === null) !== (d.value === null),
      reason: 'GOV_PROPOSE data.param and data.value go together',
      sdk: { field: 'value', message: 'goes with param' },
    },
    {
      broken: (d) => d.param !== null && d.value !== null && paramRefusal(d.param, d.value) !== undefined,
      reason: "GOV_PROPOSE data.value is outside the parameter's bounds (see GET /governance)",
      sdk: { field: 'value', message: "is outside the parameter's bounds (see GET /governance)" },
    },
  ],
  energy: 1_000n,
  cli: {
    command: 'gov propose',
    about:
      `Opens a proposal to set a governable parameter (--param with --value; see
"cairn gov params"), to spend from the treasury (--spend-to with --spend-amount) or to
install a bridge committee (--committee members.json with --threshold; "cairn bridge
member --key <file>" prints a member's entry), with --deposit (at least GOV_DEPOSIT) held until it ends. The ` +
      `proposal's id is this
transaction's id.`,
    summary: '--param --value | --spend-to --spend-amount | --committee --threshold; --deposit',
    flags: [
      textFlag('param', '<NAME>', 'a governable parameter, e.g. MAX_VALIDATORS'),
      textFlag('value', '<n>', "its new value, an integer within the parameter's bounds"),
      addressFlag('spend-to', 'a treasury spend: the recipient, 0x… or cairn1…', 'spend.to'),
      coinsFlag('spend-amount', 'a treasury spend: the coins', 'spend.amount', true),
      {
        flag: 'committee',
        field: 'committee.members',
        kind: 'json',
        metavar: '<members.json>',
        help: 'a bridge committee: [{address, secp256k1, mldsa44}] (with --threshold)',
      } as const,
      {
        flag: 'threshold',
        field: 'committee.threshold',
        kind: 'int',
        metavar: '<k>',
        help: "the committee's signatures needed: more than half its members",
      } as const,
      coinsFlag('deposit', 'the deposit'),
    ].map((f) => (f.flag === 'deposit' ? f : { ...f, optional: true })),
    example: 'cairn gov propose --param MAX_VALIDATORS --value 25 --deposit 100000000',
  },
  async run({ state, height, sender, tx, events }, d) {
    const p = await loadParams(state);
    const deposit = BigInt(tx.amount);
    if (deposit < p.GOV_DEPOSIT) throw new TxFailure(GOVERNANCE.GOV_DEPOSIT_TOO_LOW({ minimum: p.GOV_DEPOSIT }));
    await debit(state, sender, deposit);
    await credit(state, GOV_ESCROW_ADDRESS, deposit, height);
    const action: ProposalAction = d.spend
      ? { kind: 'spend', to: d.spend.to, amount: d.spend.amount.toString() }
      : d.committee
        ? { kind: 'bridgeCommittee', members: sortMembers(d.committee.members), threshold: d.committee.threshold }
        : { kind: 'param', param: d.param!, value: d.value! };
    const step = await createInstance(
      state,
      proposalDef,
      tx.id,
      {
        proposer: sender,
        deposit: deposit.toString(),
        action,
        createdAt: height,
        votingEnds: height + Number(p.GOV_VOTING_BLOCKS),
        timelock: Number(p.GOV_TIMELOCK_BLOCKS),
        stakeAtStart: (await loadSupply(state)).staked.toString(),
        quorumBps: Number(p.GOV_QUORUM_BPS),
        thresholdBps: Number(p.GOV_THRESHOLD_BPS),
        vetoBps: Number(p.GOV_VETO_BPS),
      },
      height,
    );
    events.push(...step.events);
  },
});

/**
 * GOV_VOTE: the sender's choice on a proposal under vote (a later GOV_VOTE replaces it). Its
 * power is its stake (and, for a candidate, its backers' votes unless they voted): the tally
 * is recounted and handed to the proposal machine, which refuses it outside VOTING.
 */
export const govVote = defineTx({
  type: 'GOV_VOTE',
  module: 'governance',
  summary: "votes yes, no, abstain or veto on a proposal under vote; a later vote replaces the sender's earlier one",
  to: { kind: 'none' },
  fields: {
    proposalId: proposalIdField('the proposal (its GOV_PROPOSE transaction id)'),
    vote: voteOptionField('"yes", "no", "abstain" or "veto"'),
  },
  energy: 300n,
  cli: {
    command: 'gov vote',
    about: 'Votes on a proposal under vote with the power of your stake; a later vote replaces it.',
    summary: '--proposal <id> --vote yes|no|abstain|veto',
    flags: [
      textFlag('proposal', '<id>', "the proposal: its GOV_PROPOSE transaction's id", 'proposalId'),
      textFlag('vote', '<choice>', 'yes, no, abstain or veto'),
    ],
    example: 'cairn gov vote --proposal 0x… --vote yes --wait included',
  },
  async run({ state, height, sender, events }, { proposalId, vote }) {
    const snap = await loadInstance(state, proposalDef, proposalId);
    if (!snap) throw new TxFailure(GOVERNANCE.GOV_PROPOSAL_MISSING({ proposal: proposalId }));
    const notVoting = refusalOf(proposalDef, proposalId, snap, {
      type: 'TALLY',
      tally: snap.context.tally,
      voters: snap.context.voters,
    }); // the machine's rule
    if (notVoting) throw new TxFailure(notVoting);
    if (!(await hasVotingPower(state, sender))) throw new TxFailure(GOVERNANCE.GOV_NO_VOTING_POWER({ voter: sender }));
    const voters = await getVoters(state, proposalId);
    if (!voters.includes(sender))
      await state.putRecord(votersKey(proposalId), [...voters, sender].sort() satisfies Address[]);
    await state.putRecord(voteKey(proposalId, sender), vote);
    const { tally, voters: count } = await recount(state, proposalId);
    events.push(
      ...(await sendEvent(state, proposalDef, proposalId, { type: 'TALLY', tally, voters: count }, height)).events,
    );
  },
});
