import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { taskCommitment } from './commitment';
import { commitField, MAX_OUTPUT_BYTES, MAX_SALT_BYTES, taskIdField, textField } from './fields';
import { dutyRefusal, getOracle } from './oracles';
import { loadTask, requireStatus, sendTask } from './task';

/**
 * AI_COMMIT: a staked oracle takes one of a quorum task's AI_MAX_COMMITTERS seats with the hash
 * of its answer (taskCommitment). Its stake answers for the reveal: committing and never
 * revealing costs reputation (missed).
 */
export const aiCommit = defineTx({
  type: 'AI_COMMIT',
  module: 'ai',
  summary: "a staked oracle commits to its answer to a quorum task: data.commit = keccak-256 of canonical {oracle, output, salt, taskId}",
  to: { kind: 'none' },
  fields: { taskId: taskIdField(), commit: commitField('0x + keccak-256 of the UTF-8 RFC 8785 JSON of {"oracle","output","salt","taskId"}') },
  energy: 500n,
  cli: {
    command: 'ai commit',
    about: `Commits to your answer to a quorum task during its commit window: --commit is the
keccak-256 of the canonical JSON {oracle, output, salt, taskId} ("cairn ai commitment"
computes it; the SDK's taskCommitment too). Keep the output and salt for the reveal.`,
    summary: '--task <id> --commit <0x hash>',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId'), textFlag('commit', '<hash>', 'the commitment (0x + 64 hex)')],
    example: 'cairn ai commit --task 0x… --commit 0x… --wait included',
  },
  async run({ state, height, sender, events }, { taskId, commit }) {
    const snap = await loadTask(state, taskId);
    const c = snap.context;
    if (c.mode !== 'quorum') throw new TxFailure(`task ${taskId} is not a quorum task: it takes no commits`);
    requireStatus(taskId, snap, 'COMMIT', `its commit window closed at height ${c.commitEnds}`);
    if (sender === c.requester) throw new TxFailure('the requester cannot answer its own task');
    if (sender in c.commits) throw new TxFailure(`${sender} has already committed to task ${taskId}`);
    if (Object.keys(c.commits).length >= c.maxCommitters) throw new TxFailure(`task ${taskId} has all its ${c.maxCommitters} commit seats taken (AI_MAX_COMMITTERS)`);
    const refused = dutyRefusal(await getOracle(state, sender), sender, await loadParams(state));
    if (refused) throw new TxFailure(refused);
    events.push(...(await sendTask(state, taskId, { type: 'COMMIT', oracle: sender, commit, height }, height)));
  },
});

/** AI_REVEAL: the committed answer and its salt, checked against the commitment. */
export const aiReveal = defineTx({
  type: 'AI_REVEAL',
  module: 'ai',
  summary: 'reveals a committed answer (data.output, data.salt) during the reveal window; it must hash to the commitment',
  to: { kind: 'none' },
  fields: { taskId: taskIdField(), output: textField(MAX_OUTPUT_BYTES, 'the answer committed to (string)'), salt: textField(MAX_SALT_BYTES, 'the salt committed with it (string)') },
  energy: 500n,
  cli: {
    command: 'ai reveal',
    about: 'Reveals the answer and salt you committed to, during the reveal window.',
    summary: '--task <id> --output <text> --salt <text>',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId'), textFlag('output', '<text>', 'the answer you committed to'), textFlag('salt', '<text>', 'the salt you committed with')],
    example: 'cairn ai reveal --task 0x… --output "42" --salt s3cret --wait included',
  },
  async run({ state, height, sender, events }, { taskId, output, salt }) {
    const snap = await loadTask(state, taskId);
    const c = snap.context;
    if (c.mode !== 'quorum') throw new TxFailure(`task ${taskId} is not a quorum task: it takes no reveals`);
    const st = snap.value as string;
    if (st === 'COMMIT') throw new TxFailure(`task ${taskId} is still taking commits until height ${c.commitEnds}: reveal after it`);
    requireStatus(taskId, snap, 'REVEAL', `its reveal window closed at height ${c.revealEnds}`);
    const mine = c.commits[sender];
    if (!mine) throw new TxFailure(`${sender} did not commit to task ${taskId}`);
    if (sender in c.reveals) throw new TxFailure(`${sender} has already revealed for task ${taskId}`);
    if (taskCommitment({ oracle: sender, output, salt, taskId }) !== mine.commit) {
      throw new TxFailure('the reveal does not match the commitment (keccak-256 of the canonical JSON {oracle, output, salt, taskId})');
    }
    events.push(...(await sendTask(state, taskId, { type: 'REVEAL', oracle: sender, output, height }, height)));
  },
});
