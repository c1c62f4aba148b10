import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../../src/primitives/memo';

describe('boundedMemo', () => {
  it('computes a key once while it is remembered, and never holds more than its bound', () => {
    const calls: number[] = [];
    const square = boundedMemo(3, (n: number) => {
      calls.push(n);
      return n * n;
    });
    expect([square(2), square(2), square(3), square(2)]).toEqual([4, 4, 9, 4]);
    expect(calls).toEqual([2, 3]);
    // Full at 3: the 4th new key drops all, so 2 is computed again — the same value.
    square(4);
    square(5);
    expect(square(2)).toBe(4);
    expect(calls).toEqual([2, 3, 4, 5, 2]);
  });

  it('remembers null results (a key that is not valid stays not valid)', () => {
    let n = 0;
    const f = boundedMemo(10, (k: string) => (n++, k === 'ok' ? k : null));
    expect([f('bad'), f('bad'), f('ok')]).toEqual([null, null, 'ok']);
    expect(n).toBe(2);
  });
});
