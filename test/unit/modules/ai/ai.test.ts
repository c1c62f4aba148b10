import fc from 'fast-check';
import { initialTransition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { loadInstance } from '../../../../src/machines/instance';
import { stateName } from '../../../../src/machines/record';
import { decide, split } from '../../../../src/modules/ai/aggregate';
import { taskCommitment } from '../../../../src/modules/ai/commitment';
import { getOracle } from '../../../../src/modules/ai/oracles';
import { TASK_STATES, taskDef, taskMachine, type TaskEvent, type TaskInput } from '../../../../src/modules/ai/machine';
import { unbondingOf } from '../../../../src/modules/staking';
import { AI_ESCROW_ADDRESS } from '../../../../src/protocol/params';
import type { Address } from '../../../../src/protocol/types';
import { COIN } from '../../../../src/primitives/amount';
import type { Hex } from '../../../../src/primitives/hex';
import { addr, EconWorld, U1, U2 } from '../../../helpers/econWorld';
import { walkMachine } from '../../../helpers/machineWalk';
import { envelope } from '../../../helpers/assetHarness';

const c = (n: number | bigint) => String(BigInt(n) * COIN);
const ORACLES = [addr(0xb1), addr(0xb2), addr(0xb3), addr(0xb4), addr(0xb5), addr(0xb6), addr(0xb7), addr(0xb8)];
const [O1, O2, O3, O4, O5, O6] = ORACLES;
const AI_WINDOWS = {
  AI_COMMIT_BLOCKS: '10',
  AI_REVEAL_BLOCKS: '6',
  AI_BID_BLOCKS: '6',
  AI_EXPIRY_BLOCKS: '6',
  AI_CHALLENGE_BLOCKS: '5',
  AI_VERDICT_BLOCKS: '8',
  ORACLE_UNBONDING_BLOCKS: '3',
  AI_MAX_COMMITTERS: '4',
  AI_MAX_JURORS: '3',
  AI_CHALLENGE_BOND: c(5),
};

async function world(oracles = ORACLES.slice(0, 6)): Promise<EconWorld> {
  const w = await EconWorld.create(AI_WINDOWS, undefined, ORACLES);
  await w.block(await Promise.all(oracles.map((o) => w.tx('ORACLE_REGISTER', o, { amount: c(500) }))));
  return w;
}
const status = async (w: EconWorld, id: Hex) => stateName((await loadInstance(w.state, taskDef, id))!.value);
const task = async (w: EconWorld, id: Hex) => (await loadInstance(w.state, taskDef, id))!.context;
const balance = async (w: EconWorld, a: Address) => (await w.state.getAccount(a))?.balance ?? 0n;
const commitTx = (w: EconWorld, o: Address, taskId: Hex, output: string, salt = `salt-${o}`) =>
  w.tx('AI_COMMIT', o, { data: { taskId, commit: taskCommitment({ oracle: o, output, salt, taskId }) } });
const revealTx = (w: EconWorld, o: Address, taskId: Hex, output: string, salt = `salt-${o}`) =>
  w.tx('AI_REVEAL', o, { data: { taskId, output, salt } });

/** A quorum task by U1 whose oracles answer `answers` (commit in one block, reveal in the next). */
async function quorumTask(
  w: EconWorld,
  answers: Partial<Record<Address, string>>,
  opts: { quorum?: number; aggregate?: string; reward?: number } = {},
): Promise<Hex> {
  const t = await w.tx('AI_TASK', U1, {
    amount: c(opts.reward ?? 30),
    data: { prompt: 'ETH/USD', quorum: opts.quorum ?? 3, ...(opts.aggregate ? { aggregate: opts.aggregate } : {}) },
  });
  await w.block([t]);
  const entries = Object.entries(answers) as [Address, string][];
  await w.block(await Promise.all(entries.map(([o, out]) => commitTx(w, o, t.id, out))));
  while ((await status(w, t.id)) === 'COMMIT') await w.block();
  return t.id;
}

const INPUT: TaskInput = {
  requester: U1,
  prompt: 'p',
  mode: 'quorum',
  aggregate: 'exact',
  reward: '90',
  quorum: 2,
  oracle: null,
  createdAt: 1,
  windows: { commit: 2, reveal: 2, bid: 2, expiry: 2, challenge: 2, verdict: 2 },
  maxCommitters: 3,
  maxJurors: 2,
};

describe('the AI task machine', () => {
  it('reaches every state from the three modes, and can() agrees with transition everywhere', () => {
    const seen = new Set<string>();
    for (const input of [
      INPUT,
      { ...INPUT, mode: 'designated' as const, oracle: O1, quorum: null },
      { ...INPUT, mode: 'auction' as const, quorum: null },
    ]) {
      const [start] = initialTransition(taskMachine, input);
      const alphabet = (): TaskEvent[] => [
        ...[O1, O2].flatMap((o): TaskEvent[] => [
          { type: 'COMMIT', oracle: o, commit: '0x01', height: 2 },
          { type: 'REVEAL', oracle: o, output: '7', height: 3 },
          { type: 'BID', oracle: o, price: '10', height: 2 },
          { type: 'AWARD', oracle: o, by: U1, height: 2 },
          { type: 'RESULT', oracle: o, output: '7', height: 3 },
          { type: 'VERDICT', juror: o, verdict: 'overturn' },
        ]),
        { type: 'CHALLENGE', challenger: U2, bond: '5', height: 4 },
        { type: 'CLAIM', height: 9 },
        { type: 'REFUND' },
        { type: 'DEADLINE', height: 3 },
        { type: 'DEADLINE', height: 5 },
      ];
      const walk = walkMachine(taskMachine, start, alphabet, 6);
      for (const s of walk.states) seen.add(s);
      expect(walk.disagreements).toEqual([]);
    }
    expect([...seen].sort()).toEqual([...TASK_STATES].sort());
  });

  it('decides exact answers by plurality (a tie decides nothing) and numbers by the median', () => {
    const r = (...outs: string[]) => Object.fromEntries(outs.map((o, i) => [ORACLES[i], o])) as Record<Address, string>;
    expect(decide(r('42', '42', '41'), 3, 'exact')).toEqual({ result: '42', winners: [O1, O2], losers: [O3] });
    expect(decide(r('a', 'b'), 2, 'exact')).toBeNull();
    expect(decide(r('a', 'a'), 3, 'exact')).toBeNull(); // fewer reveals than the quorum
    expect(decide(r('3000', '3010', '2500', 'n/a'), 3, 'median')).toEqual({
      result: '3000',
      winners: [O1, O2],
      losers: [O3, O4],
    });
    // equal values: the smaller string first
    expect(decide(r('-1.5', '-1.50', '9'), 3, 'median')).toEqual({ result: '-1.50', winners: [O1, O2], losers: [O3] });
    expect(decide(r('x', 'y', '1'), 2, 'median')).toBeNull(); // one numeric answer
    expect(split(10n, [O2, O1, O3], U1)).toEqual([
      { to: O1, amount: '3' },
      { to: O2, amount: '3' },
      { to: O3, amount: '3' },
      { to: U1, amount: '1' },
    ]);
  });

  it('decides the same whatever the order of the reveals (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(['1', '2', '2', '3', '10', '10', 'x'], { minLength: 7, maxLength: 7 }),
        fc.constantFrom('exact' as const, 'median' as const),
        (outs, agg) => {
          const a = Object.fromEntries(outs.map((o, i) => [ORACLES[i], o])) as Record<Address, string>;
          const b = Object.fromEntries(Object.entries(a).reverse());
          expect(decide(b, 2, agg)).toEqual(decide(a, 2, agg));
        },
      ),
    );
  });
});

