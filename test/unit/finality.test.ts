import { describe, expect, it } from 'vitest';
import { finalityThreshold, finalizedHeightFrom } from '../../src/consensus/finality';

const v = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`;

describe('finality', () => {
  it('needs ⌊2n/3⌋+1 distinct producers', () => {
    expect([1, 2, 3, 4, 21].map(finalityThreshold)).toEqual([1, 2, 3, 3, 15]);
  });
  it('finalizes the parent of the head with a single validator', () => {
    expect(finalizedHeightFrom(10, [v(1), v(1)], 1, 0)).toBe(9);
  });
  it('waits for enough distinct producers on top', () => {
    // heights 10,9,8,7 produced by 1,1,2,3 (newest first); n=4 needs 3 distinct
    expect(finalizedHeightFrom(10, [v(1), v(1), v(2), v(3)], 4, 0)).toBe(6);
    expect(finalizedHeightFrom(10, [v(1), v(1), v(2)], 4, 0)).toBe(0);
  });
  it('never goes back', () => {
    expect(finalizedHeightFrom(10, [v(1)], 3, 8)).toBe(8);
  });
});
