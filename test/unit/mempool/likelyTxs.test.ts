import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likelyTxs } from '../../../src/mempool/senderHeap';

describe('likelyTxs (what the producer prefetches)', () => {
  it("takes every sender's first, then every sender's second, up to the block's size", () => {
    const pending = [['a0', 'a1', 'a2'], ['b0'], ['c0', 'c1']];
    expect(likelyTxs(pending, 10)).toEqual(['a0', 'b0', 'c0', 'a1', 'c1', 'a2']);
    expect(likelyTxs(pending, 4)).toEqual(['a0', 'b0', 'c0', 'a1']);
    expect(likelyTxs([], 4)).toEqual([]);
  });

  it('holds min(max, all) transactions, each once, each sender in its own order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 30 }), fc.nat(60), (sizes, max) => {
        const pending = sizes.map((n, s) => Array.from({ length: n }, (_, i) => `${s}:${i}`));
        const out = likelyTxs(pending, max);
        expect(out.length).toBe(
          Math.min(
            max,
            sizes.reduce((a, b) => a + b, 0),
          ),
        );
        expect(new Set(out).size).toBe(out.length);
        for (const [s] of sizes.entries()) {
          const mine = out.filter((x) => x.startsWith(`${s}:`)).map((x) => Number(x.split(':')[1]));
          expect(mine).toEqual(mine.map((_, i) => i));
        }
      }),
    );
  });
});
