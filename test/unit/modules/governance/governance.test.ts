import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { loadInstance } from '../../../../src/machines/instance';
import { stateName } from '../../../../src/machines/record';
import {
  PROPOSAL_STATES,
  proposalDef,
  proposalMachine,
  type ProposalEvent,
  type ProposalInput,
  type Tally,
} from '../../../../src/modules/governance/machine';
import { getValidatorSet } from '../../../../src/modules/staking';
import { loadParams, loadParamsRecord, setParam, type ParamName } from '../../../../src/protocol/governable';
import { GOV_ESCROW_ADDRESS, TREASURY_ADDRESS } from '../../../../src/protocol/params';
import { COIN } from '../../../../src/primitives/amount';
import type { Hex } from '../../../../src/primitives/hex';
import { EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';
import { walkMachine } from '../../../helpers/machineWalk';

const c = (n: number | bigint) => String(BigInt(n) * COIN);
const DEPOSIT = c(10);

const INPUT: ProposalInput = {
  proposer: U1,
  deposit: '10',
  action: { kind: 'param', param: 'MAX_VALIDATORS', value: '3' },
  createdAt: 1,
  votingEnds: 5,
  timelock: 2,
  stakeAtStart: '1000',
  quorumBps: 3340,
  thresholdBps: 5000,
  vetoBps: 3340,
};
const tally = (yes: number, no: number, abstain: number, veto: number): Tally => ({
  yes: String(yes),
  no: String(no),
  abstain: String(abstain),
  veto: String(veto),
});
const TALLIES = [
  tally(0, 0, 0, 0),
  tally(600, 0, 0, 0),
  tally(100, 500, 0, 0),
  tally(200, 0, 0, 300),
  tally(0, 0, 400, 0),
  tally(10, 0, 0, 0),
];

/** Legal moves of the proposal machine, as docs/PROTOCOL.md states them. */
const LEGAL: Record<string, string[]> = {
  VOTING: ['VOTING', 'EXPIRED', 'VETOED', 'QUEUED', 'REJECTED'],
  QUEUED: ['QUEUED', 'EXECUTED', 'FAILED'],
  EXECUTED: ['EXECUTED'],
  REJECTED: ['REJECTED'],
  VETOED: ['VETOED'],
  EXPIRED: ['EXPIRED'],
  FAILED: ['FAILED'],
};

describe('the proposal machine', () => {
  it('reaches every state, and can() agrees with transition everywhere', () => {
    const [start] = initialTransition(proposalMachine, INPUT);
    const alphabet = (): ProposalEvent[] => [
      ...TALLIES.map((t) => ({ type: 'TALLY' as const, tally: t, voters: 1 })),
      { type: 'DEADLINE', height: 5 },
      { type: 'DEADLINE', height: 7 },
      { type: 'EXECUTION_FAILED', reason: 'x' },
    ];
    const walk = walkMachine(proposalMachine, start, alphabet, 4);
    expect([...walk.states].sort()).toEqual([...PROPOSAL_STATES].sort());
    expect(walk.disagreements).toEqual([]);
  });

  it('decides by quorum, then veto, then threshold', () => {
    const decide = (t: Tally) => {
      let [s] = initialTransition(proposalMachine, INPUT);
      [s] = transition(proposalMachine, s, { type: 'TALLY', tally: t, voters: 1 });
      [s] = transition(proposalMachine, s, { type: 'DEADLINE', height: 5 });
      return stateName(s.value);
    };
    expect(decide(tally(300, 0, 0, 0))).toBe('EXPIRED'); // 300 < 33.4% of 1000
    expect(decide(tally(200, 0, 0, 300))).toBe('VETOED'); // veto 60% of votes
    expect(decide(tally(600, 0, 0, 0))).toBe('QUEUED');
    expect(decide(tally(100, 500, 0, 0))).toBe('REJECTED');
    expect(decide(tally(0, 0, 400, 0))).toBe('REJECTED'); // abstain only: quorum, but no yes
    expect(decide(tally(251, 250, 0, 0))).toBe('QUEUED');
    expect(decide(tally(250, 250, 0, 0))).toBe('REJECTED'); // not more than 50%
  });

  it('only ever reaches legal states under random event sequences (fast-check fold)', () => {
    const event = fc.oneof(
      fc.record({ type: fc.constant('TALLY' as const), tally: fc.constantFrom(...TALLIES), voters: fc.nat(5) }),
      fc.record({ type: fc.constant('DEADLINE' as const), height: fc.integer({ min: 1, max: 10 }) }),
      fc.record({ type: fc.constant('EXECUTION_FAILED' as const), reason: fc.string() }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        let [s] = initialTransition(proposalMachine, INPUT);
        for (const e of events) {
          const from = stateName(s.value);
          if (!s.can(e)) continue;
          [s] = transition(proposalMachine, s, e);
          const to = stateName(s.value);
          expect(LEGAL[from], `${from} -> ${to}`).toContain(to);
          if (to === 'QUEUED') expect(s.context.executeAt).toBe(s.context.decidedAt! + s.context.timelock);
        }
        expect(PROPOSAL_STATES).toContain(stateName(s.value));
      }),
      { numRuns: 300 },
    );
  });
});

