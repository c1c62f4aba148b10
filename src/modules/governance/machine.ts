import { assign, setup } from 'xstate';
import { credit, debit } from '../../protocol/accounts';
import { committeeRefusal, installCommittee, type CommitteeMember } from '../../protocol/bridge';
import type { ExecState } from '../../protocol/execState';
import { paramRefusal, setParam, type ParamName } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { GOV_ESCROW_ADDRESS, TREASURY_ADDRESS } from '../../protocol/params';
import { RECORD_PREFIX } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import { defineMachine, effect, type DeadlineEvent, type Rule, statusesOf } from '../../machines/define';
import type { Hex } from '../../primitives/hex';
import { GOVERNANCE } from './errors';
import { OPTIONS, ZERO_TALLY, type Tally, type VoteOption } from './options';
import { recount } from './tally';

/**
 * The governance proposal (docs/PROTOCOL.md "Governance"), an on-chain machine. Its state
 * names are the `status` words of /governance/proposals:
 *
 *   VOTING ──DEADLINE at votingEnds──► EXPIRED   turnout below quorum            (deposit refunded)
 *                                  ├─► VETOED    veto share above the veto bar   (deposit to the treasury)
 *                                  ├─► QUEUED    yes share above the threshold   (deposit refunded; timelock)
 *                                  └─► REJECTED  otherwise                       (deposit refunded)
 *   QUEUED ──DEADLINE at executeAt──► EXECUTED   the change is applied
 *          └─EXECUTION_FAILED───────► FAILED     the change was refused (e.g. the treasury cannot pay)
 *
 * TALLY events carry the tally the governance module recounts from stakes after each GOV_VOTE
 * and at the end of the voting window's last block (modules/governance/tally.ts). The rules (quorum, threshold,
 * veto, windows) are the governable values when the proposal was made, kept in its context;
 * quorum is measured against the coins staked at that time.
 */
export type ProposalAction =
  | { kind: 'param'; param: string; value: string }
  | { kind: 'spend'; to: Address; amount: string }
  /** Installs a bridge committee (the first one can only come this way). */
  | { kind: 'bridgeCommittee'; members: CommitteeMember[]; threshold: number };

export { OPTIONS, ZERO_TALLY, type Tally, type VoteOption } from './options';

export interface ProposalInput {
  proposer: Address;
  deposit: string;
  action: ProposalAction;
  createdAt: number;
  votingEnds: number;
  timelock: number;
  /** Staked coins when the proposal was made: the quorum's base. */
  stakeAtStart: string;
  quorumBps: number;
  thresholdBps: number;
  vetoBps: number;
}

export interface ProposalContext extends ProposalInput {
  tally: Tally;
  /** Accounts that have voted. */
  voters: number;
  decidedAt: number | null;
  executeAt: number | null;
  failure: string | null;
}

export type ProposalEvent =
  /** The tally recounted after a GOV_VOTE (and once more at the voting end), with the number of voters. */
  { type: 'TALLY'; tally: Tally; voters: number } | { type: 'EXECUTION_FAILED'; reason: string } | DeadlineEvent;

export const PROPOSAL_STATES = ['VOTING', 'QUEUED', 'EXECUTED', 'REJECTED', 'VETOED', 'EXPIRED', 'FAILED'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATES)[number];

const n = (t: Tally, k: VoteOption): bigint => BigInt(t[k]);
export const turnout = (t: Tally): bigint => n(t, 'yes') + n(t, 'no') + n(t, 'abstain') + n(t, 'veto');

/** The tally rules, pure: used by the machine's guards and by readers showing a live outcome. */
export const rules = {
  quorumReached: (c: ProposalContext) => turnout(c.tally) * 10_000n >= BigInt(c.stakeAtStart) * BigInt(c.quorumBps),
  vetoed: (c: ProposalContext) =>
    turnout(c.tally) > 0n && n(c.tally, 'veto') * 10_000n > turnout(c.tally) * BigInt(c.vetoBps),
  passed: (c: ProposalContext) => {
    const decisive = n(c.tally, 'yes') + n(c.tally, 'no') + n(c.tally, 'veto');
    return decisive > 0n && n(c.tally, 'yes') * 10_000n > decisive * BigInt(c.thresholdBps);
  },
};

const deadlineHeight = (e: ProposalEvent): number => (e as DeadlineEvent).height;

