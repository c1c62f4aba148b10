import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { OracleRecord } from '../modules/ai/oracles';
import type { TaskMode, TaskStatus } from '../modules/ai/machine';
import type { TaskAction } from '../modules/ai/actions';
import type { CappedPage } from './paging';

/** JSON shapes of GET /ai/tasks, /ai/tasks/:id and /ai/oracles. */
export type { TaskAction, TaskMode, TaskStatus };

export interface TaskTransition {
  id: Hex;
  from: string;
  to: string;
  event: string;
  height: number;
}

export interface TaskView {
  id: Hex;
  status: TaskStatus;
  mode: TaskMode;
  aggregate: 'exact' | 'median';
  requester: Address;
  prompt: string;
  /** Escrowed reward, base units; `price` is what an auction's winner is paid (the rest went back at the award). */
  reward: string;
  price: string | null;
  quorum: number | null;
  /** The designated or awarded oracle. */
  oracle: Address | null;
  createdAt: number;
  /** Every window as heights (null where it does not apply or has not started). */
  deadlines: {
    commitEnds: number | null;
    revealEnds: number | null;
    bidEnds: number | null;
    expiresAt: number | null;
    challengeEnds: number | null;
    verdictEnds: number | null;
  };
  /**
   * The next height at which the task moves by itself or a window closes, and blocks until it (null: waiting on a
   * transaction).
   */
  next: { height: number; inBlocks: number; what: string } | null;
  commits: { oracle: Address; commit: Hex; height: number }[];
  reveals: { oracle: Address; output: string; height: number }[];
  bids: { oracle: Address; price: string; height: number }[];
  verdicts: { juror: Address; verdict: 'uphold' | 'overturn' }[];
  result: string | null;
  winners: Address[];
  decidedAt: number | null;
  challenger: Address | null;
  bond: string | null;
  history: Omit<TaskTransition, 'id'>[];
  /** Height of its latest transition. */
  updatedAt: number;
  /**
   * With `?for=<address>`: the transactions that address may send to the task from the next
   * block, each with the heights it is open at — decided by the task's own rules (the ones
   * that refuse it in a block), so a client follows `actions` instead of restating them.
   */
  actions?: TaskAction[];
  /** With `?for=`: the head height the actions were decided at — an action open now has `from` = actionsAt + 1. */
  actionsAt?: number;
}

export interface TasksPage extends CappedPage {
  tasks: TaskView[];
  /**
   * With `since`: every task transition at heights in (since, cursor], oldest first, whole
   * blocks only — pass `cursor` as the next `since` and no transition is skipped or repeated
   * (with `final=true` only final heights are served, so a reorganization cannot undo one).
   */
  transitions?: TaskTransition[];
  cursor: number;
  finalizedHeight: number;
  height: number;
}

/** An oracle's record (modules/ai/oracles.ts) as GET /ai/oracles shows it. */
export interface OracleView extends OracleRecord {
  native: string;
  /**
   * active: may take duties; ineligible: registered but below MIN_ORACLE_STAKE or AI_MIN_REPUTATION (see `why`); left:
   * unbonding or gone.
   */
  status: 'active' | 'ineligible' | 'left';
  why: string | null;
  /**
   * Duties this node saw attempted after their window (refused AI_COMMIT/AI_REVEAL/AI_RESULT/AI_BID in its latest 1,000
   * transactions): node-local.
   */
  late: number;
}

export interface OraclesView {
  height: number;
  finalizedHeight: number;
  minStake: string;
  minReputation: number;
  oracles: OracleView[];
  rules: string;
}
