import { modesOf, nodeModesMachine, type NodeModes, type NodeModesSnapshot } from '../machines/nodeModes';
import type { ModesMsg, ModesReplies } from './protocol';
import { ActorRef } from './actorRef';
import { machineBehavior } from './machineActor';

/**
 * The node's modes (machines/nodeModes.ts) as a supervised actor: the node root reports
 * starting, ready and stopping, the consensus actor election and a key seen elsewhere, the
 * p2p actor its syncs. An event the modes do not take (a second READY, ELECTED once halted)
 * is refused to its sender, and the actor runs on. Reads that cannot wait for the mailbox
 * (HTTP readiness) use `current()`, the snapshot after the last message handled.
 */
export function modesActor() {
  const ref = new ActorRef<ModesMsg, ModesReplies>('modes', 64);
  let behavior = start();
  let first = true;
  function start(resume?: NodeModesSnapshot) {
    const reply = (s: Parameters<typeof modesOf>[0]) => modesOf(s);
    return machineBehavior<typeof nodeModesMachine, ModesMsg, ModesReplies>({
      name: 'modes',
      machine: nodeModesMachine,
      ...(resume ? { snapshot: resume } : {}),
      queries: ['modes'],
      replies: {
        READY: reply,
        STOP: reply,
        ELECTED: reply,
        UNELECTED: reply,
        KEY_IN_USE_ELSEWHERE: reply,
        SYNC_STARTED: reply,
        SYNC_DONE: reply,
        modes: reply,
      },
    });
  }
  return {
    ref,
    /** The supervisor's child spec: a restart resumes from the last modes (a halted signing stays halted). */
    spec: {
      ref,
      start: async () => {
        if (first) return ((first = false), behavior); // the one attached at once
        return (behavior = start(behavior.snapshot()));
      },
    },
    /** Attaches the first behaviour at once (the node reports `starting` before the supervisor exists). */
    attachNow: () => ref.attach(behavior),
    current: (): NodeModes => modesOf(behavior.snapshot()),
  };
}
export type ModesActor = ReturnType<typeof modesActor>;

/** Modes outside a supervisor (tests, tools): attached at once. */
export function standaloneModes(): ModesActor {
  const m = modesActor();
  m.attachNow();
  return m;
}