async function propose(w: EconWorld, data: unknown, deposit = DEPOSIT, from = U4): Promise<Hex> {
  const tx = await w.tx('GOV_PROPOSE', from, { amount: deposit, data });
  const [r] = await w.block([tx]);
  expect(r.error).toBeUndefined();
  return tx.id;
}
const statusOf = async (w: EconWorld, id: Hex) => stateName((await loadInstance(w.state, proposalDef, id))!.value);

describe('governance on chain', () => {
  it(
    'a parameter change: VOTING → QUEUED → EXECUTED, ' + 'the value in effect from the next epoch, deposit refunded',
    async () => {
      const w = await EconWorld.create({ MAX_VALIDATORS: '1', EPOCH_BLOCKS: '20' });
      await w.ok('STAKE', U1, { amount: c(1500), data: { candidate: true } }); // height 1
      const before = (await w.account(U4)).balance;
      const id = await propose(w, { param: 'MAX_VALIDATORS', value: '2' }); // height 2: voting ends at 6
      expect((await w.account(GOV_ESCROW_ADDRESS)).balance).toBe(10n * COIN);
      expect(await statusOf(w, id)).toBe('VOTING');
      await w.ok('GOV_VOTE', U1, { data: { proposalId: id, vote: 'yes' } });
      const live = (await loadInstance(w.state, proposalDef, id))!.context;
      expect(live.tally).toEqual({ yes: c(1500), no: '0', abstain: '0', veto: '0' });
      expect(live.voters).toBe(1);
      await w.until(6);
      expect(await statusOf(w, id)).toBe('QUEUED');
      expect((await w.account(GOV_ESCROW_ADDRESS)).balance).toBe(0n);
      await w.fails(
        'GOV_VOTE',
        U1,
        { data: { proposalId: id, vote: 'no' } },
        `proposal ${id} is QUEUED, not under vote`,
      );
      await w.until(8);
      expect(await statusOf(w, id)).toBe('EXECUTED');
      expect((await loadParams(w.state)).MAX_VALIDATORS).toBe(2n);
      expect((await loadParamsRecord(w.state)).changedAt).toEqual({ MAX_VALIDATORS: 8 });
      expect((await w.account(U4)).balance).toBeGreaterThan(before - 10n * COIN); // deposit back (fees aside)
      expect((await getValidatorSet(w.state)).active).toEqual([V0]);
      await w.until(20);
      expect((await getValidatorSet(w.state)).active).toEqual([V0, U1]);
    },
  );

  it('refuses a small deposit, a voter without power and an unknown proposal', async () => {
    const w = await EconWorld.create();
    await w.fails(
      'GOV_PROPOSE',
      U4,
      { amount: c(9), data: { param: 'BANK_SIZE', value: '3' } },
      `the deposit must be at least ${c(10)} base units (GOV_DEPOSIT)`,
    );
    const id = await propose(w, { param: 'BANK_SIZE', value: '3' });
    await w.fails(
      'GOV_VOTE',
      U3,
      { data: { proposalId: id, vote: 'yes' } },
      'GOV_VOTE needs voting power: stake coins first (STAKE)',
    );
    const nope = `0x${'12'.repeat(32)}`;
    await w.fails('GOV_VOTE', V0, { data: { proposalId: nope, vote: 'yes' } }, `proposal ${nope} does not exist`);
  });

  it('REJECTED and EXPIRED refund the deposit; VETOED gives it to the treasury', async () => {
    const w = await EconWorld.create();
    const rejected = await propose(w, { param: 'BANK_SIZE', value: '3' });
    await w.ok('GOV_VOTE', V0, { data: { proposalId: rejected, vote: 'no' } });
    const expired = await propose(w, { param: 'BANK_SIZE', value: '4' });
    const vetoed = await propose(w, { param: 'BANK_SIZE', value: '5' });
    await w.ok('GOV_VOTE', V0, { data: { proposalId: vetoed, vote: 'veto' } });
    const treasury = (await w.account(TREASURY_ADDRESS)).balance;
    await w.until(w.height + 5);
    expect(await statusOf(w, rejected)).toBe('REJECTED');
    expect(await statusOf(w, expired)).toBe('EXPIRED');
    expect(await statusOf(w, vetoed)).toBe('VETOED');
    expect((await w.account(GOV_ESCROW_ADDRESS)).balance).toBe(0n);
    const minted = 5n * (COIN / 4n);
    expect((await w.account(TREASURY_ADDRESS)).balance - treasury).toBe(minted + 10n * COIN);
  });

  it('a treasury spend pays exactly once; one larger than the treasury FAILS', async () => {
    const w = await EconWorld.create();
    const pay = await propose(w, { spend: { to: U3, amount: String(COIN / 2n) } });
    const tooMuch = await propose(w, { spend: { to: U3, amount: c(1_000_000) } });
    await w.block([await w.tx('GOV_VOTE', V0, { data: { proposalId: pay, vote: 'yes' } })]);
    await w.block([await w.tx('GOV_VOTE', V0, { data: { proposalId: tooMuch, vote: 'yes' } })]);
    const u3 = (await w.account(U3)).balance;
    await w.until(w.height + 10);
    expect(await statusOf(w, pay)).toBe('EXECUTED');
    expect((await w.account(U3)).balance - u3).toBe(COIN / 2n);
    const failed = (await loadInstance(w.state, proposalDef, tooMuch))!;
    expect(stateName(failed.value)).toBe('FAILED');
    expect(failed.context.failure).toMatch(/^the treasury holds \d+ base units, less than the 1000000000000 to spend$/);
  });

  it(
    "a candidate carries its backers' votes unless they " + 'vote themselves; the tally is recounted, order-free',
    async () => {
      const w = await EconWorld.create();
      await w.ok('STAKE', U2, { amount: c(300) });
      await w.ok('VOTE', U2, { data: { votes: { [V0]: c(300) } } });
      const id = await propose(w, { param: 'BANK_SIZE', value: '3' });
      await w.ok('GOV_VOTE', V0, { data: { proposalId: id, vote: 'yes' } });
      expect((await loadInstance(w.state, proposalDef, id))!.context.tally.yes).toBe(c(2300));
      await w.ok('GOV_VOTE', U2, { data: { proposalId: id, vote: 'no' } });
      expect((await loadInstance(w.state, proposalDef, id))!.context.tally).toMatchObject({ yes: c(2000), no: c(300) });
      await w.ok('GOV_VOTE', U2, { data: { proposalId: id, vote: 'yes' } }); // a re-vote replaces the earlier one
      expect((await loadInstance(w.state, proposalDef, id))!.context).toMatchObject({
        tally: { yes: c(2300), no: '0' },
        voters: 2,
      });
    },
  );
});

