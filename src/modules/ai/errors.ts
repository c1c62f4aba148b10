import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

type Task = { task: string };
/** Where a task is and where the event wanted it: the opening words of every status refusal. */
type Where = Task & { status: string; want: string };
const notIn = (m: Where) => `task ${m.task} is ${m.status}, not ${m.want}`;

/** The windows whose end makes a duty late (what /ai/oracles counts as `late`). */
export type AiWindow = 'commit' | 'reveal' | 'bidding' | 'result';
const closed: Record<AiWindow, string> = {
  commit: 'its commit window closed at height',
  reveal: 'its reveal window closed at height',
  bidding: 'its bidding closed at height',
  result: 'its result was due by height',
};

/** The AI layer's refusals (docs/PROTOCOL.md "AI tasks"); the task machine's rules give most of them. */
export const AI = refusals('ai', {
  AI_TASK_MISSING: (m: Task) => `task ${m.task} does not exist`,
  /** A duty sent after its window ended: the oracle is late (counted by /ai/oracles). */
  AI_WINDOW_CLOSED: (m: Where & { window: AiWindow; closedAt: number | null }) =>
    `${notIn(m)}: ${closed[m.window] ?? `its ${m.window} window closed at height`} ${m.closedAt}`,
  AI_WRONG_MODE: (m: Task & { mode: 'quorum' | 'auction'; takes: string }) =>
    m.mode === 'quorum'
      ? `task ${m.task} is not a quorum task: it takes no ${m.takes}`
      : m.takes === 'bids'
        ? `task ${m.task} is not an auction: it takes no bids`
        : `task ${m.task} is not an auction`,
  AI_QUORUM_TASK: (m: Task) => `task ${m.task} is a quorum task: answers come by AI_COMMIT then AI_REVEAL`,
  AI_STILL_COMMITTING: (m: Task & { commitEnds: number | null }) =>
    `task ${m.task} is still taking commits until height ${m.commitEnds}: reveal after it`,
  AI_ALREADY_AWARDED: (m: Where) => `${notIn(m)}: it was already awarded or has ended`,
  AI_NO_RESULT_NOW: (m: Where) => `${notIn(m)}: it takes no result now`,
  AI_NOT_CHALLENGEABLE: (m: Where) => `${notIn(m)}: only a decided answer in its challenge window can be challenged`,
  AI_NOT_DISPUTED: (m: Where) => `${notIn(m)}: only a disputed task takes verdicts`,
  AI_NOT_CLAIMABLE: (m: Where) => `${notIn(m)}: only a decided, unchallenged task can be claimed`,
  AI_NOT_EXPIRED: (m: Where) => `${notIn(m)}: only an expired task is refunded`,
  AI_OWN_TASK: (m: { doing: 'answer' | 'bid' }) =>
    m.doing === 'answer' ? 'the requester cannot answer its own task' : 'the requester cannot bid on its own task',
  AI_SELF_DESIGNATED: () => 'a requester cannot designate itself',
  AI_ALREADY_COMMITTED: (m: Task & { oracle: Address }) => `${m.oracle} has already committed to task ${m.task}`,
  AI_ALREADY_REVEALED: (m: Task & { oracle: Address }) => `${m.oracle} has already revealed for task ${m.task}`,
  AI_NOT_COMMITTED: (m: Task & { oracle: Address }) => `${m.oracle} did not commit to task ${m.task}`,
  AI_SEATS_TAKEN: (m: Task & { seats: number; of: 'commit' | 'bid' }) =>
    `task ${m.task} has all its ${m.seats} ${m.of} seats taken (AI_MAX_COMMITTERS)`,
  AI_JURY_FULL: (m: Task & { jurors: number }) => `task ${m.task} has all its ${m.jurors} verdicts (AI_MAX_JURORS)`,
  AI_PRICE_ABOVE_REWARD: (m: { price: string; reward: string }) =>
    `the price ${m.price} exceeds the task's reward ${m.reward}`,
  AI_NOT_REQUESTER: (m: Task & { requester: Address }) => `only the requester ${m.requester} awards task ${m.task}`,
  AI_NO_BID: (m: Task & { oracle: Address }) => `${m.oracle} has not bid on task ${m.task}`,
  AI_NOT_ASSIGNED: (m: Task & { assigned: Address | null; oracle: Address }) =>
    `task ${m.task} is assigned to ${m.assigned}, not to ${m.oracle}`,
  AI_CHALLENGE_CLOSED: (m: Task & { closedAt: number | null }) =>
    `the challenge window of task ${m.task} closed at height ${m.closedAt}`,
  AI_OWN_ANSWER: () => 'an oracle cannot challenge its own answer',
  AI_PARTY: (m: Task & { juror: Address }) => `${m.juror} is a party to task ${m.task} and cannot judge it`,
  AI_ALREADY_JUDGED: (m: Task & { juror: Address }) => `${m.juror} has already given its verdict on task ${m.task}`,
  AI_CHALLENGE_OPEN: (m: Task & { challengeEnds: number | null }) =>
    `task ${m.task} can be challenged until height ${m.challengeEnds}: claim after it`,
  AI_BOND_TOO_LOW: (m: { min: bigint }) => `the bond must be at least ${m.min} base units (AI_CHALLENGE_BOND)`,
  AI_REVEAL_MISMATCH: () =>
    'the reveal does not match the commitment (keccak-256 of the canonical JSON {oracle, output, salt, taskId})',
  AI_QUORUM_TOO_LARGE: (m: { quorum: string | number; max: bigint }) =>
    `data.quorum ${m.quorum} exceeds AI_MAX_COMMITTERS (${m.max})`,
  /** A duty for an address with no oracle registration (or one that left). */
  AI_NOT_ORACLE: (m: { oracle: Address; hint: boolean }) =>
    `${m.oracle} is not a registered oracle${m.hint ? ' (ORACLE_REGISTER)' : ''}`,
  AI_ORACLE_UNDERSTAKED: (m: { oracle: Address; stake: string; min: bigint }) =>
    `oracle ${m.oracle} holds ${m.stake} base units of stake, less than MIN_ORACLE_STAKE (${m.min}): top it ` +
    `up with ORACLE_REGISTER`,
  AI_ORACLE_DISREPUTED: (m: { oracle: Address; reputation: number; min: bigint }) =>
    `oracle ${m.oracle} has reputation ${m.reputation}, below -${m.min} (AI_MIN_REPUTATION): it takes no new duties`,
  AI_ORACLE_BUSY: (m: { oracle: Address; duties: number }) =>
    `oracle ${m.oracle} has ${m.duties} open dut${m.duties === 1 ? 'y' : 'ies'} ` +
    `(commits, assignments or results still challengeable): finish them first`,
  AI_STAKE_TOO_LOW: (m: { min: bigint; stake: bigint }) =>
    `an oracle's stake must reach MIN_ORACLE_STAKE (${m.min} base units); this one would hold ${m.stake}`,
});
