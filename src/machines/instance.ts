import {
  initialTransition,
  transition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFrom,
  type EventObject,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import type { ChainEvent } from '../protocol/events';
import type { ExecState } from '../protocol/execState';
import { TxFailure } from '../protocol/handler';
import type { Refusal } from '../protocol/refusal';
import { MACHINE } from './refusals';
import type { EffectContext, EffectOf, MachineDef } from './define';
import { moveDeadline } from './dueIndex';
import { MachineError } from './errors';
import { loadRecord, machineKey, restore, stateName, toRecord } from './record';

/** What one accepted event did: the new snapshot, the effects applied (in order), the events to report. */
export interface MachineStep<M extends AnyStateMachine> {
  snapshot: SnapshotFrom<M>;
  effects: EffectOf<M>[];
  /** The `machine.transition` event first, then whatever the effect appliers returned. */
  events: ChainEvent[];
}

/**
 * Where a step runs. In a transaction ('tx') a refusal is a TxFailure: the transaction fails
 * and its changes are reverted. In the end-of-block tick there is no transaction to fail,
 * so the same refusal is a broken invariant (MachineError, halts). 'beforeTick': a definition's
 * beforeDeadline hook, before the DEADLINEs of its height (a refusal halts too; the deadline may
 * stay at this height, which the tick visits next).
 */
export type Phase = 'tx' | 'tick' | 'beforeTick';

/** Generic snapshots do not resolve to MachineSnapshot inside generic code; this is the same object. */
const snap = (s: unknown): AnyMachineSnapshot => s as AnyMachineSnapshot;

const refusal = (phase: Phase, r: Refusal, meta: Record<string, unknown>): Error =>
  phase === 'tx' ? new TxFailure(r) : new MachineError('MACHINE_TICK_FAILED', r.reason, { ...meta, code: r.code });

/** The current snapshot of an instance, or undefined if it was never created. */
export async function loadInstance<M extends AnyStateMachine>(
  state: ExecState,
  def: MachineDef<M>,
  id: string,
): Promise<SnapshotFrom<M> | undefined> {
  const rec = await loadRecord(state, def.name, id);
  return rec === undefined ? undefined : restore(def, id, rec);
}

/** Starts instance `id` in the machine's initial state (its entry actions are effects too). */
export async function createInstance<M extends AnyStateMachine>(
  state: ExecState,
  def: MachineDef<M>,
  id: string,
  input: InputFrom<M>,
  height: number,
): Promise<MachineStep<M>> {
  if ((await loadRecord(state, def.name, id)) !== undefined)
    throw new TxFailure(MACHINE.MACHINE_INSTANCE_EXISTS({ machine: def.name, id }));
  const [snapshot, actions] = (initialTransition as (m: M, i: InputFrom<M>) => [SnapshotFrom<M>, unknown[]])(
    def.machine,
    input,
  );
  return save(state, def, id, {
    before: undefined,
    event: 'xstate.init',
    after: snapshot,
    actions,
    height,
    phase: 'tx',
  });
}

/**
 * Sends `event` to instance `id` inside a transaction. An event its state does not take
 * (`snapshot.can` is false: no such transition, or its guard refuses) is a TxFailure naming the
 * machine, id, state and event, and nothing is written.
 */
export async function sendEvent<M extends AnyStateMachine>(
  state: ExecState,
  def: MachineDef<M>,
  id: string,
  event: EventFrom<M>,
  height: number,
): Promise<MachineStep<M>> {
  const before = await loadInstance(state, def, id);
  if (before === undefined) throw new TxFailure(MACHINE.MACHINE_INSTANCE_MISSING({ machine: def.name, id }));
  return step(state, def, id, before, event, height, 'tx');
}

/**
 * Why instance `id` (in `snapshot`) does not take `event`, or undefined when it does: the
 * reason of the first of the event's rules that refuses it, else the generic "in state … does
 * not take …". A handler that must check more than the machine knows (an oracle's stake, a
 * bond against a parameter) asks this first, so refusals keep the machine's order.
 */
export function refusalOf<M extends AnyStateMachine>(
  def: MachineDef<M>,
  id: string,
  snapshot: SnapshotFrom<M>,
  event: EventFrom<M>,
): Refusal | undefined {
  if (snap(snapshot).can(event)) return undefined;
  const type = (event as EventObject).type;
  const status = stateName(snap(snapshot).value);
  const rules =
    (
      def.rules as
        | Record<string, readonly ((c: unknown, e: unknown, id: string, status: string) => Refusal | undefined)[]>
        | undefined
    )?.[type] ?? [];
  for (const rule of rules) {
    const r = rule(snap(snapshot).context, event, id, status);
    if (r !== undefined) return r;
  }
  return MACHINE.MACHINE_EVENT_REFUSED({ machine: def.name, id, status, event: type });
}

/** One event through `transition`, after the `can` check; shared by transactions and the tick. */
export async function step<M extends AnyStateMachine>(
  state: ExecState,
  def: MachineDef<M>,
  id: string,
  before: SnapshotFrom<M>,
  event: EventFrom<M>,
  height: number,
  phase: Phase,
): Promise<MachineStep<M>> {
  const type = (event as EventObject).type;
  const refused = refusalOf(def, id, before, event);
  if (refused !== undefined) throw refusal(phase, refused, { machine: def.name, id, event: type });
  const [after, actions] = transition(def.machine, before, event) as [SnapshotFrom<M>, unknown[]];
  return save(state, def, id, { before, event: type, after, actions, height, phase });
}

interface Change<M extends AnyStateMachine> {
  before: SnapshotFrom<M> | undefined;
  event: string;
  after: SnapshotFrom<M>;
  actions: unknown[];
  height: number;
  phase: Phase;
}

/** Stores the new record, moves the deadline, reports the transition, then applies the effects in order. */
async function save<M extends AnyStateMachine>(
  state: ExecState,
  def: MachineDef<M>,
  id: string,
  c: Change<M>,
): Promise<MachineStep<M>> {
  const effects = effectsOf(def, id, c.actions);
  const from = c.before === undefined ? null : deadlineOf(def, c.before);
  const to = deadlineOf(def, c.after);
  // A tick may not schedule at the height it is ticking (that entry is already being visited).
  const earliest = c.phase === 'tick' ? c.height + 1 : c.height;
  if (to !== null && (!Number.isSafeInteger(to) || to < earliest)) {
    const r = MACHINE.MACHINE_DEADLINE_PAST({
      machine: def.name,
      id,
      status: stateName(snap(c.after).value),
      deadline: Number(to),
      earliest,
    });
    throw c.phase === 'tx'
      ? new TxFailure(r)
      : new MachineError('MACHINE_BAD_DEADLINE', r.reason, { machine: def.name, id, deadline: to });
  }
  await state.putRecord(machineKey(def.name, id), toRecord(def, c.after));
  await moveDeadline(state, { machine: def.name, id }, from, to);

  const events: ChainEvent[] = [
    {
      kind: 'machine.transition',
      machine: def.name,
      id,
      from: c.before === undefined ? '' : stateName(snap(c.before).value),
      to: stateName(snap(c.after).value),
      event: c.event,
      height: c.height,
      ...(def.summary ? { summary: (def.summary as (s: SnapshotFrom<M>) => Record<string, string>)(c.after) } : {}),
    },
  ];
  const ctx: EffectContext = { state, height: c.height, machine: def.name, id };
  const appliers = def.effects as Record<string, (ctx: EffectContext, params: unknown) => Promise<ChainEvent[] | void>>;
  for (const e of effects) {
    const { type, params } = e as { type: string; params: unknown };
    const out = await appliers[type](ctx, params);
    if (out) events.push(...out);
  }
  return { snapshot: c.after, effects, events };
}

export const deadlineOf = <M extends AnyStateMachine>(def: MachineDef<M>, s: SnapshotFrom<M>): number | null =>
  def.deadline ? (def.deadline as (s: SnapshotFrom<M>) => number | null)(s) : null;

/** The named actions of a transition as plain data; XState's own (spawn, sendTo, delayed raise) cannot run on-chain. */
function effectsOf<M extends AnyStateMachine>(def: MachineDef<M>, id: string, actions: unknown[]): EffectOf<M>[] {
  return actions.map((a) => {
    const { type, params } = a as { type: string; params: unknown };
    if (!Object.hasOwn(def.effects, type)) {
      throw new MachineError('MACHINE_UNSUPPORTED_ACTION', `machine ${def.name} ${id}: action ${type} has no applier`, {
        machine: def.name,
        id,
        action: type,
      });
    }
    return { type, params } as EffectOf<M>;
  });
}
