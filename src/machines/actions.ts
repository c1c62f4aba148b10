import type { AnyStateMachine, EventFrom, SnapshotFrom } from 'xstate';
import type { ExecState } from '../protocol/execState';
import type { Address } from '../protocol/types';
import type { MachineDef } from './define';
import { refusalOf } from './instance';

/** A transaction an address may send to an instance, and the heights it is open at. */
export interface MachineAction<T extends string = string> {
  type: T;
  /** The first height it can be included at: the next block's, or later when its window has not opened yet. */
  from: number;
  /** The last height it can be included at if nothing else moves the instance first; null: no closing height. */
  until: number | null;
}

/**
 * A module's answer to what `who` may send to an instance for inclusion at `height`: its
 * machine's rules (`actionsOf`) and the module's own checks of the sender, read from `state`
 * (a voter's stake, the bridge committee). The machine list carries one per machine that has
 * actions; the machine's view actor answers with it.
 */
// `any`: the machine list holds machines of every type.
export type ActionsAt<S = any> = (
  state: ExecState,
  id: string,
  snapshot: S,
  who: Address,
  height: number,
) => Promise<readonly MachineAction[]>;

/**
 * How a transaction type reaches a machine: the event it sends for `who` at `height` (payloads
 * the rules do not read are placeholders; null when it cannot be formed now), the height its
 * window closes at, and — for one that opens later in the same state — the height it opens at.
 */
export interface ActionProbe<M extends AnyStateMachine, T extends string> {
  type: T;
  event(context: SnapshotFrom<M>['context'], who: Address, height: number): EventFrom<M> | null;
  until(context: SnapshotFrom<M>['context']): number | null;
  opens?(context: SnapshotFrom<M>['context']): number | null;
}

/**
 * What `who` may send to instance `id` (in `snapshot`) for inclusion at `height` (the next
 * block) or later in its current state: each probe's transaction whose event the machine takes
 * — the same rules that refuse it in a block (`refusalOf`), so a client never restates them.
 */
export function actionsOf<M extends AnyStateMachine, T extends string>(
  def: MachineDef<M>,
  id: string,
  snapshot: SnapshotFrom<M>,
  probes: readonly ActionProbe<M, T>[],
  who: Address,
  height: number,
): MachineAction<T>[] {
  const c = (snapshot as { context: SnapshotFrom<M>['context'] }).context;
  const out: MachineAction<T>[] = [];
  for (const p of probes) {
    const open = (at: number) => {
      const event = p.event(c, who, at);
      return event !== null && refusalOf(def, id, snapshot, event) === undefined;
    };
    if (open(height)) {
      out.push({ type: p.type, from: height, until: p.until(c) });
      continue;
    }
    const later = p.opens?.(c);
    if (later != null && later > height && open(later)) out.push({ type: p.type, from: later, until: p.until(c) });
  }
  return out;
}
