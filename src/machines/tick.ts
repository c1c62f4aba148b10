import type { ChainEvent } from '../protocol/events';
import type { ExecState } from '../protocol/execState';
import { TxFailure } from '../protocol/handler';
import { DEADLINE, type DeadlineEvent } from './define';
import { dueKey, readDue, type DueEntry } from './dueIndex';
import { MachineError } from './errors';
import { deadlineOf, loadInstance, step } from './instance';
import type { AnyMachineDef, MachineRegistry } from './registry';

export interface TickResult {
  /** `machine.transition` events (and effect events) in visiting order: the block's end-of-block events. */
  events: ChainEvent[];
  /** Instances that took a DEADLINE event. */
  ticked: number;
}

/**
 * The end-of-block tick at `height`: first each due instance's `beforeDeadline` hook (e.g. a
 * proposal's final recount), then `{ type: 'DEADLINE', height }` to each instance in
 * the due-height entry of `height`, in (machine, id) order, and removes the entry. With nothing
 * due it costs one read. An effect applier that schedules another instance at this same height
 * (from a transaction-phase sendEvent) is picked up by re-reading the entry until it stays empty.
 */
export async function tickMachines(state: ExecState, registry: MachineRegistry, height: number): Promise<TickResult> {
  const out: TickResult = { events: [], ticked: 0 };
  let due = await readDue(state, height);
  if (due === undefined) return out; // the common case: one read
  const before = await beforeDeadlines(state, registry, height, due);
  if (before.length > 0) {
    out.events.push(...before);
    due = await readDue(state, height); // a hook's step may have moved a deadline
  }
  for (; due !== undefined; due = await readDue(state, height)) {
    await state.deleteRecord(dueKey(height));
    for (const entry of due) {
      const events = await tickOne(state, definitionOf(registry, entry), entry.id, height);
      if (events) {
        out.events.push(...events);
        out.ticked++;
      }
    }
  }
  return out;
}

/** The `beforeDeadline` hooks of the instances due at `height`, all before any DEADLINE of that height is sent. */
async function beforeDeadlines(
  state: ExecState,
  registry: MachineRegistry,
  height: number,
  due: readonly DueEntry[],
): Promise<ChainEvent[]> {
  const events: ChainEvent[] = [];
  for (const entry of due) {
    const def = definitionOf(registry, entry);
    if (!def.beforeDeadline) continue;
    const snap = await loadInstance(state, def, entry.id);
    if (snap === undefined || deadlineOf(def, snap) !== height) continue;
    const event = await def.beforeDeadline({ state, height, machine: def.name, id: entry.id }, snap);
    if (event !== undefined)
      events.push(...(await step(state, def, entry.id, snap, event, height, 'beforeTick')).events);
  }
  return events;
}

function definitionOf(registry: MachineRegistry, entry: DueEntry): AnyMachineDef {
  const def = registry.get(entry.machine);
  if (!def)
    throw new MachineError(
      'MACHINE_NOT_REGISTERED',
      `machine ${entry.machine} (${entry.id}) is due but not registered`,
      { ...entry },
    );
  return def;
}

/**
 * One due instance. Its DEADLINE transition and effects run under a checkpoint: if an effect
 * throws TxFailure they are undone and `onTickFailure`'s event is sent instead (or the block halts).
 */
async function tickOne(
  state: ExecState,
  def: AnyMachineDef,
  id: string,
  height: number,
): Promise<ChainEvent[] | undefined> {
  const before = await loadInstance(state, def, id);
  // Moved or gone since it was scheduled (an effect of an earlier instance sent it an event).
  if (before === undefined || deadlineOf(def, before) !== height) return undefined;
  const deadline: DeadlineEvent = { type: DEADLINE, height };
  state.checkpoint();
  try {
    const { events } = await step(state, def, id, before, deadline, height, 'tick');
    await state.commit();
    return events;
  } catch (e) {
    await state.revert();
    if (!(e instanceof TxFailure)) throw e;
    const meta = { machine: def.name, id, height };
    if (!def.onTickFailure)
      throw new MachineError(
        'MACHINE_TICK_FAILED',
        `${def.name} ${id}: DEADLINE at ${height} failed: ${e.reason}`,
        meta,
        { cause: e },
      );
    try {
      return (await step(state, def, id, before, def.onTickFailure(e, height), height, 'tick')).events;
    } catch (e2) {
      if (e2 instanceof MachineError) throw e2;
      throw new MachineError(
        'MACHINE_TICK_FAILED',
        `${def.name} ${id}: the fallback of a failed DEADLINE at ${height} failed too`,
        meta,
        { cause: e2 },
      );
    }
  }
}
