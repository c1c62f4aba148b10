import type { AnyMachineSnapshot, AnyStateMachine, SnapshotFrom, StateValue } from 'xstate';
import type { ExecState } from '../protocol/execState';
import { recordKey } from '../protocol/records';
import type { MachineDef } from './define';
import { MachineError } from './errors';

/**
 * A machine instance in consensus state (`mach/<machine>/<id>`), canonical JSON. Only the
 * state value and context are kept: XState's persisted snapshot carries internal fields that
 * are not a stable thing to hash. The history lives in `machine.transition` events instead.
 */
export interface MachineRecord {
  machine: string;
  version: number;
  value: StateValue;
  context: unknown;
}

export const machineKey = (machine: string, id: string): string => recordKey('machine', machine, id);

export const toRecord = <M extends AnyStateMachine>(def: MachineDef<M>, s: SnapshotFrom<M>): MachineRecord => ({
  machine: def.name,
  version: def.version,
  value: (s as AnyMachineSnapshot).value,
  context: (s as AnyMachineSnapshot).context ?? {},
});

/**
 * Rebuilds the snapshot with `resolveState`. A record of another machine or version, or a
 * state value the definition lacks, is a broken invariant (halts): reloading it silently
 * could give a different snapshot on a node running other code.
 */
export function restore<M extends AnyStateMachine>(
  def: MachineDef<M>,
  id: string,
  rec: MachineRecord,
): SnapshotFrom<M> {
  const meta = { machine: def.name, id, version: rec.version };
  if (rec.machine !== def.name || rec.version !== def.version) {
    throw new MachineError(
      'MACHINE_UNKNOWN_VERSION',
      `machine record ${rec.machine} v${rec.version} (${id}) cannot be loaded by ${def.name} v${def.version}`,
      meta,
    );
  }
  try {
    return def.machine.resolveState({ value: rec.value, context: rec.context as never }) as SnapshotFrom<M>;
  } catch (e) {
    throw new MachineError(
      'MACHINE_BAD_RECORD',
      `machine ${def.name} ${id}: stored state ${JSON.stringify(rec.value)} does not exist`,
      meta,
      { cause: e },
    );
  }
}

export async function loadRecord(state: ExecState, machine: string, id: string): Promise<MachineRecord | undefined> {
  return state.getRecord<MachineRecord>(machineKey(machine, id));
}

/**
 * A state value as one string: 'open' or, for nested states, the dotted path of each active
 * leaf ('open.leading'); parallel regions are joined with ',' in definition order.
 */
export function stateName(v: StateValue): string {
  if (typeof v === 'string') return v;
  const leaves: string[] = [];
  for (const [k, child] of Object.entries(v)) {
    if (child === undefined || (typeof child === 'object' && Object.keys(child).length === 0)) leaves.push(k);
    else for (const leaf of stateName(child).split(',')) leaves.push(`${k}.${leaf}`);
  }
  return leaves.join(',');
}
