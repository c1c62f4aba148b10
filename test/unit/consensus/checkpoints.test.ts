import { describe, expect, it } from 'vitest';
import { epochStep, voteAt, voteRefusal, type Epochs } from '../../../src/consensus/checkpoints';
import { finalityThreshold } from '../../../src/consensus/finality';
import type { Hex } from '../../../src/primitives/hex';
import type { Address } from '../../../src/protocol/types';

const v = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const H = (c: string) => `0x${c.repeat(64)}` as Hex;

/** Runs blocks by `producers` (heights 1, 2, …) from genesis; the final height after each. */
function run(producers: number[], set: number[]): number[] {
  const counting = set.map(v);
  let e: Epochs | undefined;
  let fin = 0;
  return producers.map((p, i) => {
    const r = epochStep(e, { height: i + 1, producer: v(p) }, counting, set.length, fin);
    e = r.epochs;
    fin = Math.max(fin, r.finalized ?? 0);
    return fin;
  });
}

describe('finality by checkpoints (consensus/checkpoints.ts)', () => {
  it('needs ⌊2n/3⌋+1 distinct voters', () => {
    expect([1, 2, 3, 4, 21].map(finalityThreshold)).toEqual([1, 2, 3, 3, 15]);
  });

  it('with a single validator, each block finalizes its parent', () => {
    expect(run([1, 1, 1, 1], [1])).toEqual([0, 1, 2, 3]);
  });

  it('with 4 in turn: epochs of 4 blocks, a checkpoint final once the next epoch has 3 voters', () => {
    // checkpoints at 1, 5, 9: 1 justified at 3, 5 at 7 (1 final), 9 at 11 (5 final)
    expect(run([1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4], [1, 2, 3, 4])).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 5, 5]);
  });

  it('with 1 of 4 down, 3 voters per epoch still finalize; with 2 down nothing does', () => {
    expect(run([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3], [1, 2, 3, 4]).at(-1)).toBe(5);
    expect(run([1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2], [1, 2, 3, 4]).at(-1)).toBe(0);
  });

  it('finalizes only from the epoch just before: an epoch without its votes breaks the link', () => {
    // epoch 2 (5–8) has two voters only: 9 is justified from 1, which finalizes nothing; 13 from 9 finalizes 9
    const f = run([1, 2, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 1, 2, 3, 4], [1, 2, 3, 4]);
    expect(f.slice(8, 12)).toEqual([0, 0, 0, 0]);
    expect(f.at(-1)).toBe(9);
  });

  it('a non-member does not vote; a change of the set size renumbers upward from that block', () => {
    expect(run([9, 9, 9, 9, 9, 9], [1, 2, 3, 4]).at(-1)).toBe(0);
    const e: Epochs = {
      base: { epoch: 1, height: 1 },
      length: 4,
      current: { epoch: 3, height: 9 },
      source: { epoch: 2, height: 5 },
      votes: [],
      justified: { epoch: 2, height: 5 },
    };
    expect(voteAt(e, 10, 4, 1)).toEqual({ source: { epoch: 2, height: 5 }, target: { epoch: 3, height: 9 } });
    expect(voteAt(e, 10, 5, 1)).toEqual({ source: { epoch: 2, height: 5 }, target: { epoch: 4, height: 10 } });
  });

  it('an honest validator never votes twice in an epoch, backwards, or from an older source', () => {
    const last = { target: { epoch: 5, hash: H('a') }, source: 4 };
    expect(voteRefusal(undefined, { target: { epoch: 1 }, source: 0 })).toBeUndefined();
    expect(voteRefusal(last, { target: { epoch: 5, hash: H('a') }, source: 4 })).toBeUndefined();
    expect(voteRefusal(last, { target: { epoch: 6 }, source: 5 })).toBeUndefined();
    expect(voteRefusal(last, { target: { epoch: 5, hash: H('b') }, source: 4 })).toMatch(
      /another checkpoint of epoch 5/,
    );
    expect(voteRefusal(last, { target: { epoch: 5 }, source: 4 })).toMatch(/another checkpoint/);
    expect(voteRefusal(last, { target: { epoch: 4, hash: H('c') }, source: 3 })).toMatch(/already voted in epoch 5/);
    expect(voteRefusal(last, { target: { epoch: 7 }, source: 3 })).toMatch(/would surround it/);
  });
});
