import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * A machine's definition as data: its states, the events it takes and the legal moves
 * (from, event, to), read from the XState config (guards are not evaluated: a guarded move
 * is legal when its guard may hold). Tests check observed transitions against it, and a
 * fuzzer can generate from it. State names are dotted leaf paths, as `stateName` reports them.
 */
export interface MachineGraph {
  states: string[];
  events: string[];
  transitions: { from: string; event: string; to: string }[];
}

export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const states: string[] = [];
  const events = new Set<string>();
  const transitions: MachineGraph['transitions'] = [];
  const nameOf = (n: AnyStateNode) => n.path.join('.');
  const visit = (node: AnyStateNode) => {
    const children = Object.values(node.states) as AnyStateNode[];
    if (node.path.length > 0 && children.length === 0) states.push(nameOf(node));
    for (const [event, defs] of node.transitions) {
      events.add(event);
      for (const d of defs)
        for (const t of d.target ?? [node]) transitions.push({ from: nameOf(node), event, to: nameOf(t) });
    }
    children.forEach(visit);
  };
  visit(machine.root);
  return { states, events: [...events].sort(), transitions };
}
