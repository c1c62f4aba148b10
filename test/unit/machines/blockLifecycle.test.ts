import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BLOCK_LIFECYCLE_STATES,
  blockLifecycleMachine,
  blockState,
  receivedBlock,
  stepBlock,
  storedBlock,
  type BlockLifecycleEvent,
} from '../../../src/machines/blockLifecycle';
import { machineGraph } from '../../../src/machines/graph';

const events: fc.Arbitrary<BlockLifecycleEvent> = fc.oneof(
  fc.constantFrom<BlockLifecycleEvent>(
    { type: 'BUILT' },
    { type: 'VERIFIED' },
    { type: 'EXECUTED' },
    { type: 'COMMITTED' },
    { type: 'ORPHANED' },
    { type: 'UNDONE' },
  ),
  fc.nat(20).map((h): BlockLifecycleEvent => ({ type: 'FINALIZED', finalizedHeight: h })),
  fc.string({ maxLength: 8 }).map((reason): BlockLifecycleEvent => ({ type: 'REJECTED', reason })),
);
const fold = (es: BlockLifecycleEvent[], height = 10) => es.reduce(stepBlock, receivedBlock(height));

describe('block lifecycle machine', () => {
  it('reaches every state', () => {
    const reached = {
      received: fold([]),
      verified: fold([{ type: 'VERIFIED' }]),
      executed: fold([{ type: 'VERIFIED' }, { type: 'EXECUTED' }]),
      committed: fold([{ type: 'VERIFIED' }, { type: 'EXECUTED' }, { type: 'COMMITTED' }]),
      finalized: fold([
        { type: 'VERIFIED' },
        { type: 'EXECUTED' },
        { type: 'COMMITTED' },
        { type: 'FINALIZED', finalizedHeight: 10 },
      ]),
      rejected: fold([{ type: 'VERIFIED' }, { type: 'REJECTED', reason: 'state root differs' }]),
      orphaned: fold([{ type: 'ORPHANED' }]),
      undone: fold([{ type: 'VERIFIED' }, { type: 'EXECUTED' }, { type: 'COMMITTED' }, { type: 'UNDONE' }]),
    };
    for (const [state, snap] of Object.entries(reached)) expect(blockState(snap)).toBe(state);
    expect(Object.keys(reached).sort()).toEqual([...BLOCK_LIFECYCLE_STATES].sort());
    expect(reached.rejected.context.reason).toBe('state root differs');
    // A block built here is executed by its producer: it skips verification.
    expect(blockState(fold([{ type: 'BUILT' }, { type: 'COMMITTED' }]))).toBe('committed');
    expect(blockState(storedBlock(10, 10))).toBe('finalized');
    expect(blockState(storedBlock(10, 9))).toBe('committed');
    // Finality below the block does not finalize it; a final block is never undone.
    expect(blockState(stepBlock(reached.committed, { type: 'FINALIZED', finalizedHeight: 9 }))).toBe('committed');
    expect(blockState(stepBlock(reached.finalized, { type: 'UNDONE' }))).toBe('finalized');
    expect(machineGraph(blockLifecycleMachine).states.sort()).toEqual([...BLOCK_LIFECYCLE_STATES].sort());
  });

  it('random event sequences reach only legal states by legal moves; terminal states never change', () => {
    const legal: Record<string, string[]> = {
      received: ['verified', 'executed', 'orphaned', 'rejected'],
      verified: ['executed', 'rejected'],
      executed: ['committed', 'rejected'],
      committed: ['finalized', 'undone'],
      finalized: [],
      rejected: [],
      orphaned: [],
      undone: [],
    };
    fc.assert(
      fc.property(fc.array(events, { maxLength: 12 }), (es) => {
        let s = receivedBlock(10);
        for (const e of es) {
          const next = stepBlock(s, e);
          const [a, b] = [blockState(s), blockState(next)];
          if (a !== b) expect(legal[a], `${a} → ${b} on ${e.type}`).toContain(b);
          s = next;
        }
      }),
      { numRuns: 500 },
    );
  });
});