describe('oracles', () => {
  it('register with at least MIN_ORACLE_STAKE, top up, and leave through the unbonding queue', async () => {
    const w = await EconWorld.create(AI_WINDOWS, undefined, ORACLES);
    await w.fails(
      'ORACLE_REGISTER',
      O1,
      { amount: c(499) },
      `an oracle's stake must reach MIN_ORACLE_STAKE (${c(500)} base units); this one would hold ${c(499)}`,
    );
    await w.ok('ORACLE_REGISTER', O1, { amount: c(500), data: { endpoint: 'https://o1.example' } });
    await w.ok('ORACLE_REGISTER', O1, { amount: c(10) });
    expect(await getOracle(w.state, O1)).toMatchObject({
      stake: c(510),
      endpoint: 'https://o1.example',
      duties: 0,
      reputation: 0,
      leftAt: null,
    });
    expect(await balance(w, AI_ESCROW_ADDRESS)).toBe(510n * COIN);
    await w.fails('ORACLE_REGISTER', O2, { data: { leave: true } }, `${O2} is not a registered oracle`);
    const before = await balance(w, O1);
    await w.ok('ORACLE_REGISTER', O1, { data: { leave: true } });
    expect(await unbondingOf(w.state, O1)).toEqual([{ amount: c(510), matures: w.height + 3 }]);
    expect(await getOracle(w.state, O1)).toMatchObject({ stake: '0', leftAt: w.height });
    await w.until(w.height + 3);
    expect(await balance(w, O1)).toBe(before + 510n * COIN - 0n);
    expect(await balance(w, AI_ESCROW_ADDRESS)).toBe(0n);
  });

  it('cannot leave while a duty holds its stake', async () => {
    const w = await world();
    const t = await w.tx('AI_TASK', U1, { amount: c(10), data: { prompt: 'x', quorum: 2 } });
    await w.block([t]);
    await w.block([await commitTx(w, O1, t.id, 'a')]);
    await w.fails(
      'ORACLE_REGISTER',
      O1,
      { data: { leave: true } },
      `oracle ${O1} has 1 open duty (commits, assignments or results still challengeable): finish them first`,
    );
  });
});

