import { machineGraph, type MachineGraph } from '../machines/graph';
import { DIAGRAMS } from '../modules/diagrams';

/** GET /machines: every machine of the node as data — states, events, legal moves, invariants — for fuzzers and tools. */
export interface MachineDefinition extends MachineGraph {
  name: string;
  title: string;
  source: string;
  /** On-chain machines live in consensus state and move on transactions and block heights; node-local ones are each node's own. */
  onChain: boolean;
  initial: string;
  final: string[];
  invariants: readonly string[];
}

let cached: MachineDefinition[] | undefined;

export function machineDefinitions(): MachineDefinition[] {
  cached ??= DIAGRAMS.map((d) => {
    const g = machineGraph(d.machine);
    const root = d.machine.root;
    const finals = Object.values(root.states).filter((n) => n.type === 'final').map((n) => n.path.join('.'));
    return { name: d.name, title: d.title, source: d.source, onChain: d.onChain, initial: root.initial!.target[0].path.join('.'), final: finals, invariants: d.invariants, ...g };
  });
  return cached;
}
