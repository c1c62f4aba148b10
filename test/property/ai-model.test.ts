import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadInstance } from '../../src/machines/instance';
import { stateName } from '../../src/machines/record';
import { taskCommitment } from '../../src/modules/ai/commitment';
import { getOracle } from '../../src/modules/ai/oracles';
import { payable, taskDef, taskMachine } from '../../src/modules/ai/machine';
import { loadSupply } from '../../src/protocol/execState';
import type { ChainEvent } from '../../src/protocol/events';
import {
  AI_ESCROW_ADDRESS,
  CHAIN_ID,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
} from '../../src/protocol/params';
import type { Address, SignedTx } from '../../src/protocol/types';
import { COIN } from '../../src/primitives/amount';
import type { Hex } from '../../src/primitives/hex';
import type { StateTrie } from '../../src/state/stateTrie';
import { nonceEnvelopes } from '../helpers/assetHarness';
import { addr, SHORT_WINDOWS } from '../helpers/econWorld';
import { heldBy, MemChain } from '../helpers/memChain';
import { legalMoves } from '../helpers/machineWalk';
import { runModel, type Outcomes } from '../helpers/modelRunner';

/**
 * Model test of the AI layer: random interleavings of tasks (all three modes), commits,
 * reveals, bids, awards, results, challenges, verdicts, claims, refunds, oracle top-ups and
 * leaves, and empty blocks, run through the real execution (applyTx + finishBlock), checking
 * after every block:
 * - conservation: Σ (balance + staked) over every account = supply (minted − burned), and the
 *   AI escrow holds exactly Σ oracle stakes + what open tasks still owe (reward or price, and a bond);
 * - every task transition is a legal move of the machine; a terminal task never moves again;
 * and at the end that the same blocks give the same state root again, and again with the
 * commits and reveals of each block in reverse order (the outcome does not depend on it).
 */
const ORACLES = [addr(0xb1), addr(0xb2), addr(0xb3), addr(0xb4), addr(0xb5)];
const USERS = [addr(0xa1), addr(0xa2)];
const V0 = addr(0x1000);
const ALL = [...ORACLES, ...USERS, V0, AI_ESCROW_ADDRESS, UNBONDING_ADDRESS, TREASURY_ADDRESS, REWARD_POOL_ADDRESS];
const FUNDS = 10_000n * COIN;
const GENESIS = {
  chainId: CHAIN_ID,
  timestamp: 1,
  params: {
    ...SHORT_WINDOWS,
    MIN_ORACLE_STAKE: String(100n * COIN),
    AI_CHALLENGE_BOND: String(5n * COIN),
    AI_MAX_COMMITTERS: '8',
    AI_MAX_JURORS: '8',
    AI_COMMIT_BLOCKS: '3',
    AI_REVEAL_BLOCKS: '3',
    AI_BID_BLOCKS: '3',
    AI_EXPIRY_BLOCKS: '3',
    AI_CHALLENGE_BLOCKS: '2',
    AI_VERDICT_BLOCKS: '2',
    ORACLE_UNBONDING_BLOCKS: '2',
  },
  accounts: [
    ...[...ORACLES, ...USERS].map((address) => ({ address, balance: String(FUNDS) })),
    { address: V0, balance: String(FUNDS), staked: String(2_000n * COIN), isValidator: true },
  ],
};
const LEGAL = legalMoves(taskMachine);
const TERMINAL = new Set(['DONE', 'UPHELD', 'OVERTURNED', 'REFUNDED']);

/** One step: a transaction to add to the current block, or the end of the block. */
type Step =
  | { k: 'task'; user: number; mode: 'quorum' | 'designated' | 'auction'; oracle: number; reward: number }
  | {
      k: 'commit' | 'reveal' | 'bid' | 'result' | 'verdict' | 'register';
      oracle: number;
      task: number;
      answer: number;
      arg: number;
    }
  | { k: 'award' | 'challenge' | 'claim' | 'refund'; user: number; task: number; oracle: number }
  | { k: 'leave'; oracle: number }
  | { k: 'seal' }
  /** A quorum task whose oracles commit, then (the window passed) some reveal: reaches the decision. */
  | { k: 'round'; user: number; answers: number[]; reveal: boolean[] }
  /** A designated task answered, then challenged: jurors decide. */
  | { k: 'dispute'; user: number; oracle: number; verdicts: number[] };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('task' as const),
      user: fc.nat(1),
      mode: fc.constantFrom('quorum' as const, 'designated' as const, 'auction' as const),
      oracle: fc.nat(4),
      reward: fc.integer({ min: 1, max: 50 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      k: fc.constantFrom(
        'commit' as const,
        'reveal' as const,
        'bid' as const,
        'result' as const,
        'verdict' as const,
        'register' as const,
      ),
      oracle: fc.nat(4),
      task: fc.nat(7),
      answer: fc.nat(2),
      arg: fc.nat(40),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constantFrom('award' as const, 'challenge' as const, 'claim' as const, 'refund' as const),
      user: fc.nat(1),
      task: fc.nat(7),
      oracle: fc.nat(4),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('leave' as const), oracle: fc.nat(4) }) },
  { weight: 5, arbitrary: fc.constant({ k: 'seal' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('round' as const),
      user: fc.nat(1),
      answers: fc.array(fc.nat(2), { minLength: 2, maxLength: 5 }),
      reveal: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('dispute' as const),
      user: fc.nat(1),
      oracle: fc.nat(4),
      verdicts: fc.array(fc.nat(1), { maxLength: 4 }),
    }),
  },
);

