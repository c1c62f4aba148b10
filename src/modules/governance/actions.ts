import type { SnapshotFrom } from 'xstate';
import { actionsOf, type ActionProbe } from '../../machines/actions';
import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import { hasVotingPower } from './tally';
import { proposalDef } from './machine';

/** A transaction an address may send to a proposal, and the heights it is open at. */
// Spelled out, not MachineAction<…>: the OpenAPI generator names schemas after the type (machines/actions.ts has the
// field docs).
export interface VoteAction {
  type: 'GOV_VOTE';
  from: number;
  until: number | null;
}

const PROBES: ActionProbe<typeof proposalDef.machine, VoteAction['type']>[] = [
  // GOV_VOTE hands the machine a recount (TALLY); the rule that refuses it is the machine's (under vote).
  { type: 'GOV_VOTE', event: (c) => ({ type: 'TALLY', tally: c.tally, voters: c.voters }), until: (c) => c.votingEnds },
];

/**
 * What `who` may send to proposal `id` from `height` (the next block) on: the machine's rule (a
 * proposal under vote) and GOV_VOTE's own check of the voter in `s` (stake or votes received),
 * the same ones that refuse it in a block.
 */
export const proposalActions = async (
  s: ExecState,
  id: string,
  snapshot: SnapshotFrom<typeof proposalDef.machine>,
  who: Address,
  height: number,
): Promise<VoteAction[]> =>
  (await hasVotingPower(s, who)) ? actionsOf(proposalDef, id, snapshot, PROBES, who, height) : [];