describe('quorum tasks', () => {
  it(
    'commit, reveal, decide by plurality, claim after the challenge window: ' +
      'winners paid, losers and no-shows lose reputation',
    async () => {
      const w = await world();
      const id = await quorumTask(w, { [O1]: '42', [O2]: '42', [O3]: '41', [O4]: '42' });
      expect(await status(w, id)).toBe('REVEAL');
      await w.fails(
        'AI_COMMIT',
        O5,
        { data: { taskId: id, commit: `0x${'11'.repeat(32)}` } },
        `task ${id} is REVEAL, not COMMIT: its commit window closed at height ${(await task(w, id)).commitEnds}`,
      );
      await w.fails(
        'AI_REVEAL',
        O1,
        { data: { taskId: id, output: '43', salt: `salt-${O1}` } },
        'the reveal does not match the commitment (keccak-256 of the canonical JSON {oracle, output, salt, taskId})',
      );
      await w.fails(
        'AI_REVEAL',
        O5,
        { data: { taskId: id, output: '42', salt: 's' } },
        `${O5} did not commit to task ${id}`,
      );
      // O4 never reveals.
      await w.block([
        await revealTx(w, O1, id, '42'),
        await revealTx(w, O2, id, '42'),
        await revealTx(w, O3, id, '41'),
      ]);
      await w.fails(
        'AI_REVEAL',
        O1,
        { data: { taskId: id, output: '42', salt: `salt-${O1}` } },
        `${O1} has already revealed for task ${id}`,
      );
      while ((await status(w, id)) === 'REVEAL') await w.block();
      const ctx = await task(w, id);
      expect(await status(w, id)).toBe('CHALLENGE');
      expect(ctx).toMatchObject({ result: '42', winners: [O1, O2] });
      await w.fails(
        'AI_CLAIM',
        U2,
        { data: { taskId: id } },
        `task ${id} can be challenged until height ${ctx.challengeEnds}: claim after it`,
      );
      await w.until(ctx.challengeEnds!);
      const [b1, b2] = [await balance(w, O1), await balance(w, O2)];
      await w.ok('AI_CLAIM', U2, { data: { taskId: id } });
      expect(await status(w, id)).toBe('DONE');
      expect(await balance(w, O1)).toBe(b1 + 15n * COIN);
      expect(await balance(w, O2)).toBe(b2 + 15n * COIN);
      expect(await getOracle(w.state, O1)).toMatchObject({ completed: 1, reputation: 1, duties: 0 });
      expect(await getOracle(w.state, O3)).toMatchObject({ failed: 1, reputation: -1, duties: 0 });
      expect(await getOracle(w.state, O4)).toMatchObject({ missed: 1, reputation: -2, duties: 0 });
      expect(await balance(w, AI_ESCROW_ADDRESS)).toBe(6n * 500n * COIN); // only the stakes are left
    },
  );

  it('refuses late, doubled, unstaked, requester and over-the-bound commits', async () => {
    const w = await world();
    const t = await w.tx('AI_TASK', U1, { amount: c(10), data: { prompt: 'x', quorum: 2 } });
    await w.block([t]);
    const commit = `0x${'22'.repeat(32)}`;
    await w.fails(
      'AI_COMMIT',
      U2,
      { data: { taskId: t.id, commit } },
      `${U2} is not a registered oracle (ORACLE_REGISTER)`,
    );
    await w.fails('AI_COMMIT', U1, { data: { taskId: t.id, commit } }, 'the requester cannot answer its own task');
    await w.ok('AI_COMMIT', O1, { data: { taskId: t.id, commit } });
    await w.fails('AI_COMMIT', O1, { data: { taskId: t.id, commit } }, `${O1} has already committed to task ${t.id}`);
    await w.fails(
      'AI_REVEAL',
      O1,
      { data: { taskId: t.id, output: 'a', salt: 's' } },
      `task ${t.id} is still taking commits until height ${(await task(w, t.id)).commitEnds}: reveal after it`,
    );
    // Sybil bound: AI_MAX_COMMITTERS (4) seats; the last one closes the window at the end of its block.
    await w.block([
      await w.tx('AI_COMMIT', O2, { data: { taskId: t.id, commit } }),
      await w.tx('AI_COMMIT', O3, { data: { taskId: t.id, commit } }),
    ]);
    const fourth = await w.tx('AI_COMMIT', O4, { data: { taskId: t.id, commit } });
    const fifth = await w.tx('AI_COMMIT', O5, { data: { taskId: t.id, commit } });
    const [r4, r5] = await w.block([fourth, fifth]);
    expect(r4.error).toBeUndefined();
    expect(r5.error).toBe(`task ${t.id} has all its 4 commit seats taken (AI_MAX_COMMITTERS)`);
    expect(await status(w, t.id)).toBe('REVEAL');
    await w.fails(
      'AI_COMMIT',
      O6,
      { data: { taskId: t.id, commit } },
      `task ${t.id} is REVEAL, not COMMIT: its commit window closed at height ${w.height}`,
    );
  });

  it(
    'sybil attack: many cheap accounts cannot commit, ' +
      'and a slashed-below-minimum or low-reputation oracle takes no duty',
    async () => {
      const w = await world([O1, O2, O3, O4, O5]);
      const t = await w.tx('AI_TASK', U1, { amount: c(10), data: { prompt: 'x', quorum: 2 } });
      await w.block([t]);
      const cheap = [addr(0xc1), addr(0xc2), addr(0xc3)];
      const n = (await w.account(U2)).nonce;
      await w.block(
        await Promise.all(cheap.map((a, i) => w.tx('TRANSFER', U2, { to: a, amount: c(100), nonce: n + i }))),
      );
      for (const a of cheap) {
        await w.fails(
          'ORACLE_REGISTER',
          a,
          { amount: c(90) },
          `an oracle's stake must reach MIN_ORACLE_STAKE (${c(500)} base units); this one would hold ${c(90)}`,
        );
        await w.fails(
          'AI_COMMIT',
          a,
          { data: { taskId: t.id, commit: `0x${'33'.repeat(32)}` } },
          `${a} is not a registered oracle (ORACLE_REGISTER)`,
        );
      }
      // Governance raises the minimum: existing oracles below it take no new duty until they top up.
      const { setParam } = await import('../../../../src/protocol/governable');
      await setParam(w.state, 'MIN_ORACLE_STAKE', 600n * COIN, w.height);
      await w.fails(
        'AI_COMMIT',
        O1,
        { data: { taskId: t.id, commit: `0x${'33'.repeat(32)}` } },
        `oracle ${O1} holds ${c(500)} base units of stake, less than MIN_ORACLE_STAKE (${c(600)}): top it up ` +
          `with ORACLE_REGISTER`,
      );
      await w.ok('ORACLE_REGISTER', O1, { amount: c(100) });
      await w.ok('AI_COMMIT', O1, { data: { taskId: t.id, commit: `0x${'33'.repeat(32)}` } });
    },
  );

  it('median mode: the middle number wins with the answers within 1%', async () => {
    const w = await world();
    const id = await quorumTask(
      w,
      { [O1]: '3000', [O2]: '3010', [O3]: '2990', [O4]: '9999' },
      { aggregate: 'median', reward: 31 },
    );
    await w.block([
      await revealTx(w, O1, id, '3000'),
      await revealTx(w, O2, id, '3010'),
      await revealTx(w, O3, id, '2990'),
      await revealTx(w, O4, id, '9999'),
    ]);
    await w.block(); // every committer revealed: decided at the end of the reveal block
    expect(await status(w, id)).toBe('CHALLENGE');
    expect(await task(w, id)).toMatchObject({ result: '3000', winners: [O1, O2, O3] });
  });

  it('the outcome and the state root do not depend on the order of commits and reveals within a block', async () => {
    // The same transactions (same ids) in two worlds; only their order within each block differs.
    const t = envelope('AI_TASK', U1, { amount: c(30), data: { prompt: 'p', quorum: 2 }, nonce: 0 });
    const answer = (o: Address) => (o === O2 ? 'b' : 'a');
    const commits = [O1, O2, O3].map((o) =>
      envelope('AI_COMMIT', o, {
        nonce: 1,
        data: { taskId: t.id, commit: taskCommitment({ oracle: o, output: answer(o), salt: 's', taskId: t.id }) },
      }),
    );
    const reveals = [O1, O2, O3].map((o) =>
      envelope('AI_REVEAL', o, { nonce: 2, data: { taskId: t.id, output: answer(o), salt: 's' } }),
    );
    const roots: string[] = [];
    for (const flip of [false, true]) {
      const w = await world([O1, O2, O3]);
      const order = <T>(xs: T[]) => (flip ? [...xs].reverse() : xs);
      await w.block([t]);
      await w.block(order(commits));
      while ((await status(w, t.id)) === 'COMMIT') await w.block();
      await w.block(order(reveals));
      await w.block();
      expect(await task(w, t.id)).toMatchObject({ result: 'a', winners: [O1, O3] });
      roots.push(String(await w.state.root()));
    }
    expect(roots[1]).toBe(roots[0]);
  });

  it('too few reveals: EXPIRED, then AI_REFUND pays the requester back', async () => {
    const w = await world();
    const before = await balance(w, U1);
    const id = await quorumTask(w, { [O1]: 'a', [O2]: 'a', [O3]: 'a' });
    await w.block([await revealTx(w, O1, id, 'a')]);
    while ((await status(w, id)) === 'REVEAL') await w.block();
    expect(await status(w, id)).toBe('EXPIRED');
    await w.ok('AI_REFUND', U2, { data: { taskId: id } });
    expect(await status(w, id)).toBe('REFUNDED');
    expect(await balance(w, U1)).toBe(before); // transactions here spend energy, not coins
    await w.fails(
      'AI_REFUND',
      U2,
      { data: { taskId: id } },
      `task ${id} is REFUNDED, not EXPIRED: only an expired task is refunded`,
    );
  });
});