describe('every parameter is read through the accessor and takes effect', () => {
  /** Sets `name` as an executed proposal would, then shows its effect. */
  const withParam = async (name: ParamName, value: bigint, params: Record<string, string> = {}) => {
    const w = await EconWorld.create(params);
    await setParam(w.state, name, value, 0);
    return w;
  };

  it('BLOCK_REWARD and TREASURY_REWARD', async () => {
    const w = await withParam('BLOCK_REWARD', 3n * COIN);
    await setParam(w.state, 'TREASURY_REWARD', 2n, 0);
    const [v, t] = [(await w.account(V0)).balance, (await w.account(TREASURY_ADDRESS))?.balance ?? 0n];
    await w.block();
    expect((await w.account(V0)).balance - v).toBe(3n * COIN);
    expect((await w.account(TREASURY_ADDRESS)).balance - t).toBe(2n);
  });

  it('MIN_CANDIDATE_STAKE, MAX_VALIDATORS, BANK_SIZE and EPOCH_BLOCKS', async () => {
    const w = await withParam('MIN_CANDIDATE_STAKE', 10n * COIN);
    await setParam(w.state, 'EPOCH_BLOCKS', 3n, 0);
    await setParam(w.state, 'MAX_VALIDATORS', 2n, 0);
    await setParam(w.state, 'BANK_SIZE', 1n, 0);
    for (const u of [U1, U2, U3]) await w.ok('STAKE', u, { amount: c(10), data: { candidate: true } });
    expect((await getValidatorSet(w.state)).electedAt).toBe(3);
    await w.until(6);
    const set = await getValidatorSet(w.state);
    expect(set.active).toHaveLength(2);
    expect(set.bank).toHaveLength(1);
  });

  it('UNBONDING_BLOCKS, COMMISSION_DELAY_BLOCKS and GOV_DEPOSIT', async () => {
    const w = await withParam('UNBONDING_BLOCKS', 9n);
    await setParam(w.state, 'GOV_DEPOSIT', 3n, 0);
    await w.ok('STAKE', U1, { amount: c(10) });
    await w.ok('UNSTAKE', U1, { amount: c(1) });
    expect((await w.state.getRecord<{ matures: number }[]>(`stk/unb/${U1}`))![0].matures).toBe(w.height + 9);
    await w.ok('GOV_PROPOSE', U2, { amount: '3', data: { param: 'BANK_SIZE', value: '2' } });
  });

  it('FEE_EXEMPT_STAKE: a staker at the threshold burns nothing', async () => {
    const w = await withParam('FEE_EXEMPT_STAKE', 100n * COIN);
    await w.ok('STAKE', U1, { amount: c(100) });
    // Drain U1's energy with transfers; exempt accounts still burn nothing.
    for (let i = 0; i < 3; i++) expect((await w.ok('TRANSFER', U1, { to: U2, amount: '1' })).burned).toBe('0');
    expect((await w.ok('TRANSFER', U2, { to: U1, amount: '1' })).energyUsed).toBe('100');
  });

  it(
    'GOV_QUORUM_BPS, GOV_THRESHOLD_BPS, GOV_VETO_BPS, ' +
      'GOV_VOTING_BLOCKS and GOV_TIMELOCK_BLOCKS are taken into each new proposal',
    async () => {
      const w = await EconWorld.create();
      for (const [n, v] of [
        ['GOV_QUORUM_BPS', 100n],
        ['GOV_THRESHOLD_BPS', 7000n],
        ['GOV_VETO_BPS', 9000n],
        ['GOV_VOTING_BLOCKS', 7n],
        ['GOV_TIMELOCK_BLOCKS', 3n],
      ] as const)
        await setParam(w.state, n, v, 0);
      const id = await propose(w, { param: 'BANK_SIZE', value: '3' });
      expect((await loadInstance(w.state, proposalDef, id))!.context).toMatchObject({
        quorumBps: 100,
        thresholdBps: 7000,
        vetoBps: 9000,
        votingEnds: w.height + 7,
        timelock: 3,
      });
    },
  );
});
