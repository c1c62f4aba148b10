import {
  createActor,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import { MessageRefusedError, type Behavior, type Replies } from './actorRef';

/** What each message answers, read from the machine's snapshot after the event was taken. */
export type MachineReplies<TMachine extends AnyStateMachine, M extends { type: string }, R extends Replies<M>> = {
  [K in M['type']]: (snapshot: SnapshotFrom<TMachine>, msg: Extract<M, { type: K }>) => R[K];
};

/**
 * The messages of a machine-hosting actor: the machine's events, and queries of other types answered from the snapshot.
 */
export type MachineMsg<TMachine extends AnyStateMachine> = EventFromLogic<TMachine> | { type: string };

export interface MachineBehaviorOptions<
  TMachine extends AnyStateMachine,
  M extends MachineMsg<TMachine>,
  R extends Replies<M>,
> {
  /** The actor's name, for refusals. */
  name: string;
  machine: TMachine;
  input?: InputFrom<TMachine>;
  /**
   * Resume from this snapshot instead of the initial state (a restarted actor that must not forget, e.g. a halted
   * mode).
   */
  snapshot?: SnapshotFrom<TMachine>;
  replies: MachineReplies<TMachine, M, R>;
  /** Message types that only read: answered from the current snapshot, never sent to the machine. */
  queries?: readonly M['type'][];
}

/**
 * Runs an XState machine as a node actor's behaviour, inside the actor's bounded mailbox and
 * under its supervisor: each message is one event, taken in mailbox order; the reply is
 * read from the snapshot the event produced (so replies stay typed per message). An event
 * the current state does not take is refused (queries are answered from the snapshot as it
 * is) (MessageRefusedError: the caller learns it,
 * the actor keeps running); an action that throws leaves the machine in error, which is a
 * crash: the supervisor restarts the actor with a fresh machine from its factory.
 */
export function machineBehavior<TMachine extends AnyStateMachine, M extends MachineMsg<TMachine>, R extends Replies<M>>(
  o: MachineBehaviorOptions<TMachine, M, R>,
): Behavior<M, R> & { snapshot(): SnapshotFrom<TMachine> } {
  // Errors surface through the snapshot (checked after each event); the subscription only
  // keeps XState from reporting them as unhandled.
  const actor = createActor(o.machine, {
    ...(o.input === undefined ? {} : { input: o.input }),
    ...(o.snapshot === undefined ? {} : { snapshot: o.machine.resolveState(o.snapshot as never) }),
  });
  actor.subscribe({ error: () => {} });
  actor.start();

  return {
    async handle<T extends M>(msg: T): Promise<R[T['type']]> {
      const reply = o.replies[msg.type as T['type']] as (s: SnapshotFrom<TMachine>, m: T) => R[T['type']];
      if (o.queries?.includes(msg.type)) return reply(actor.getSnapshot(), msg);
      const before = actor.getSnapshot() as AnyMachineSnapshot;
      if (!before.can(msg))
        throw new MessageRefusedError(o.name, msg.type, `not accepted in state ${JSON.stringify(before.value)}`);
      actor.send(msg as EventFromLogic<TMachine>);
      const after = actor.getSnapshot() as AnyMachineSnapshot;
      if (after.status === 'error') throw after.error;
      return reply(after as SnapshotFrom<TMachine>, msg);
    },
    async stop() {
      actor.stop();
    },
    snapshot: () => actor.getSnapshot(),
  };
}
