import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { AI } from './errors';
import { taskCommitment } from './commitment';
import { commitField, MAX_OUTPUT_BYTES, MAX_SALT_BYTES, taskIdField, textField } from './fields';
import { dutyRefusal, getOracle } from './oracles';
import { checkTask, sendTask } from './task';

/**
 * AI_COMMIT: a staked oracle takes one of a quorum task's AI_MAX_COMMITTERS seats with the hash
 * of its answer (taskCommitment). Its stake answers for the reveal: committing and never
 * revealing costs reputation (missed).
 */
export const aiCommit = defineTx({
  type: 'AI_COMMIT',
  module: 'ai',
  summary:
    'a staked oracle commits to its answer to a quorum task: data.commit = keccak-256 of canonical ' +
    '{oracle, output, salt, taskId}',
  to: { kind: 'none' },
  fields: {
    taskId: taskIdField(),
    commit: commitField('0x + keccak-256 of the UTF-8 RFC 8785 JSON of {"oracle","output","salt","taskId"}'),
  },
  energy: 500n,
  cli: {
    command: 'ai commit',
    about: `Commits to your answer to a quorum task during its commit window: --commit is the
keccak-256 of the canonical JSON {oracle, output, salt, taskId} ("cairn ai commitment"
computes it; the SDK's taskCommitment too). Keep the output and salt for the reveal.`,
    summary: '--task <id> --commit <0x hash>',
    flags: [
      textFlag('task', '<id>', 'the task id', 'taskId'),
      textFlag('commit', '<hash>', 'the commitment (0x + 64 hex)'),
    ],
    example: 'cairn ai commit --task 0x… --commit 0x… --wait included',
  },
  async run({ state, height, sender, events }, { taskId, commit }) {
    const event = { type: 'COMMIT', oracle: sender, commit, height } as const;
    const snap = await checkTask(state, taskId, event);
    const refused = dutyRefusal(await getOracle(state, sender), sender, await loadParams(state));
    if (refused) throw new TxFailure(refused);
    events.push(...(await sendTask(state, taskId, event, height, snap)));
  },
});

/** AI_REVEAL: the committed answer and its salt, checked against the commitment. */
export const aiReveal = defineTx({
  type: 'AI_REVEAL',
  module: 'ai',
  summary:
    'reveals a committed answer (data.output, data.salt) during the reveal window; it must hash to the commitment',
  to: { kind: 'none' },
  fields: {
    taskId: taskIdField(),
    output: textField(MAX_OUTPUT_BYTES, 'the answer committed to (string)'),
    salt: textField(MAX_SALT_BYTES, 'the salt committed with it (string)'),
  },
  energy: 500n,
  cli: {
    command: 'ai reveal',
    about: 'Reveals the answer and salt you committed to, during the reveal window.',
    summary: '--task <id> --output <text> --salt <text>',
    flags: [
      textFlag('task', '<id>', 'the task id', 'taskId'),
      textFlag('output', '<text>', 'the answer you committed to'),
      textFlag('salt', '<text>', 'the salt you committed with'),
    ],
    example: 'cairn ai reveal --task 0x… --output "42" --salt s3cret --wait included',
  },
  async run({ state, height, sender, events }, { taskId, output, salt }) {
    const event = { type: 'REVEAL', oracle: sender, output, height } as const;
    const snap = await checkTask(state, taskId, event);
    // The salt is not the machine's to know: the commitment is checked here.
    if (taskCommitment({ oracle: sender, output, salt, taskId }) !== snap.context.commits[sender].commit) {
      throw new TxFailure(AI.AI_REVEAL_MISMATCH());
    }
    events.push(...(await sendTask(state, taskId, event, height, snap)));
  },
});
