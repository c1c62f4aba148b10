import type { ExecState } from '../protocol/execState';
import { recordKey } from '../protocol/records';

/**
 * The due-height index (consensus state): `due/<height>` → the instances whose deadline is
 * that height, sorted by (machine, id) so every node visits them in the same order. The tick
 * of a block with nothing due costs one read.
 */
export interface DueEntry {
  machine: string;
  id: string;
}

export const dueKey = (height: number): string => recordKey('machineDue', height);

// Code-unit order: the same on every node, unlike localeCompare.
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const order = (a: DueEntry, b: DueEntry): number => cmp(a.machine, b.machine) || cmp(a.id, b.id);

export const readDue = (state: ExecState, height: number): Promise<DueEntry[] | undefined> =>
  state.getRecord<DueEntry[]>(dueKey(height));

/** Moves an instance from the entry of height `from` to that of `to` (null: none). */
export async function moveDeadline(
  state: ExecState,
  who: DueEntry,
  from: number | null,
  to: number | null,
): Promise<void> {
  if (from === to) return;
  if (from !== null) {
    const list = (await readDue(state, from)) ?? [];
    const rest = list.filter((e) => order(e, who) !== 0);
    if (rest.length === list.length) {
      // not scheduled there: nothing to remove
    } else if (rest.length === 0) await state.deleteRecord(dueKey(from));
    else await state.putRecord(dueKey(from), rest);
  }
  if (to !== null) {
    const list = (await readDue(state, to)) ?? [];
    let i = 0;
    while (i < list.length && order(list[i], who) < 0) i++;
    if (i < list.length && order(list[i], who) === 0) return;
    list.splice(i, 0, { machine: who.machine, id: who.id });
    await state.putRecord(dueKey(to), list);
  }
}
