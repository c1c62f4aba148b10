import { assign, setup, type SnapshotFrom } from 'xstate';

/**
 * The node's modes (node-local), in three parallel regions, hosted by the `modes` actor
 * (actors/modesActor.ts) and shown by GET /health/ready:
 * - node: starting → ready → stopping (final: what follows is closing); a stop for a failure
 *   keeps its reason;
 * - signing: following (this key is not in the set in force) ⇄ producing; halted for good
 *   (until a restart) once a block signed with this node's key is seen from elsewhere at a
 *   height it signed — two instances run with one key, and signing on would double-sign;
 * - sync: inSync ⇄ syncing (a sync from a peer ahead is running).
 */
export type NodeModeEvent =
  | { type: 'READY' }
  | { type: 'STOP'; reason: string; failure: boolean }
  | { type: 'ELECTED' }
  | { type: 'UNELECTED' }
  | { type: 'KEY_IN_USE_ELSEWHERE'; height: number; hash: string }
  | { type: 'SYNC_STARTED'; target: number }
  | { type: 'SYNC_DONE' };

export interface NodeModeContext {
  /** Why the node stopped by itself (a failure); null while running or after a requested stop. */
  failure: string | null;
  /** The height of the block that halted signing (seen signed elsewhere). */
  haltedAt: number | null;
  /** The height a running sync aims at. */
  syncTarget: number | null;
}

export const nodeModesMachine = setup({
  types: { context: {} as NodeModeContext, events: {} as NodeModeEvent },
}).createMachine({
  id: 'nodeModes',
  type: 'parallel',
  context: { failure: null, haltedAt: null, syncTarget: null },
  states: {
    node: {
      initial: 'starting',
      states: {
        starting: {
          on: {
            READY: 'ready',
            STOP: {
              target: 'stopping',
              actions: assign({ failure: ({ event }) => (event.failure ? event.reason : null) }),
            },
          },
        },
        ready: {
          on: {
            STOP: {
              target: 'stopping',
              actions: assign({ failure: ({ event }) => (event.failure ? event.reason : null) }),
            },
          },
        },
        stopping: { type: 'final' },
      },
    },
    signing: {
      initial: 'following',
      states: {
        following: {
          on: {
            ELECTED: 'producing',
            KEY_IN_USE_ELSEWHERE: { target: 'halted', actions: assign({ haltedAt: ({ event }) => event.height }) },
          },
        },
        producing: {
          on: {
            UNELECTED: 'following',
            KEY_IN_USE_ELSEWHERE: { target: 'halted', actions: assign({ haltedAt: ({ event }) => event.height }) },
          },
        },
        halted: { type: 'final' },
      },
    },
    sync: {
      initial: 'inSync',
      states: {
        inSync: {
          on: { SYNC_STARTED: { target: 'syncing', actions: assign({ syncTarget: ({ event }) => event.target }) } },
        },
        syncing: { on: { SYNC_DONE: { target: 'inSync', actions: assign({ syncTarget: null }) } } },
      },
    },
  },
});

export type NodeModesSnapshot = SnapshotFrom<typeof nodeModesMachine>;

/** The modes as plain words (GET /health/ready `modes`). */
export interface NodeModes {
  node: 'starting' | 'ready' | 'stopping';
  signing: 'following' | 'producing' | 'halted';
  sync: 'inSync' | 'syncing';
  failure: string | null;
  haltedAt: number | null;
}

export function modesOf(s: NodeModesSnapshot): NodeModes {
  const v = s.value as { node: NodeModes['node']; signing: NodeModes['signing']; sync: NodeModes['sync'] };
  return { node: v.node, signing: v.signing, sync: v.sync, failure: s.context.failure, haltedAt: s.context.haltedAt };
}
