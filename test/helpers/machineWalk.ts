import { transition, type AnyMachineSnapshot, type AnyStateMachine, type EventFrom, type SnapshotFrom } from 'xstate';
import { canonicalJson } from '../../src/primitives/canonical';
import { machineGraph } from '../../src/machines/graph';
import { stateName } from '../../src/machines/record';

/** The moves `machine`'s graph (machineGraph) allows, as "from>to": what observed transitions are checked against. */
export const legalMoves = (machine: AnyStateMachine): Set<string> =>
  new Set(machineGraph(machine).transitions.map((t) => `${t.from}>${t.to}`));

export interface Walk {
  /** Every state name (as the helper reports it) reached. */
  states: Set<string>;
  /** (state, event) pairs where `snapshot.can(event)` disagreed with what `transition` did. */
  disagreements: string[];
  /** Distinct snapshots (value + context) visited. */
  visited: number;
}

/**
 * Breadth-first walk of a machine through XState's pure `transition` (`@xstate/graph` is not
 * installed): from `start`, every event of `alphabet(snapshot)` up to `maxDepth` steps,
 * deduplicated by canonical (value, context). Checks on the way that `can(event)` is true
 * exactly when `transition` changes the snapshot. For any machine of the helper (issue 10–12).
 */
export function walkMachine<M extends AnyStateMachine>(
  machine: M,
  start: SnapshotFrom<M>,
  alphabet: (s: SnapshotFrom<M>) => EventFrom<M>[],
  maxDepth: number,
  /** Sees every (snapshot, event) pair tried, with whether the snapshot takes it. */
  visit?: (s: SnapshotFrom<M>, e: EventFrom<M>, can: boolean) => void,
): Walk {
  const key = (s: AnyMachineSnapshot) => canonicalJson({ value: s.value, context: s.context });
  const seen = new Set<string>([key(start as AnyMachineSnapshot)]);
  const walk: Walk = {
    states: new Set([stateName((start as AnyMachineSnapshot).value)]),
    disagreements: [],
    visited: 1,
  };
  let frontier: SnapshotFrom<M>[] = [start];
  for (let depth = 0; depth < maxDepth && frontier.length > 0; depth++) {
    const next: SnapshotFrom<M>[] = [];
    for (const s of frontier) {
      for (const e of alphabet(s)) {
        const [after] = transition(machine, s, e);
        const can = (s as AnyMachineSnapshot).can(e);
        visit?.(s, e, can);
        const moved = after !== s;
        if (can !== moved)
          walk.disagreements.push(
            `${stateName((s as AnyMachineSnapshot).value)} × ${canonicalJson(e)}: can=${can}, moved=${moved}`,
          );
        if (!moved) continue;
        const k = key(after as AnyMachineSnapshot);
        if (seen.has(k)) continue;
        seen.add(k);
        walk.states.add(stateName((after as AnyMachineSnapshot).value));
        next.push(after);
      }
    }
    walk.visited += next.length;
    frontier = next;
  }
  return walk;
}
