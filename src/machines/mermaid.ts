import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * A Mermaid `stateDiagram-v2` drawn from a machine's own definition, so the pictures in the
 * docs cannot drift from the code (docs/PROTOCOL.md "State machines", `npm run docs:types`).
 * Edges are labelled with their events (a guarded alternative is an edge of its own; the
 * same from/event/to is drawn once) with the guard's name in brackets; eventless (`always`)
 * moves show only their guard; moves that stay in the same state (context steps) are listed under the state
 * instead of drawn as loops.
 */
/** A named guard's name (inline guards have none to show). */
const guardOf = (g: unknown): string | undefined =>
  typeof g === 'string'
    ? g
    : typeof g === 'object' && g !== null && typeof (g as { type?: unknown }).type === 'string'
      ? (g as { type: string }).type
      : undefined;

export function mermaidDiagram(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  const name = (n: AnyStateNode) => n.path.join('.') || machine.id;
  const edges = new Set<string>();
  const steps = new Map<string, Set<string>>();
  const edge = (from: string, to: string, label: string) => {
    if (from === to) {
      steps.set(from, (steps.get(from) ?? new Set()).add(label));
      return;
    }
    const line = `  ${from} --> ${to}: ${label}`;
    if (!edges.has(line)) edges.add(line);
  };
  const finals: string[] = [];
  const visit = (node: AnyStateNode) => {
    const children = Object.values(node.states) as AnyStateNode[];
    if (node.path.length > 0 && node.type === 'final') finals.push(name(node));
    for (const [event, defs] of node.transitions) {
      for (const d of defs)
        for (const t of d.target ?? [node])
          edge(name(node), name(t), guardOf(d.guard) ? `${event} [${guardOf(d.guard)}]` : event);
    }
    for (const d of node.always ?? [])
      for (const t of d.target ?? [node]) edge(name(node), name(t), `[${guardOf(d.guard) ?? 'otherwise'}]`);
    children.forEach(visit);
  };
  visit(machine.root);
  // A parallel machine starts in each region's initial state.
  const regions =
    machine.root.type === 'parallel' ? (Object.values(machine.root.states) as AnyStateNode[]) : [machine.root];
  for (const r of regions) {
    const initial = r.initial?.target?.[0];
    if (initial) lines.push(`  [*] --> ${name(initial)}`);
  }
  lines.push(...edges);
  for (const f of finals) lines.push(`  ${f} --> [*]`);
  for (const [state, events] of steps)
    lines.push(`  note right of ${state}: also takes ${[...events].sort().join(', ')} (no state change)`);
  return lines.join('\n');
}
