import type { SnapshotFrom } from 'xstate';
import { actionsOf, type ActionProbe } from '../../machines/actions';
import type { Hex } from '../../primitives/hex';
import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import { bestBid, taskDef } from './machine';

/**
 * A transaction an address may send to a task, as far as the task's machine knows (an
 * oracle's stake is the oracle record's business: AI_COMMIT, AI_BID, AI_VERDICT and the
 * awarded oracle also need it), and the heights it is open at.
 */
// Spelled out, not MachineAction<…>: the OpenAPI generator names schemas after the type (machines/actions.ts has the
// field docs).
export interface TaskAction {
  type:
    | 'AI_COMMIT'
    | 'AI_REVEAL'
    | 'AI_BID'
    | 'AI_AWARD'
    | 'AI_RESULT'
    | 'AI_CHALLENGE'
    | 'AI_VERDICT'
    | 'AI_CLAIM'
    | 'AI_REFUND';
  from: number;
  until: number | null;
}

const NO_COMMIT = `0x${'00'.repeat(32)}` as Hex;

/** The event each transaction type sends; AI_AWARD names the best bid (any bidder would do for the rules). */
const PROBES: ActionProbe<typeof taskDef.machine, TaskAction['type']>[] = [
  {
    type: 'AI_COMMIT',
    event: (_c, who, height) => ({ type: 'COMMIT', oracle: who, commit: NO_COMMIT, height }),
    until: (c) => c.commitEnds,
  },
  {
    type: 'AI_REVEAL',
    event: (_c, who, height) => ({ type: 'REVEAL', oracle: who, output: '', height }),
    until: (c) => c.revealEnds,
  },
  {
    type: 'AI_BID',
    event: (_c, who, height) => ({ type: 'BID', oracle: who, price: '0', height }),
    until: (c) => c.bidEnds,
  },
  {
    type: 'AI_AWARD',
    event: (c, who, height) => {
      const oracle = bestBid(c);
      return oracle ? { type: 'AWARD', oracle, by: who, height } : null;
    },
    until: (c) => c.bidEnds,
  },
  {
    type: 'AI_RESULT',
    event: (_c, who, height) => ({ type: 'RESULT', oracle: who, output: '', height }),
    until: (c) => c.expiresAt,
  },
  {
    type: 'AI_CHALLENGE',
    event: (_c, who, height) => ({ type: 'CHALLENGE', challenger: who, bond: '0', height }),
    until: (c) => c.challengeEnds,
  },
  {
    type: 'AI_VERDICT',
    event: (_c, who) => ({ type: 'VERDICT', juror: who, verdict: 'uphold' }),
    until: (c) => c.verdictEnds,
  },
  // A claim waits for the challenge window to close.
  {
    type: 'AI_CLAIM',
    event: (_c, _who, height) => ({ type: 'CLAIM', height }),
    until: () => null,
    opens: (c) => (c.challengeEnds === null ? null : c.challengeEnds + 1),
  },
  { type: 'AI_REFUND', event: () => ({ type: 'REFUND' }), until: () => null },
];

/** What `who` may send to task `id` (in `snapshot`) from `height` (the next block) on, by the machine's rules. */
export const taskActions = (
  id: string,
  snapshot: SnapshotFrom<typeof taskDef.machine>,
  who: Address,
  height: number,
): TaskAction[] => actionsOf(taskDef, id, snapshot, PROBES, who, height);

/** The same, as the machine list holds it (nothing outside the task is read). */
export const taskActionsAt = async (
  _s: ExecState,
  id: string,
  snapshot: SnapshotFrom<typeof taskDef.machine>,
  who: Address,
  height: number,
): Promise<TaskAction[]> => taskActions(id, snapshot, who, height);
