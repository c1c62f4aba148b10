import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { coinsFlag, textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { optionalTextField } from '../tx/fields';
import { AI } from './errors';
import { taskIdField, verdictField } from './fields';
import { dutyRefusal, getOracle } from './oracles';
import { checkTask, escrow, sendTask } from './task';

/**
 * AI_CHALLENGE: disputes a decided answer during its challenge window, posting `amount` (at
 * least AI_CHALLENGE_BOND) as a bond. Staked oracles who are not parties to the task then give
 * verdicts; the loser pays (docs/PROTOCOL.md "AI tasks and oracles").
 */
export const aiChallenge = defineTx({
  type: 'AI_CHALLENGE',
  module: 'ai',
  summary:
    'disputes a decided answer during its challenge window, posting amount (≥ AI_CHALLENGE_BOND) as a bond; ' +
    'jurors decide',
  to: { kind: 'none' },
  amount: { kind: 'positive', reason: 'AI_CHALLENGE amount is the bond and must be positive', input: 'bond' },
  fields: { taskId: taskIdField(), reason: optionalTextField(1_024, 'why the answer is wrong (shown to jurors)') },
  energy: 500n,
  cli: {
    command: 'ai challenge',
    about: `Disputes a task's decided answer during its challenge window, posting --bond (at least
AI_CHALLENGE_BOND). If the jurors overturn it, you get your bond back and a share of the
oracles' stake; if they uphold it, the bond goes to the oracles.`,
    summary: '--task <id> --bond <n> [--reason <text>]',
    flags: [
      textFlag('task', '<id>', 'the task id', 'taskId'),
      coinsFlag('bond', 'the bond'),
      { ...textFlag('reason', '<text>', 'why the answer is wrong'), optional: true },
    ],
    example: 'cairn ai challenge --task 0x… --bond 50000000 --reason "the price was 3120" --wait included',
  },
  async run({ state, height, sender, tx, events }, { taskId }) {
    const p = await loadParams(state);
    const bond = BigInt(tx.amount);
    const event = { type: 'CHALLENGE', challenger: sender, bond: bond.toString(), height } as const;
    const snap = await checkTask(state, taskId, event);
    if (bond < p.AI_CHALLENGE_BOND) throw new TxFailure(AI.AI_BOND_TOO_LOW({ min: p.AI_CHALLENGE_BOND }));
    await escrow(state, sender, bond, height);
    events.push(...(await sendTask(state, taskId, event, height, snap)));
  },
});

/** AI_VERDICT: one eligible juror's vote on a disputed answer. */
export const aiVerdict = defineTx({
  type: 'AI_VERDICT',
  module: 'ai',
  summary:
    'a staked oracle that is not a party to the task votes "uphold" or "overturn" on a disputed answer ' +
    '(one vote each, at most AI_MAX_JURORS)',
  to: { kind: 'none' },
  fields: { taskId: taskIdField(), verdict: verdictField('"uphold" (the answer stands) or "overturn"') },
  energy: 500n,
  cli: {
    command: 'ai verdict',
    about: `Votes on a disputed task as a juror: a staked oracle that is not its requester, one of its
oracles or its challenger. More "overturn" than "uphold" votes at the end overturn it.`,
    summary: '--task <id> --verdict uphold|overturn',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId'), textFlag('verdict', '<v>', 'uphold or overturn')],
    example: 'cairn ai verdict --task 0x… --verdict overturn --wait included',
  },
  async run({ state, height, sender, events }, { taskId, verdict }) {
    const event = { type: 'VERDICT', juror: sender, verdict } as const;
    const snap = await checkTask(state, taskId, event);
    const refused = dutyRefusal(await getOracle(state, sender), sender, await loadParams(state));
    if (refused) throw new TxFailure(refused);
    events.push(...(await sendTask(state, taskId, event, height, snap)));
  },
});
