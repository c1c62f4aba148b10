import type { SnapshotFrom } from 'xstate';
import { refusalOf } from '../../machines/instance';
import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { bestBid, taskDef, type TaskContext, type TaskEvent } from './machine';

/**
 * A transaction an address may send to a task, as far as the task's machine knows (an
 * oracle's stake is the oracle record's business: AI_COMMIT, AI_BID, AI_VERDICT and the
 * awarded oracle also need it), and the heights it is open at.
 */
export interface TaskAction {
  type: 'AI_COMMIT' | 'AI_REVEAL' | 'AI_BID' | 'AI_AWARD' | 'AI_RESULT' | 'AI_CHALLENGE' | 'AI_VERDICT' | 'AI_CLAIM' | 'AI_REFUND';
  /** The first height it can be included at: the next block's, or later when its window has not opened yet. */
  from: number;
  /** The last height it can be included at if nothing else moves the task first; null: no closing height. */
  until: number | null;
}

const NO_COMMIT = `0x${'00'.repeat(32)}` as Hex;

/**
 * The event each transaction type sends, for `who` at `height`. Payloads the rules do not read
 * are placeholders; AI_AWARD names the best bid (any bidder would do for the rules).
 */
const PROBES: { type: TaskAction['type']; event: (c: TaskContext, who: Address, height: number) => TaskEvent | null; until: (c: TaskContext) => number | null; opens?: (c: TaskContext) => number | null }[] = [
  { type: 'AI_COMMIT', event: (_c, who, height) => ({ type: 'COMMIT', oracle: who, commit: NO_COMMIT, height }), until: (c) => c.commitEnds },
  { type: 'AI_REVEAL', event: (_c, who, height) => ({ type: 'REVEAL', oracle: who, output: '', height }), until: (c) => c.revealEnds },
  { type: 'AI_BID', event: (_c, who, height) => ({ type: 'BID', oracle: who, price: '0', height }), until: (c) => c.bidEnds },
  {
    type: 'AI_AWARD',
    event: (c, who, height) => {
      const oracle = bestBid(c);
      return oracle ? { type: 'AWARD', oracle, by: who, height } : null;
    },
    until: (c) => c.bidEnds,
  },
  { type: 'AI_RESULT', event: (_c, who, height) => ({ type: 'RESULT', oracle: who, output: '', height }), until: (c) => c.expiresAt },
  { type: 'AI_CHALLENGE', event: (_c, who, height) => ({ type: 'CHALLENGE', challenger: who, bond: '0', height }), until: (c) => c.challengeEnds },
  { type: 'AI_VERDICT', event: (_c, who) => ({ type: 'VERDICT', juror: who, verdict: 'uphold' }), until: (c) => c.verdictEnds },
  // A claim waits for the challenge window to close.
  { type: 'AI_CLAIM', event: (_c, _who, height) => ({ type: 'CLAIM', height }), until: () => null, opens: (c) => (c.challengeEnds === null ? null : c.challengeEnds + 1) },
  { type: 'AI_REFUND', event: () => ({ type: 'REFUND' }), until: () => null },
];

/**
 * What `who` may send to task `id` (in `snapshot`) for inclusion at `height` (the next block)
 * or later in the current phase: each transaction type whose event the machine's rules take —
 * the same rules that refuse it in a block, so a client never restates them.
 */
export function taskActions(id: string, snapshot: SnapshotFrom<typeof taskDef.machine>, who: Address, height: number): TaskAction[] {
  const c = snapshot.context;
  const out: TaskAction[] = [];
  for (const p of PROBES) {
    const open = (at: number) => {
      const event = p.event(c, who, at);
      return event !== null && refusalOf(taskDef, id, snapshot, event) === undefined;
    };
    if (open(height)) {
      out.push({ type: p.type, from: height, until: p.until(c) });
      continue;
    }
    const later = p.opens?.(c);
    if (later != null && later > height && open(later)) out.push({ type: p.type, from: later, until: p.until(c) });
  }
  return out;
}
