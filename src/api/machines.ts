import { machineGraph } from '../machines/graph';
import type { MachineDefinition } from '../views';
import { MACHINE_LIST } from '../modules/machines';

/** GET /machines: every machine of the node as data — states, events, legal moves, invariants — for fuzzers and tools (the shape is a view). */
export type { MachineDefinition };

let cached: MachineDefinition[] | undefined;

export function machineDefinitions(): MachineDefinition[] {
  cached ??= MACHINE_LIST.map((d) => {
    const g = machineGraph(d.machine);
    const root = d.machine.root;
    const finals = Object.values(root.states).filter((n) => n.type === 'final').map((n) => n.path.join('.'));
    return {
      name: d.name, title: d.title, source: d.source, onChain: d.onChain, initial: root.initial!.target[0].path.join('.'), final: finals, invariants: d.invariants,
      ...(d.statuses ? { statuses: [...d.statuses] } : {}), ...(d.deadlines ? { deadlines: { ...d.deadlines } } : {}), ...g,
    };
  });
  return cached;
}
