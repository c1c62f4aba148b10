import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prefers } from '../../src/consensus/forkChoice';
import { CLOCK_TOLERANCE_MS, scheduleRefusal, slotOf, slotProducer, slotsOf } from '../../src/consensus/slots';

const A = '0x00000000000000000000000000000000000000aa' as const;
const B = '0x00000000000000000000000000000000000000bb' as const;
const C = '0x00000000000000000000000000000000000000cc' as const;

describe('slot schedule', () => {
  it('rotates the active set by slot; refuses the wrong producer, a slot not after the parent, a block from the future', () => {
    const active = [A, B, C];
    expect([0, 1, 2, 3, 4].map((s) => slotProducer(active, s))).toEqual([A, B, C, A, B]);
    expect(slotOf(1_049, 50)).toBe(20);
    expect(scheduleRefusal({ timestamp: 1_050, producer: B }, 1_000, active, 50, 2_000)).toBe('wrong producer for slot 21: expected 0x00000000000000000000000000000000000000aa, got 0x00000000000000000000000000000000000000bb');
    expect(scheduleRefusal({ timestamp: 1_050, producer: A }, 1_000, active, 50, 2_000)).toBeUndefined();
    expect(scheduleRefusal({ timestamp: 1_049, producer: C }, 1_001, active, 50, 2_000)).toBe('block slot 20 is not after its parent\'s slot 20');
    expect(scheduleRefusal({ timestamp: 2_000 + CLOCK_TOLERANCE_MS + 50, producer: B }, 1_000, active, 50, 2_000)).toMatch(/^block from a future slot/);
    // The skip rule: a missed slot leaves a gap, the next producer builds on the last block.
    expect(scheduleRefusal({ timestamp: 1_100, producer: B }, 1_000, active, 50, 2_000)).toBeUndefined();
  });

  it('counts a position\'s slots in a range like a loop would', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.nat(6), fc.nat(200), fc.nat(60), (n, i, from, len) => {
        const index = i % n;
        let loop = 0;
        for (let s = from; s < from + len; s++) if (s % n === index) loop++;
        expect(slotsOf(index, n, from, from + len)).toBe(loop);
      }),
    );
  });

  it('fork choice: higher wins, equal heights go to the lower hash, the same on every node', () => {
    expect(prefers({ height: 5, hash: '0x02' }, { height: 4, hash: '0x01' })).toBe(true);
    expect(prefers({ height: 5, hash: '0x01' }, { height: 5, hash: '0x02' })).toBe(true);
    expect(prefers({ height: 5, hash: '0x02' }, { height: 5, hash: '0x01' })).toBe(false);
    expect(prefers({ height: 5, hash: '0x01' }, { height: 5, hash: '0x01' })).toBe(false);
  });
});
