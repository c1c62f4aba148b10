import type { AnyStateMachine, EventFrom, ParameterizedObject, SnapshotFrom, StateMachine } from 'xstate';
import type { ChainEvent } from '../protocol/events';
import type { ExecState } from '../protocol/execState';
import type { TxFailure } from '../protocol/handler';
import type { Refusal } from '../protocol/refusal';
import { MachineError } from './errors';

/**
 * The event the end-of-block tick sends an instance at the height its `deadline` named.
 * Deadlines are heights, never XState `after` delays: every node ticks the same heights.
 */
export interface DeadlineEvent {
  type: 'DEADLINE';
  height: number;
}
export const DEADLINE: DeadlineEvent['type'] = 'DEADLINE';

type ActionsOf<M> =
  M extends StateMachine<any, any, any, any, infer A, any, any, any, any, any, any, any, any, any, any> ? A : never;

/**
 * An effect of machine M as data: one of the named actions declared in its `setup({ actions })`,
 * with the params XState resolved for this transition. The helper hands each one to the
 * applier of the same name in the definition's `effects`.
 */
export type EffectOf<M> =
  ActionsOf<M> extends infer A
    ? A extends ParameterizedObject
      ? { type: A['type']; params: A['params'] }
      : never
    : never;

/** What an effect applier sees: the state to change and which instance asked, at which height. */
export interface EffectContext {
  state: ExecState;
  height: number;
  machine: string;
  id: string;
}

/**
 * One applier per named action of M (a forgotten one fails to compile). It may change state,
 * return ChainEvents for the indexes (e.g. a token transfer), or throw TxFailure.
 */
export type EffectAppliers<M> = {
  [A in EffectOf<M> as A['type']]: (ctx: EffectContext, params: A['params']) => Promise<ChainEvent[] | void>;
};

/**
 * A named rule of a machine: why `event` may not happen to instance `id` in `context` (a
 * Refusal from the module's catalog: code, reason, metadata), or undefined when it may. One function is both the XState
 * guard (`holds`) and, when the machine
 * refuses the event, the refusal's reason (the kit asks the event's rules in order: `sendEvent`,
 * `refusalOf`): a rule is written once, in the machine, never again in a handler or a client.
 * A rule that reads `status` (the state's name) refuses by state — the words for an event the
 * state does not take — and is never a guard (a guard is placed in the state it holds in).
 */
// (Method syntax: a definition with rules stays assignable to a definition of any machine.)
export type Rule<C, E> = { rule(context: C, event: E, id: string, status: string): Refusal | undefined }['rule'];

/** The XState guard of rules: true when none refuses (the id does not change the verdict). */
export const holds =
  <C, E>(...rules: Rule<C, E>[]) =>
  ({ context, event }: { context: C; event: unknown }): boolean =>
    rules.every((rule) => rule(context, event as E, '', '') === undefined);

/** The names of a machine's top-level states (the `status` words of its API), as a type. */
export type StatusOf<M extends AnyStateMachine> = Extract<SnapshotFrom<M>['value'], string>;

/** Context fields that hold a height (or null): what a state's deadline may name. */
type HeightKeys<C> = { [K in keyof C]: C[K] extends number | null ? K : never }[keyof C];

/**
 * Per-state deadlines as data: in state S the instance wants DEADLINE at `context[deadlines[S]]`
 * (null: none yet). Readers use the same table for "the window this state is open until".
 */
export type DeadlineTable<M extends AnyStateMachine> = Partial<
  Record<StatusOf<M>, HeightKeys<SnapshotFrom<M>['context']>>
>;

/** A machine as it runs on-chain. Build one with `defineMachine`. */
export interface MachineDef<M extends AnyStateMachine> {
  /** Names the record (`mach/<name>/<id>`) and the history; no '/'. */
  name: string;
  /**
   * Stored in every record; a record of another version halts loading (bump it with any change to states or context).
   */
  version: number;
  /** `setup({ types, actions, guards }).createMachine(…)`: guards and assigns pure, no delays, no invocations. */
  machine: M;
  /**
   * The height at which this snapshot wants a DEADLINE event, or null. Recomputed after every
   * transition; only machines whose events include DeadlineEvent may have one.
   */
  deadline?: DeadlineEvent extends EventFrom<M> ? (snapshot: SnapshotFrom<M>) => number | null : never;
  /** The same, as data (top-level states only): `defineMachine` derives `deadline` from it. */
  deadlines?: DeadlineEvent extends EventFrom<M> ? DeadlineTable<M> : never;
  /**
   * Before the DEADLINE events of a height are sent, each due instance (in (machine, id) order)
   * may take one event first: e.g. a proposal's final recount, so the decision sees the stakes
   * of the window's last block. Returns the event, or undefined for none.
   */
  beforeDeadline?: (ctx: EffectContext, snapshot: SnapshotFrom<M>) => Promise<EventFrom<M> | undefined>;
  /** Appliers of the machine's named actions. */
  effects: EffectAppliers<M>;
  /**
   * The rules each event type must pass, in the order their reasons are worth giving: when
   * the snapshot does not take an event, the first rule that refuses it gives the refusal's
   * reason; when none does, the state itself does not take it (the generic refusal).
   */
  rules?: {
    [T in EventFrom<M>['type']]?: readonly Rule<SnapshotFrom<M>['context'], Extract<EventFrom<M>, { type: T }>>[];
  };
  /**
   * The event to send instead when an effect of a DEADLINE transition throws TxFailure (the
   * tick has no transaction to fail): e.g. a proposal whose execution is refused becomes FAILED.
   * Without it such a failure halts the block. `failure` is the error itself, for a machine
   * whose effects refuse in more than one way (its code and metadata say which).
   */
  onTickFailure?: (failure: TxFailure, height: number) => EventFrom<M>;
  /**
   * A few figures of the snapshot worth keeping in its history (e.g. a proposal's tally):
   * added to every `machine.transition` event as `summary`, so the history by height shows them.
   */
  summary?: (snapshot: SnapshotFrom<M>) => Record<string, string>;
}