/**
 * Runs `blocks` on a fresh chain; with `checked`, counts each transaction's outcome and runs `check` after every block.
 */
async function runBlocks(
  blocks: SignedTx[][],
  checked?: { outcomes: Outcomes; check: (s: StateTrie, events: ChainEvent[]) => Promise<void> },
): Promise<MemChain> {
  const c = await MemChain.open(GENESIS, V0);
  for (const txs of blocks) {
    for (const tx of txs) {
      const r = await c.include(tx);
      checked?.outcomes.count(`${tx.type}:${r.status}`);
    }
    const events = await c.seal();
    await checked?.check(c.state, events);
  }
  return c;
}

/** Turns steps into blocks of transactions with the right nonces (ids fixed once, for the replays). */
function blocksOf(steps: Step[]): SignedTx[][] {
  const tasks: Hex[] = [];
  const tx = nonceEnvelopes();
  const blocks: SignedTx[][] = [[]];
  const cur = () => blocks[blocks.length - 1];
  // Every oracle registers in the first block.
  for (const o of ORACLES) cur().push(tx('ORACLE_REGISTER', o, { amount: String(100n * COIN) }));
  const answer = (a: number) => ['7', '8', 'x'][a];
  const salt = (o: Address) => `salt-${o}`;
  for (const s of steps) {
    if (s.k === 'seal') {
      blocks.push([]);
      continue;
    }
    if (s.k === 'task') {
      const mode =
        s.mode === 'quorum' ? { quorum: 2 } : s.mode === 'designated' ? { oracle: ORACLES[s.oracle] } : { open: true };
      const t = tx('AI_TASK', USERS[s.user], {
        amount: String(BigInt(s.reward) * COIN),
        data: { prompt: 'p', ...mode },
      });
      tasks.push(t.id);
      cur().push(t);
      continue;
    }
    if (s.k === 'round') {
      const t = tx('AI_TASK', USERS[s.user], { amount: String(7n * COIN), data: { prompt: 'p', quorum: 2 } });
      tasks.push(t.id);
      blocks.push([t]);
      const seats = s.answers.map((a, i) => [ORACLES[i], answer(a)] as const);
      blocks.push(
        seats.map(([o, out]) =>
          tx('AI_COMMIT', o, {
            data: { taskId: t.id, commit: taskCommitment({ oracle: o, output: out, salt: salt(o), taskId: t.id }) },
          }),
        ),
      );
      for (let i = 0; i < 3; i++) blocks.push([]);
      blocks.push(
        seats
          .filter((_, i) => s.reveal[i])
          .map(([o, out]) => tx('AI_REVEAL', o, { data: { taskId: t.id, output: out, salt: salt(o) } })),
      );
      for (let i = 0; i < 4; i++) blocks.push([]);
      // Decided: the challenge window has passed and the claim settles it; not decided: the refund.
      blocks.push([
        tx('AI_CLAIM', USERS[s.user], { data: { taskId: t.id } }),
        tx('AI_REFUND', USERS[s.user], { data: { taskId: t.id } }),
      ]);
      continue;
    }
    if (s.k === 'dispute') {
      const o = ORACLES[s.oracle];
      const t = tx('AI_TASK', USERS[s.user], { amount: String(9n * COIN), data: { prompt: 'p', oracle: o } });
      tasks.push(t.id);
      blocks.push(
        [t],
        [tx('AI_RESULT', o, { data: { taskId: t.id, output: '7' } })],
        [tx('AI_CHALLENGE', USERS[1 - s.user], { amount: String(5n * COIN), data: { taskId: t.id } })],
      );
      const jurors = ORACLES.filter((x) => x !== o);
      blocks.push(
        s.verdicts.map((v, i) =>
          tx('AI_VERDICT', jurors[i], { data: { taskId: t.id, verdict: v === 0 ? 'uphold' : 'overturn' } }),
        ),
        [],
      );
      continue;
    }
    if (s.k === 'leave') {
      cur().push(tx('ORACLE_REGISTER', ORACLES[s.oracle], { data: { leave: true } }));
      continue;
    }
    if (tasks.length === 0) continue;
    const taskId = tasks[s.task % tasks.length];
    if ('answer' in s) {
      const o = ORACLES[s.oracle];
      const out = answer(s.answer);
      const t =
        s.k === 'commit'
          ? tx('AI_COMMIT', o, {
              data: { taskId, commit: taskCommitment({ oracle: o, output: out, salt: salt(o), taskId }) },
            })
          : s.k === 'reveal'
            ? tx('AI_REVEAL', o, { data: { taskId, output: out, salt: salt(o) } })
            : s.k === 'bid'
              ? tx('AI_BID', o, { data: { taskId, price: String(BigInt(s.arg) * COIN) } })
              : s.k === 'result'
                ? tx('AI_RESULT', o, { data: { taskId, output: out } })
                : s.k === 'verdict'
                  ? tx('AI_VERDICT', o, { data: { taskId, verdict: s.answer === 0 ? 'uphold' : 'overturn' } })
                  : tx('ORACLE_REGISTER', o, { amount: String(BigInt(s.arg + 1) * COIN) });
      cur().push(t);
      continue;
    }
    const u = USERS[s.user];
    cur().push(
      s.k === 'award'
        ? tx('AI_AWARD', u, { data: { taskId, oracle: ORACLES[s.oracle] } })
        : s.k === 'challenge'
          ? tx('AI_CHALLENGE', u, { amount: String(5n * COIN), data: { taskId } })
          : s.k === 'claim'
            ? tx('AI_CLAIM', u, { data: { taskId } })
            : tx('AI_REFUND', u, { data: { taskId } }),
    );
  }
  // Enough empty blocks for every window to run out.
  for (let i = 0; i < 12; i++) blocks.push([]);
  return blocks;
}