describe('designated tasks and disputes', () => {
  it(
    'a challenged result overturned by jurors: requester refunded, ' +
      'challenger repaid with a slash of the oracle, no double votes, no party on the jury',
    async () => {
      const w = await world();
      const t = await w.tx('AI_TASK', U1, { amount: c(20), data: { prompt: 'summarise', oracle: O1 } });
      await w.block([t]);
      expect(await status(w, t.id)).toBe('PENDING');
      await w.fails(
        'AI_RESULT',
        O2,
        { data: { taskId: t.id, output: 'x' } },
        `task ${t.id} is assigned to ${O1}, not to ${O2}`,
      );
      await w.ok('AI_RESULT', O1, { data: { taskId: t.id, output: 'a wrong summary' } });
      await w.fails(
        'AI_CHALLENGE',
        U2,
        { amount: c(4), data: { taskId: t.id } },
        `the bond must be at least ${c(5)} base units (AI_CHALLENGE_BOND)`,
      );
      await w.fails(
        'AI_CHALLENGE',
        O1,
        { amount: c(5), data: { taskId: t.id } },
        'an oracle cannot challenge its own answer',
      );
      const u1 = await balance(w, U1);
      const u2 = await balance(w, U2);
      await w.ok('AI_CHALLENGE', U2, { amount: c(5), data: { taskId: t.id, reason: 'it is wrong' } });
      expect(await status(w, t.id)).toBe('DISPUTED');
      await w.fails(
        'AI_VERDICT',
        O1,
        { data: { taskId: t.id, verdict: 'uphold' } },
        `${O1} is a party to task ${t.id} and cannot judge it`,
      );
      await w.fails(
        'AI_VERDICT',
        U2,
        { data: { taskId: t.id, verdict: 'overturn' } },
        `${U2} is a party to task ${t.id} and cannot judge it`,
      );
      await w.block([
        await w.tx('AI_VERDICT', O2, { data: { taskId: t.id, verdict: 'overturn' } }),
        await w.tx('AI_VERDICT', O3, { data: { taskId: t.id, verdict: 'overturn' } }),
      ]);
      await w.fails(
        'AI_VERDICT',
        O2,
        { data: { taskId: t.id, verdict: 'uphold' } },
        `${O2} has already given its verdict on task ${t.id}`,
      );
      await w.ok('AI_VERDICT', O4, { data: { taskId: t.id, verdict: 'uphold' } });
      await w.fails(
        'AI_VERDICT',
        O5,
        { data: { taskId: t.id, verdict: 'uphold' } },
        `task ${t.id} has all its 3 verdicts (AI_MAX_JURORS)`,
      );
      while ((await status(w, t.id)) === 'DISPUTED') await w.block();
      expect(await status(w, t.id)).toBe('OVERTURNED');
      expect(await balance(w, U1)).toBe(u1 + 20n * COIN);
      const slash = (500n * COIN * 1_000n) / 10_000n;
      expect(await balance(w, U2)).toBe(u2 + slash); // the bond back, and the slash
      expect(await getOracle(w.state, O1)).toMatchObject({
        stake: String(500n * COIN - slash),
        slashes: 1,
        failed: 1,
        reputation: -5,
        duties: 0,
      });
      expect(w.events.some((e) => e.kind === 'ai.slash')).toBe(true);
    },
  );

  it('an upheld result pays the oracle the reward and the bond', async () => {
    const w = await world();
    const t = await w.tx('AI_TASK', U1, { amount: c(20), data: { prompt: 'p', oracle: O1 } });
    await w.block([t]);
    await w.ok('AI_RESULT', O1, { data: { taskId: t.id, output: 'right' } });
    await w.ok('AI_CHALLENGE', U2, { amount: c(5), data: { taskId: t.id } });
    const o1 = await balance(w, O1);
    await w.ok('AI_VERDICT', O2, { data: { taskId: t.id, verdict: 'uphold' } });
    while ((await status(w, t.id)) === 'DISPUTED') await w.block();
    expect(await status(w, t.id)).toBe('UPHELD');
    expect(await balance(w, O1)).toBe(o1 + 25n * COIN);
    expect(await getOracle(w.state, O1)).toMatchObject({ completed: 1, reputation: 1, duties: 0 });
  });

  it('a designated oracle that never answers: EXPIRED, missed, and refundable', async () => {
    const w = await world();
    const t = await w.tx('AI_TASK', U1, { amount: c(20), data: { prompt: 'p', oracle: O1 } });
    await w.block([t]);
    await w.fails(
      'AI_TASK',
      U1,
      { amount: c(1), data: { prompt: 'p', oracle: U2 } },
      `${U2} is not a registered oracle (ORACLE_REGISTER)`,
    );
    while ((await status(w, t.id)) === 'PENDING') await w.block();
    expect(await status(w, t.id)).toBe('EXPIRED');
    await w.fails(
      'AI_RESULT',
      O1,
      { data: { taskId: t.id, output: 'late' } },
      `task ${t.id} is EXPIRED, not PENDING: its result was due by height ${(await task(w, t.id)).expiresAt}`,
    );
    expect(await getOracle(w.state, O1)).toMatchObject({ missed: 1, reputation: -2, duties: 0 });
    await w.ok('AI_REFUND', U1, { data: { taskId: t.id } });
  });
});

