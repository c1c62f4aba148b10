import { Type } from '@sinclair/typebox';
import { createInstance, loadInstance, refusalOf, step } from '../../machines/instance';
import { stateName } from '../../machines/record';
import { credit, debit } from '../../protocol/accounts';
import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { AI_ESCROW_ADDRESS } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { addressFlag, coinsFlag, textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import type { Field } from '../tx/entry';
import { addressesIn, addressField, check } from '../tx/fields';
import { AI } from './errors';
import {
  aggregateField,
  MAX_OUTPUT_BYTES,
  MAX_PROMPT_BYTES,
  openField,
  quorumField,
  taskIdField,
  textField,
} from './fields';
import { dutyRefusal, getOracle } from './oracles';
import { taskDef, type TaskEvent, type TaskMode, type TaskStatus } from './machine';

/** A task's snapshot, or the refusal every AI type words the same way. */
export async function loadTask(s: ExecState, id: Hex) {
  const snap = await loadInstance(s, taskDef, id);
  if (!snap) throw new TxFailure(AI.AI_TASK_MISSING({ task: id }));
  return snap;
}

export const statusOf = (snap: { value: unknown }): TaskStatus => stateName(snap.value as string) as TaskStatus;

/**
 * The task's snapshot, once its machine would take `event`; otherwise the refusal of the
 * machine's rules (machine.ts). Handlers check what the machine cannot know (an oracle's
 * stake, a bond) after this and before sending the event.
 */
export async function checkTask(s: ExecState, id: Hex, event: TaskEvent) {
  const snap = await loadTask(s, id);
  const refused = refusalOf(taskDef, id, snap, event);
  if (refused !== undefined) throw new TxFailure(refused);
  return snap;
}

/**
 * Sends the event and returns its chain events (the transaction's). `checked`: the snapshot
 * checkTask returned for this event (the task is not read twice); without it, checked here.
 */
export async function sendTask(
  s: ExecState,
  id: Hex,
  event: TaskEvent,
  height: number,
  checked?: TaskSnapshot,
): Promise<ChainEvent[]> {
  return (await step(s, taskDef, id, checked ?? (await checkTask(s, id, event)), event, height, 'tx')).events;
}
type TaskSnapshot = Awaited<ReturnType<typeof checkTask>>;

/** Moves `amount` of the sender's coins into the AI escrow. */
export async function escrow(s: ExecState, from: Address, amount: bigint, height: number): Promise<void> {
  await debit(s, from, amount);
  await credit(s, AI_ESCROW_ADDRESS, amount, height);
}

/**
 * AI_TASK: asks for an answer to `data.prompt`, escrowing `amount` as the reward. The mode is
 * one of `data.quorum` (commit-reveal among up to AI_MAX_COMMITTERS staked oracles, decided by
 * `data.aggregate`), `data.oracle` (one designated oracle) or `data.open: true` (an auction).
 * The task id is this transaction's id; its windows are the governable values of this block.
 */
export const aiTask = defineTx({
  type: 'AI_TASK',
  module: 'ai',
  summary:
    'escrows amount as the reward for an answer to data.prompt, from a quorum (data.quorum), a designated ' +
    'oracle (data.oracle) or an auction (data.open); id = this transaction id',
  to: { kind: 'none' },
  amount: { kind: 'positive', reason: 'AI_TASK amount is the reward and must be positive', input: 'reward' },
  fields: {
    prompt: textField(MAX_PROMPT_BYTES, 'the request (string)'),
    quorum: quorumField('commit-reveal: the reveals needed to decide (integer ≥ 2, at most AI_MAX_COMMITTERS)'),
    oracle: {
      ...addressField('designated: the oracle that answers (0x address)'),
      optional: true as const,
      read: (v: unknown) => (v === undefined ? null : (`0x${(v as string).slice(2).toLowerCase()}` as Address)),
    } as Field<Address | null, string> & { optional: true },
    open: openField('true: an open auction (AI_BID, AI_AWARD)'),
    aggregate: aggregateField(
      'quorum tasks: "exact" (plurality of identical outputs, the default) or "median" (numeric outputs)',
    ),
  },
  dataRules: [
    {
      broken: (d) => [d.quorum !== null, d.oracle !== null, d.open].filter(Boolean).length !== 1,
      reason: 'AI_TASK needs exactly one of data.quorum, data.oracle or data.open',
      sdk: { field: 'quorum', message: 'give exactly one of quorum, oracle or open' },
    },
    {
      broken: (d) => d.aggregate === 'median' && d.quorum === null,
      reason: 'AI_TASK data.aggregate applies to quorum tasks (data.quorum) only',
      sdk: { field: 'aggregate', message: 'applies to quorum tasks only' },
    },
  ],
  parties: (tx) => addressesIn(tx.data, ['oracle']),
  energy: 1_000n,
  cli: {
    command: 'ai task',
    about: `Asks the oracles a question, escrowing --reward. Pick one mode: --quorum <k> (oracles
commit then reveal; k reveals decide; --aggregate median for numbers), --oracle <address>
(one designated oracle) or --open (an auction: oracles bid, you award). The task's id is
this transaction's id; follow it with "cairn ai show <id>".`,
    summary: '--prompt --reward, and --quorum <k> [--aggregate exact|median] | --oracle <a> | --open',
    flags: [
      textFlag('prompt', '<text>', 'the request'),
      coinsFlag('reward', 'the reward escrowed'),
      {
        flag: 'quorum',
        field: 'quorum',
        kind: 'int',
        metavar: '<k>',
        optional: true,
        help: 'commit-reveal: reveals needed to decide (≥ 2)',
      },
      { ...addressFlag('oracle', 'designated: the oracle that answers'), optional: true },
      {
        flag: 'open',
        field: 'open',
        kind: 'switch',
        help: 'an open auction: oracles bid (AI_BID), you award (AI_AWARD)',
      },
      { ...textFlag('aggregate', '<rule>', 'quorum tasks: exact (default) or median'), optional: true },
    ],
    example:
      'cairn ai task --prompt "ETH/USD at block 1200" --reward 30000000 --quorum 3 --aggregate median --wait included',
  },
  async run({ state, height, sender, tx, events }, d) {
    const p = await loadParams(state);
    const mode: TaskMode = d.quorum !== null ? 'quorum' : d.oracle !== null ? 'designated' : 'auction';
    if (d.quorum !== null && BigInt(d.quorum) > p.AI_MAX_COMMITTERS)
      throw new TxFailure(AI.AI_QUORUM_TOO_LARGE({ quorum: d.quorum, max: p.AI_MAX_COMMITTERS }));
    if (d.oracle !== null) {
      if (d.oracle === sender) throw new TxFailure(AI.AI_SELF_DESIGNATED());
      const refused = dutyRefusal(await getOracle(state, d.oracle), d.oracle, p);
      if (refused) throw new TxFailure(refused);
    }
    await escrow(state, sender, BigInt(tx.amount), height);
    const step = await createInstance(
      state,
      taskDef,
      tx.id,
      {
        requester: sender,
        prompt: d.prompt,
        mode,
        aggregate: d.aggregate,
        reward: tx.amount,
        quorum: d.quorum,
        oracle: d.oracle,
        createdAt: height,
        windows: {
          commit: Number(p.AI_COMMIT_BLOCKS),
          reveal: Number(p.AI_REVEAL_BLOCKS),
          bid: Number(p.AI_BID_BLOCKS),
          expiry: Number(p.AI_EXPIRY_BLOCKS),
          challenge: Number(p.AI_CHALLENGE_BLOCKS),
          verdict: Number(p.AI_VERDICT_BLOCKS),
        },
        maxCommitters: Number(p.AI_MAX_COMMITTERS),
        maxJurors: Number(p.AI_MAX_JURORS),
      },
      height,
    );
    events.push(...step.events);
  },
});

/** AI_RESULT: the designated (or awarded) oracle's answer; the challenge window opens. */
export const aiResult = defineTx({
  type: 'AI_RESULT',
  module: 'ai',
  summary: "the designated or awarded oracle's answer (data.output); opens the challenge window",
  to: { kind: 'none' },
  fields: { taskId: taskIdField(), output: textField(MAX_OUTPUT_BYTES, 'the answer (string)') },
  energy: 500n,
  cli: {
    command: 'ai result',
    about: 'Posts your answer to a task you were designated for or awarded, before it expires.',
    summary: '--task <id> --output <text>',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId'), textFlag('output', '<text>', 'your answer')],
    example: 'cairn ai result --task 0x… --output "42" --wait included',
  },
  async run({ state, height, sender, events }, { taskId, output }) {
    events.push(...(await sendTask(state, taskId, { type: 'RESULT', oracle: sender, output, height }, height)));
  },
});

/** AI_CLAIM: settles a task whose challenge window passed unchallenged: pays its oracles. */
export const aiClaim = defineTx({
  type: 'AI_CLAIM',
  module: 'ai',
  summary:
    'settles a task whose challenge window passed without a challenge: the reward goes to the oracles whose ' +
    'answer was decided',
  to: { kind: 'none' },
  fields: { taskId: taskIdField() },
  energy: 500n,
  cli: {
    command: 'ai claim',
    about:
      'Settles a task after its challenge window: the reward goes to the oracles whose answer was decided ' +
      '(anyone may send it).',
    summary: '--task <id>',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId')],
    example: 'cairn ai claim --task 0x… --wait included',
  },
  async run({ state, height, events }, { taskId }) {
    events.push(...(await sendTask(state, taskId, { type: 'CLAIM', height }, height)));
  },
});

/** AI_REFUND: an EXPIRED task's escrow back to its requester. */
export const aiRefund = defineTx({
  type: 'AI_REFUND',
  module: 'ai',
  summary: "returns an EXPIRED task's escrowed reward to its requester",
  to: { kind: 'none' },
  fields: { taskId: taskIdField() },
  energy: 300n,
  cli: {
    command: 'ai refund',
    about: 'Returns the reward of a task that expired with nothing decided to its requester (anyone may send it).',
    summary: '--task <id>',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId')],
    example: 'cairn ai refund --task 0x… --wait included',
  },
  async run({ state, height, events }, { taskId }) {
    events.push(...(await sendTask(state, taskId, { type: 'REFUND' }, height)));
  },
});

/** A native amount in a data field (AI_BID's price): an integer string of base units. */
export function priceField(doc: string): Field<bigint, string | bigint> {
  const reason = 'must be an integer string of base units';
  return {
    checks: [check(Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$' }), reason, (got) => `${reason}, got ${got}`)],
    read: (v) => BigInt(v as string),
    input: {
      convert: (v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v : undefined),
      refused: (got) => `${reason}, got ${got}`,
    },
    doc,
  };
}
