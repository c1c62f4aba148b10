import type { MachineDef } from './define';
import { MachineError } from './errors';

/** A definition of any machine, as the tick sees it (it only needs the name to find it). */
export type AnyMachineDef = MachineDef<any>;

/** Definitions by name: how the tick finds the definition of a due instance. */
export type MachineRegistry = ReadonlyMap<string, AnyMachineDef>;

export function machineRegistry(defs: readonly AnyMachineDef[]): MachineRegistry {
  const byName = new Map<string, AnyMachineDef>();
  for (const d of defs) {
    if (byName.has(d.name))
      throw new MachineError('MACHINE_BAD_DEFINITION', `machine ${d.name} is registered twice`, { machine: d.name });
    byName.set(d.name, d);
  }
  return byName;
}