describe('auctions', () => {
  it('bids, an award refunding the rest, a result and a claim', async () => {
    const w = await world();
    const t = await w.tx('AI_TASK', U1, { amount: c(20), data: { prompt: 'translate', open: true } });
    await w.block([t]);
    await w.fails(
      'AI_BID',
      O1,
      { data: { taskId: t.id, price: c(21) } },
      `the price ${c(21)} exceeds the task's reward ${c(20)}`,
    );
    await w.block([
      await w.tx('AI_BID', O1, { data: { taskId: t.id, price: c(12) } }),
      await w.tx('AI_BID', O2, { data: { taskId: t.id, price: c(15) } }),
    ]);
    await w.fails(
      'AI_AWARD',
      U2,
      { data: { taskId: t.id, oracle: O2 } },
      `only the requester ${U1} awards task ${t.id}`,
    );
    await w.fails('AI_AWARD', U1, { data: { taskId: t.id, oracle: O3 } }, `${O3} has not bid on task ${t.id}`);
    const u1 = await balance(w, U1);
    await w.ok('AI_AWARD', U1, { data: { taskId: t.id, oracle: O2 } });
    expect(await balance(w, U1)).toBe(u1 + 5n * COIN);
    expect(await task(w, t.id)).toMatchObject({ oracle: O2, price: c(15) });
    await w.ok('AI_RESULT', O2, { data: { taskId: t.id, output: 'bonjour' } });
    await w.until((await task(w, t.id)).challengeEnds!);
    const o2 = await balance(w, O2);
    await w.ok('AI_CLAIM', U1, { data: { taskId: t.id } });
    expect(await balance(w, O2)).toBe(o2 + 15n * COIN);
  });

  it('without an award the lowest bid wins when bidding closes; without bids the task expires', async () => {
    const w = await world();
    const t = await w.tx('AI_TASK', U1, { amount: c(20), data: { prompt: 'p', open: true } });
    const empty = await w.tx('AI_TASK', U2, { amount: c(20), data: { prompt: 'q', open: true } });
    await w.block([t, empty]);
    await w.block([
      await w.tx('AI_BID', O1, { data: { taskId: t.id, price: c(12) } }),
      await w.tx('AI_BID', O2, { data: { taskId: t.id, price: c(9) } }),
    ]);
    while ((await status(w, t.id)) === 'BIDDING') await w.block();
    expect(await status(w, t.id)).toBe('PENDING');
    expect((await task(w, t.id)).oracle).toBe(O2);
    expect(await status(w, empty.id)).toBe('EXPIRED');
  });
});
