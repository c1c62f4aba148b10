import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { foldTxLifecycle, lifecycleState, type TxLifecycleEvent } from '../../../src/machines/txLifecycle';

const H = `0x${'ab'.repeat(32)}` as const;

describe('transaction lifecycle machine', () => {
  it('goes submitted → in mempool → included → finalized', () => {
    const s = foldTxLifecycle([
      { type: 'ADMITTED' },
      { type: 'INCLUDED', height: 5, blockHash: H },
      { type: 'FINALIZED', finalizedHeight: 5 },
    ]);
    expect(lifecycleState(s)).toBe('finalized');
    expect(s.context.blockHeight).toBe(5);
  });
  it('does not finalize before the finalized height reaches the block', () => {
    const s = foldTxLifecycle([
      { type: 'ADMITTED' },
      { type: 'INCLUDED', height: 5, blockHash: H },
      { type: 'FINALIZED', finalizedHeight: 4 },
    ]);
    expect(lifecycleState(s)).toBe('included');
  });
  it('records refusal and drop reasons', () => {
    expect(foldTxLifecycle([{ type: 'REFUSED', reason: 'mempool full' }]).context.reason).toBe('mempool full');
    expect(lifecycleState(foldTxLifecycle([{ type: 'ADMITTED' }, { type: 'DROPPED', reason: 'x' }]))).toBe('dropped');
  });
  it('undoes an unfinalized inclusion, never a finalized one', () => {
    const inc: TxLifecycleEvent[] = [{ type: 'ADMITTED' }, { type: 'INCLUDED', height: 5, blockHash: H }];
    expect(lifecycleState(foldTxLifecycle([...inc, { type: 'UNDONE' }]))).toBe('undone');
    expect(
      lifecycleState(foldTxLifecycle([...inc, { type: 'FINALIZED', finalizedHeight: 9 }, { type: 'UNDONE' }])),
    ).toBe('finalized');
  });
  it('property: final states are absorbing and finality is never reverted', () => {
    const ev = fc.oneof(
      fc.constant<TxLifecycleEvent>({ type: 'ADMITTED' }),
      fc.constant<TxLifecycleEvent>({ type: 'UNDONE' }),
      fc.string().map<TxLifecycleEvent>((reason) => ({ type: 'DROPPED', reason })),
      fc.string().map<TxLifecycleEvent>((reason) => ({ type: 'REFUSED', reason })),
      fc.nat(100).map<TxLifecycleEvent>((height) => ({ type: 'INCLUDED', height, blockHash: H })),
      fc.nat(100).map<TxLifecycleEvent>((finalizedHeight) => ({ type: 'FINALIZED', finalizedHeight })),
    );
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 30 }), (events) => {
        let s = foldTxLifecycle([]);
        let final: string | null = null;
        for (const e of events) {
          s = foldTxLifecycle([e], s);
          const st = lifecycleState(s);
          if (final) expect(st).toBe(final);
          if (st === 'finalized' || st === 'dropped' || st === 'refused') final = st;
          if (st === 'included' || st === 'finalized') expect(s.context.blockHeight).not.toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });
});
