import { assign, initialTransition, setup, transition, type SnapshotFrom } from 'xstate';

/**
 * Lifecycle of a block at this node, hosted by the block lifecycle actor
 * (actors/blockLifecycleActor.ts), which the importer, the producer and the consensus actor
 * report to:
 *
 *   received ─VERIFIED→ verified ─EXECUTED→ executed ─COMMITTED→ committed ─FINALIZED→ finalized
 *      │ ├─ORPHANED→ orphaned        │                  │              └─UNDONE→ undone
 *      │ └─BUILT (this node's own block: built, executed and signed)→ executed
 *      └──────────────REJECTED──────┴──────────────────┘→ rejected (with the reason)
 *
 * received: from a peer, or being built here. verified: schedule, link, tx root, producer and
 * transaction signatures. executed: every result, event and the state root as the block
 * says. committed: on disk and the head. finalized: ⌊2n/3⌋+1 validators produced on top.
 * orphaned: its parent is unknown here (sync fetches it). undone: taken back by a
 * reorganization (its transactions return to the mempool).
 */
export type BlockLifecycleEvent =
  | { type: 'BUILT' }
  | { type: 'VERIFIED' }
  | { type: 'EXECUTED' }
  | { type: 'COMMITTED' }
  | { type: 'FINALIZED'; finalizedHeight: number }
  | { type: 'REJECTED'; reason: string }
  | { type: 'ORPHANED' }
  | { type: 'UNDONE' };

export interface BlockLifecycleContext {
  height: number;
  reason: string | null;
}

const reject = { target: 'rejected', actions: 'keepReason' } as const;

export const blockLifecycleMachine = setup({
  types: { context: {} as BlockLifecycleContext, events: {} as BlockLifecycleEvent, input: {} as { height: number } },
  actions: { keepReason: assign({ reason: ({ event }) => (event.type === 'REJECTED' ? event.reason : null) }) },
  guards: {
    reachesBlock: ({ context, event }) => event.type === 'FINALIZED' && event.finalizedHeight >= context.height,
  },
}).createMachine({
  id: 'block',
  initial: 'received',
  context: ({ input }) => ({ height: input.height, reason: null }),
  states: {
    received: { on: { VERIFIED: 'verified', BUILT: 'executed', ORPHANED: 'orphaned', REJECTED: reject } },
    verified: { on: { EXECUTED: 'executed', REJECTED: reject } },
    executed: { on: { COMMITTED: 'committed', REJECTED: reject } },
    committed: { on: { FINALIZED: { guard: 'reachesBlock', target: 'finalized' }, UNDONE: 'undone' } },
    finalized: { type: 'final' },
    rejected: { type: 'final' },
    orphaned: { type: 'final' },
    undone: { type: 'final' },
  },
});

export type BlockLifecycleSnapshot = SnapshotFrom<typeof blockLifecycleMachine>;
export type BlockLifecycleState =
  | 'received'
  | 'verified'
  | 'executed'
  | 'committed'
  | 'finalized'
  | 'rejected'
  | 'orphaned'
  | 'undone';
export const BLOCK_LIFECYCLE_STATES: readonly BlockLifecycleState[] = [
  'received',
  'verified',
  'executed',
  'committed',
  'finalized',
  'rejected',
  'orphaned',
  'undone',
];

export const receivedBlock = (height: number): BlockLifecycleSnapshot =>
  initialTransition(blockLifecycleMachine, { height })[0];

/** One step; an event the state does not take leaves it unchanged. */
export const stepBlock = (s: BlockLifecycleSnapshot, e: BlockLifecycleEvent): BlockLifecycleSnapshot =>
  transition(blockLifecycleMachine, s, e)[0];

/** A block of the stored chain at `height`: committed, and finalized once the finalized height reaches it. */
export function storedBlock(height: number, finalizedHeight: number): BlockLifecycleSnapshot {
  const events: BlockLifecycleEvent[] = [
    { type: 'VERIFIED' },
    { type: 'EXECUTED' },
    { type: 'COMMITTED' },
    { type: 'FINALIZED', finalizedHeight },
  ];
  return events.reduce(stepBlock, receivedBlock(height));
}

/** A block's lifecycle at this node, as its actor serves it (`/blocks/:ref` `lifecycle`). */
export interface BlockLifecycleView {
  state: BlockLifecycleState;
  height: number;
  /** Why it was rejected. */
  reason?: string;
}

export const blockState = (s: BlockLifecycleSnapshot): BlockLifecycleState => s.value as BlockLifecycleState;
