import type { ActionsAnswer } from '../actors/protocol';
import { loadInstance } from '../machines/instance';
import { ON_CHAIN } from '../modules/machines';
import type { Address } from '../protocol/types';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ReadModel } from './ports';

/** What `who` may send to instance `id` of `machine` (`?for=`): the machine's view actor answers in a node. */
export type MachineActions = (machine: string, id: string, who: Address) => Promise<ActionsAnswer>;

/**
 * Outside a node (a reader with no view actors): the same module answer (machine list
 * `actions`), computed at the head.
 */
export function actionsAtHead(d: { kv: KvStore; view: ReadModel }): MachineActions {
  return async (machine, id, who) => {
    const head = d.view.head;
    const entry = ON_CHAIN.find((m) => m.name === machine);
    const state = await StateTrie.open(d.kv, head.stateRoot);
    const snap = entry && (await loadInstance(state, entry.def, id));
    const open = snap && (snap as { status: string }).status !== 'done';
    return {
      actions: open && entry.actions ? await entry.actions(state, id, snap, who, head.height + 1) : [],
      at: head.height,
    };
  };
}

/** The `actions` and `actionsAt` fields of an instance's view. */
export async function actionsView<A>(
  actions: MachineActions,
  machine: string,
  id: string,
  who: Address,
): Promise<{ actions: A[]; actionsAt: number }> {
  const r = await actions(machine, id, who);
  return { actions: r.actions as A[], actionsAt: r.at };
}