/**
 * Commits and reveals of a block in reverse order (other transactions keep their place: each sender's nonces stay in
 * order).
 */
function reverseCommitsAndReveals(blocks: SignedTx[][]): SignedTx[][] {
  return blocks.map((b) => {
    // A commit or reveal for a task created in this same block stays after that AI_TASK (moved
    // before it, it would find no task: a different block, not a reordering of the same one).
    const createdHere = new Set(b.filter((t) => t.type === 'AI_TASK').map((t) => t.id));
    const movable = b
      .map((t, i) =>
        (t.type === 'AI_COMMIT' || t.type === 'AI_REVEAL') && !createdHere.has((t.data as { taskId: Hex }).taskId)
          ? i
          : -1,
      )
      .filter((i) => i >= 0);
    const senders = movable.map((i) => b[i].from);
    // A sender with another transaction in the block: its nonces fix the order.
    if (senders.some((from) => b.filter((t) => t.from === from).length > 1)) return b;
    const out = [...b];
    const rev = [...movable].reverse();
    for (const [k, i] of movable.entries()) out[i] = b[rev[k]];
    return out;
  });
}

async function invariants(
  s: StateTrie,
  events: ChainEvent[],
  terminal: Map<string, string>,
  taskIds: Set<string>,
): Promise<void> {
  expect(await heldBy(s, ALL)).toBe((await loadSupply(s)).supply);
  for (const e of events) {
    if (e.kind !== 'machine.transition' || e.machine !== taskDef.name) continue;
    taskIds.add(e.id);
    if (e.from !== '' && e.from !== e.to) expect(LEGAL.has(`${e.from}>${e.to}`), `${e.from}>${e.to}`).toBe(true);
    expect(terminal.has(e.id), `task ${e.id} moved after ${terminal.get(e.id)}`).toBe(false);
    if (TERMINAL.has(e.to)) terminal.set(e.id, e.to);
  }
  let owed = 0n;
  for (const id of taskIds) {
    const snap = (await loadInstance(s, taskDef, id))!;
    const st = stateName(snap.value);
    if (!TERMINAL.has(st)) owed += payable(snap.context);
    if (st === 'DISPUTED') owed += BigInt(snap.context.bond!);
  }
  let stakes = 0n;
  for (const o of ORACLES) stakes += BigInt((await getOracle(s, o))?.stake ?? '0');
  expect((await s.getAccount(AI_ESCROW_ADDRESS))?.balance ?? 0n).toBe(stakes + owed);
}

describe('AI layer model (fast-check)', () => {
  it('conserves coins, keeps the escrow exact, moves tasks legally to one terminal state; ' +
    'same blocks ⇒ same roots, in any order of commits and reveals', async () => {
    await runModel({
      inputs: fc.array(step, { minLength: 10, maxLength: 80 }),
      run: async (steps, outcomes) => {
        const blocks = blocksOf(steps);
        const terminal = new Map<string, string>();
        const ids = new Set<string>();
        const c = await runBlocks(blocks, { outcomes, check: (s, events) => invariants(s, events, terminal, ids) });
        return { blocks, roots: c.roots };
      },
      replays: [
        { name: 'the same blocks', roots: async (_, { blocks }) => (await runBlocks(blocks)).roots },
        {
          name: 'the blocks with their commits and reveals reversed',
          roots: async (_, { blocks }) => (await runBlocks(reverseCommitsAndReveals(blocks))).roots,
          finalOnly: true,
        },
      ],
      numRuns: Number(process.env.AI_MODEL_RUNS ?? 40),
      // The random runs do reach the interesting outcomes.
      reach: [
        'AI_COMMIT:success',
        'AI_REVEAL:success',
        'AI_CLAIM:success',
        'AI_RESULT:success',
        'AI_CHALLENGE:success',
        'AI_VERDICT:success',
        'AI_REFUND:success',
      ],
    });
  }, 120_000);
});
