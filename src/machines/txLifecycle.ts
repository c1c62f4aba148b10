import { assign, initialTransition, setup, transition, type SnapshotFrom } from 'xstate';
import type { Hex } from '../primitives/hex';

/**
 * Lifecycle of a submitted transaction (docs/API.md "Status values"), hosted by
 * the transaction lifecycle actor (actors/txLifecycleActor.ts): the mempool reports admissions
 * and drops, the consensus actor inclusions, undos and finality, and `/tx/:id` reports the
 * state it holds. The store records each inclusion and undo with its block, so the state of a
 * transaction the actor no longer holds is folded back from them.
 */
export type TxLifecycleEvent =
  | { type: 'ADMITTED' }
  | { type: 'REFUSED'; reason: string; code?: string }
  | { type: 'INCLUDED'; height: number; blockHash: Hex }
  | { type: 'DROPPED'; reason: string; code?: string }
  | { type: 'FINALIZED'; finalizedHeight: number }
  | { type: 'UNDONE' };

export interface TxLifecycleContext {
  reason: string | null;
  /** The refusal's code beside `reason` (protocol/refusal.ts). */
  code?: string | null;
  blockHeight: number | null;
  blockHash: Hex | null;
}

export const txLifecycleMachine = setup({
  types: { context: {} as TxLifecycleContext, events: {} as TxLifecycleEvent },
  guards: {
    // Finality only covers the transaction once the finalized height reaches its block.
    reachesBlock: ({ context, event }) =>
      event.type === 'FINALIZED' && context.blockHeight !== null && event.finalizedHeight >= context.blockHeight,
  },
}).createMachine({
  id: 'tx',
  initial: 'submitted',
  context: { reason: null, blockHeight: null, blockHash: null },
  states: {
    submitted: {
      on: {
        ADMITTED: 'inMempool',
        REFUSED: {
          target: 'refused',
          actions: assign({ reason: ({ event }) => event.reason, code: ({ event }) => event.code ?? null }),
        },
      },
    },
    inMempool: {
      on: {
        INCLUDED: {
          target: 'included',
          actions: assign({ blockHeight: ({ event }) => event.height, blockHash: ({ event }) => event.blockHash }),
        },
        DROPPED: {
          target: 'dropped',
          actions: assign({ reason: ({ event }) => event.reason, code: ({ event }) => event.code ?? null }),
        },
      },
    },
    included: {
      on: {
        FINALIZED: { guard: 'reachesBlock', target: 'finalized' },
        UNDONE: { target: 'undone', actions: assign({ blockHeight: null, blockHash: null }) },
      },
    },
    undone: {
      // After a reorganization the transaction may be admitted again or land in another block.
      on: {
        ADMITTED: 'inMempool',
        INCLUDED: {
          target: 'included',
          actions: assign({ blockHeight: ({ event }) => event.height, blockHash: ({ event }) => event.blockHash }),
        },
      },
    },
    finalized: { type: 'final' },
    refused: { type: 'final' },
    dropped: { type: 'final' },
  },
});

export type TxLifecycleSnapshot = SnapshotFrom<typeof txLifecycleMachine>;
export type TxLifecycleState = 'submitted' | 'inMempool' | 'included' | 'finalized' | 'refused' | 'dropped' | 'undone';

export function initialTxLifecycle(): TxLifecycleSnapshot {
  return initialTransition(txLifecycleMachine)[0];
}

/** Folds events; an event the current state does not take leaves it unchanged. */
export function foldTxLifecycle(events: TxLifecycleEvent[], from = initialTxLifecycle()): TxLifecycleSnapshot {
  let s = from;
  for (const e of events) s = transition(txLifecycleMachine, s, e)[0];
  return s;
}

export const lifecycleState = (s: TxLifecycleSnapshot): TxLifecycleState => s.value as TxLifecycleState;

/** The status word of a transaction (docs/API.md "Status values"); 'submitted' and 'refused' are transient. */
export type TxStatus = 'submitted' | 'pending' | 'included' | 'finalized' | 'dropped' | 'refused' | 'undone';

/** The status word `/tx/:id` shows for each state. */
export const STATUS_OF: Record<TxLifecycleState, TxStatus> = {
  submitted: 'submitted',
  inMempool: 'pending',
  included: 'included',
  finalized: 'finalized',
  refused: 'refused',
  dropped: 'dropped',
  undone: 'undone',
};
