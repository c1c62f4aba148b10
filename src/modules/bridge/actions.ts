import type { SnapshotFrom } from 'xstate';
import { actionsOf, type ActionProbe } from '../../machines/actions';
import { getCommittee } from '../../protocol/bridge';
import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import { transferDef } from './machine';
import { settlerRefusal } from './transfer';

/** A transaction an address may send to a bridge transfer, and the heights it is open at. */
// Spelled out, not MachineAction<…>: the OpenAPI generator names schemas after the type (machines/actions.ts has the
// field docs).
export interface TransferAction {
  type: 'BRIDGE_SETTLE';
  from: number;
  until: number | null;
}

const PROBES: ActionProbe<typeof transferDef.machine, TransferAction['type']>[] = [
  {
    type: 'BRIDGE_SETTLE',
    event: (_c, who, height) => ({ type: 'SETTLE', by: who, targetTx: '', height }),
    until: () => null,
  },
];

/**
 * What `who` may send to transfer `id` from `height` (the next block) on: the machine's rules
 * (an outbound transfer still LOCKED) and BRIDGE_SETTLE's own check of the sender (a member of
 * the committee in office in `s`) — the same functions that refuse it in a block.
 */
export const transferActions = async (
  s: ExecState,
  id: string,
  snapshot: SnapshotFrom<typeof transferDef.machine>,
  who: Address,
  height: number,
): Promise<TransferAction[]> =>
  settlerRefusal(await getCommittee(s), who) ? [] : actionsOf(transferDef, id, snapshot, PROBES, who, height);