/**
 * Declares a named effect in `setup({ actions })` with the type of its params. The body never
 * runs: `transition()` only returns the action, and the helper applies it via `effects`.
 *   actions: { refundDeposit: effect<{ to: Address; amount: string }>() }
 */
export const effect =
  <P extends ParameterizedObject['params'] = undefined>() =>
  (_args: unknown, _params: P): void => {};

type AnyNode = AnyStateMachine['root'];
function* nodesOf(n: AnyNode): Generator<AnyNode> {
  yield n;
  for (const c of Object.values(n.states)) yield* nodesOf(c as AnyNode);
}

/**
 * Checks that a definition can run on-chain and returns it. Refused: a '/' in the name (record
 * keys must not collide), a version that is not a positive integer, history states (their
 * value is not in the stored record), `after` delays (wall clock) and invocations (live actors).
 */
export function defineMachine<M extends AnyStateMachine>(def: { machine: M } & NoInfer<MachineDef<M>>): MachineDef<M> {
  const bad = (why: string) =>
    new MachineError('MACHINE_BAD_DEFINITION', `machine ${def.name}: ${why}`, { machine: def.name });
  if (def.name === '' || def.name.includes('/')) throw bad('the name must be non-empty and without "/"');
  if (!Number.isSafeInteger(def.version) || def.version < 1) throw bad('the version must be a positive integer');
  for (const n of nodesOf(def.machine.root)) {
    if (n.type === 'history') throw bad(`history state ${n.id} is not stored in the record`);
    if (n.after.length > 0)
      throw bad(`state ${n.id} has an "after" delay: deadlines are heights (deadline + DEADLINE)`);
    if (n.invoke.length > 0) throw bad(`state ${n.id} invokes an actor: on-chain machines are pure transitions`);
  }
  if (def.deadlines) {
    if (def.deadline) throw bad('give deadline or deadlines, not both');
    const table = Object.entries(def.deadlines as Record<string, string>);
    for (const [state] of table)
      if (!(state in def.machine.root.states))
        throw bad(`deadlines names state ${state}, which the machine does not have`);
    const deadline = (s: SnapshotFrom<M>): number | null => {
      const snap = s as unknown as { value: unknown; context: Record<string, unknown> };
      const key = typeof snap.value === 'string' ? (def.deadlines as Record<string, string>)[snap.value] : undefined;
      return key === undefined ? null : ((snap.context[key] as number | null) ?? null);
    };
    return { ...def, deadline } as MachineDef<M>;
  }
  return def;
}

/**
 * Checks a machine's status words — the API's `status` enum, declared as a literal tuple so the
 * view types stay plain unions — against the machine: they must be exactly its top-level states
 * less the transient ones named in `transient` (left at once by `always`, never stored), each
 * word a state (compile time) and none missing (when the module loads). Returns `statuses`.
 */
export function statusesOf<M extends AnyStateMachine, const S extends readonly StatusOf<M>[]>(
  machine: M,
  statuses: S,
  transient: readonly StatusOf<M>[] = [],
): S {
  const states = machine.root.states as Record<string, AnyNode>;
  const bad = (why: string) =>
    new MachineError('MACHINE_BAD_DEFINITION', `machine ${machine.id}: ${why}`, { machine: machine.id });
  for (const x of transient)
    if (!states[x] || states[x].always === undefined || states[x].always.length === 0)
      throw bad(`${x} is not a transient state`);
  const want = Object.keys(states)
    .filter((k) => !(transient as readonly string[]).includes(k))
    .sort();
  const have = [...statuses].sort();
  if (want.join() !== have.join())
    throw bad(`its status words ${have.join(', ')} are not its states ${want.join(', ')}`);
  return statuses;
}