export const proposalMachine = setup({
  types: { context: {} as ProposalContext, events: {} as ProposalEvent, input: {} as ProposalInput },
  actions: {
    refund: effect<{ to: Address; amount: string }>(),
    forfeit: effect<{ amount: string }>(),
    execute: effect<{ action: ProposalAction }>(),
  },
  guards: {
    noQuorum: ({ context }) => !rules.quorumReached(context),
    vetoed: ({ context }) => rules.vetoed(context),
    passed: ({ context }) => rules.passed(context),
  },
}).createMachine({
  id: 'proposal',
  initial: 'VOTING',
  context: ({ input }) => ({
    ...input,
    tally: { ...ZERO_TALLY },
    voters: 0,
    decidedAt: null,
    executeAt: null,
    failure: null,
  }),
  states: {
    VOTING: {
      on: {
        TALLY: {
          actions: assign({
            tally: ({ event }) => ({ ...(event as Extract<ProposalEvent, { type: 'TALLY' }>).tally }),
            voters: ({ event }) => (event as Extract<ProposalEvent, { type: 'TALLY' }>).voters,
          }),
        },
        DEADLINE: [
          {
            guard: 'noQuorum',
            target: 'EXPIRED',
            actions: [
              assign({ decidedAt: ({ event }) => deadlineHeight(event) }),
              { type: 'refund', params: ({ context }) => ({ to: context.proposer, amount: context.deposit }) },
            ],
          },
          {
            guard: 'vetoed',
            target: 'VETOED',
            actions: [
              assign({ decidedAt: ({ event }) => deadlineHeight(event) }),
              { type: 'forfeit', params: ({ context }) => ({ amount: context.deposit }) },
            ],
          },
          {
            guard: 'passed',
            target: 'QUEUED',
            actions: [
              assign({ decidedAt: ({ event }) => deadlineHeight(event) }),
              { type: 'refund', params: ({ context }) => ({ to: context.proposer, amount: context.deposit }) },
              assign({ executeAt: ({ context, event }) => deadlineHeight(event) + context.timelock }),
            ],
          },
          {
            target: 'REJECTED',
            actions: [
              assign({ decidedAt: ({ event }) => deadlineHeight(event) }),
              { type: 'refund', params: ({ context }) => ({ to: context.proposer, amount: context.deposit }) },
            ],
          },
        ],
      },
    },
    QUEUED: {
      on: {
        DEADLINE: {
          target: 'EXECUTED',
          actions: { type: 'execute', params: ({ context }) => ({ action: context.action }) },
        },
        EXECUTION_FAILED: {
          target: 'FAILED',
          actions: assign({
            failure: ({ event }) => (event as Extract<ProposalEvent, { type: 'EXECUTION_FAILED' }>).reason,
          }),
        },
      },
    },
    EXECUTED: { type: 'final' },
    REJECTED: { type: 'final' },
    VETOED: { type: 'final' },
    EXPIRED: { type: 'final' },
    FAILED: { type: 'final' },
  },
});

// The status words above are the machine's states (checked when this module loads).
statusesOf(proposalMachine, PROPOSAL_STATES);

/** gov/treasury: what proposals have spent (income = balance + spent). */
export interface TreasuryRecord {
  spent: string;
  spends: { proposal: string; to: Address; amount: string; height: number }[];
}
export const TREASURY_KEY = RECORD_PREFIX.treasury;
export const loadTreasury = async (s: ExecState): Promise<TreasuryRecord> =>
  (await s.getRecord<TreasuryRecord>(TREASURY_KEY)) ?? { spent: '0', spends: [] };

/** Applies a passed proposal's change; TxFailure when it cannot be applied (the proposal FAILS). */
async function execute(s: ExecState, a: ProposalAction, id: string, height: number): Promise<void> {
  if (a.kind === 'param') {
    const why = paramRefusal(a.param, a.value);
    if (why) throw new TxFailure(GOVERNANCE.GOV_PARAM_REFUSED({ param: a.param, value: a.value, why }));
    await setParam(s, a.param as ParamName, BigInt(a.value), height);
    return;
  }
  if (a.kind === 'bridgeCommittee') {
    const refused = committeeRefusal(a.members, a.threshold);
    if (refused) throw new TxFailure(refused);
    await installCommittee(s, a.members, a.threshold, height);
    return;
  }
  const amount = BigInt(a.amount);
  const have = (await s.getAccount(TREASURY_ADDRESS))?.balance ?? 0n;
  if (have < amount) throw new TxFailure(GOVERNANCE.GOV_TREASURY_SHORT({ held: have, amount }));
  await debit(s, TREASURY_ADDRESS, amount);
  await credit(s, a.to, amount, height);
  const t = await loadTreasury(s);
  await s.putRecord(TREASURY_KEY, {
    spent: (BigInt(t.spent) + amount).toString(),
    spends: [...t.spends, { proposal: id, to: a.to, amount: a.amount, height }],
  } satisfies TreasuryRecord);
}

/** A vote changes the tally only while the proposal is under vote. */
const underVote: Rule<ProposalContext, Extract<ProposalEvent, { type: 'TALLY' }>> = (_c, _e, proposal, status) =>
  status !== 'VOTING' ? GOVERNANCE.GOV_PROPOSAL_NOT_VOTING({ proposal: proposal as Hex, status }) : undefined;

export const proposalDef = defineMachine({
  name: 'proposal',
  version: 1,
  machine: proposalMachine,
  deadlines: { VOTING: 'votingEnds', QUEUED: 'executeAt' },
  rules: { TALLY: [underVote] },
  // The final recount at the end of the voting window's last block: the decision sees the stakes as they are then.
  beforeDeadline: async ({ state, id }, s) => {
    if (!s.matches('VOTING')) return undefined;
    const { tally, voters } = await recount(state, id);
    const same = voters === s.context.voters && OPTIONS.every((k) => tally[k] === s.context.tally[k]);
    return same ? undefined : { type: 'TALLY', tally, voters };
  },
  effects: {
    refund: async ({ state, height }, { to, amount }) => {
      await debit(state, GOV_ESCROW_ADDRESS, BigInt(amount));
      await credit(state, to, BigInt(amount), height);
    },
    forfeit: async ({ state, height }, { amount }) => {
      await debit(state, GOV_ESCROW_ADDRESS, BigInt(amount));
      await credit(state, TREASURY_ADDRESS, BigInt(amount), height);
    },
    execute: async ({ state, height, id }, { action }) => execute(state, action, id, height),
  },
  onTickFailure: (failure) => ({ type: 'EXECUTION_FAILED', reason: failure.reason }),
  summary: (s) => ({ ...s.context.tally, voters: String(s.context.voters) }),
});
