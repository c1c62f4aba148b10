import type { AnyStateMachine } from 'xstate';
import { machineGraph } from '../machines/graph';
import type { MachineDefinition } from '../views';
import { MACHINE_LIST } from '../modules/machines';

/**
 * GET /machines: every machine of the node as data — states, events, legal moves, invariants — for fuzzers and tools
 * (the shape is a view).
 */
export type { MachineDefinition };

let cached: MachineDefinition[] | undefined;

/** The initial state's path; a parallel machine's is each region's, joined by ' | '. */
const initialOf = (m: AnyStateMachine): string =>
  m.root.type === 'parallel'
    ? Object.values(m.root.states)
        .map((r) => r.initial!.target[0].path.join('.'))
        .join(' | ')
    : m.root.initial!.target[0].path.join('.');

export function machineDefinitions(): MachineDefinition[] {
  cached ??= MACHINE_LIST.map((d) => {
    const g = machineGraph(d.machine);
    const root = d.machine.root;
    const tops =
      root.type === 'parallel'
        ? Object.values(root.states).flatMap((r) => Object.values(r.states))
        : Object.values(root.states);
    const finals = tops.filter((n) => n.type === 'final').map((n) => n.path.join('.'));
    return {
      name: d.name,
      title: d.title,
      source: d.source,
      onChain: d.onChain,
      initial: initialOf(d.machine),
      final: finals,
      invariants: d.invariants,
      ...(d.statuses ? { statuses: [...d.statuses] } : {}),
      ...(d.deadlines ? { deadlines: { ...d.deadlines } } : {}),
      ...g,
    };
  });
  return cached;
}
