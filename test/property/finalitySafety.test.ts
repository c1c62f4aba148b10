import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  epochStep,
  signedVote,
  voteAt,
  voteRefusal,
  type Epochs,
  type SignedVote,
} from '../../src/consensus/checkpoints';
import type { Hex } from '../../src/primitives/hex';
import type { Address } from '../../src/protocol/types';

/**
 * Finality's safety under any schedule of messages: 4 validators, one byzantine, blocks built
 * on any block any of them has (an asynchronous network lets a validator see any subset), and
 * the honest ones keep only what the signing guard keeps (heights go up; the vote rules of
 * consensus/checkpoints.ts). No two blocks that are final anywhere may conflict.
 *
 * Without the vote rules the same model finds two conflicting final blocks: the rules are
 * what makes it hold. (The rule finality had before — final once ⌊2n/3⌋+1 producers built
 * above a block — let two blocks be final at one height in a 4-node network under load.)
 */

const N = 4;
const BYZANTINE = 3;
const set = Array.from({ length: N }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as Address);

interface Node {
  id: number;
  parent: Node | null;
  height: number;
  epochs?: Epochs;
  fin: number;
}

const hashOf = (b: Node) => `0x${b.id.toString(16).padStart(64, '0')}` as Hex;
function ancestor(b: Node, height: number): Node {
  let x = b;
  while (x.height > height) x = x.parent!;
  return x;
}

/** Two blocks conflict when neither is an ancestor of the other. */
const conflict = (a: Node, b: Node) =>
  a.height <= b.height ? ancestor(b, a.height) !== a : ancestor(a, b.height) !== b;

type Step = { who: number; back: number };

/** Runs the steps; the first conflict between final blocks, or null. `reached`: the highest final height seen. */
function simulate(steps: Step[], honestRules: boolean, reached = { height: 0 }): string | null {
  const genesis: Node = { id: 0, parent: null, height: 0, fin: 0 };
  const blocks: Node[] = [genesis];
  const lastHeight = new Array<number>(N).fill(0);
  const lastVote: (SignedVote | undefined)[] = new Array(N).fill(undefined);
  const finals: Node[] = [genesis];
  for (const { who, back } of steps) {
    const parent = blocks[blocks.length - 1 - (back % Math.min(blocks.length, 8))];
    const height = parent.height + 1;
    const id = blocks.length;
    const honest = who !== BYZANTINE;
    const v = voteAt(parent.epochs, height, N, parent.fin);
    const next = {
      target: {
        epoch: v.target.epoch,
        hash: v.target.height < height ? hashOf(ancestor(parent, v.target.height)) : undefined,
      },
      source: v.source.epoch,
    };
    if (honest && height <= lastHeight[who]) continue;
    // A vote an honest validator must not cast: its block abstains (it is made, and counts as nobody's vote).
    const abstain = honest && honestRules && voteRefusal(lastVote[who], next) !== undefined;
    const r = epochStep(parent.epochs, { height, producer: set[who], abstain }, set, N, parent.fin);
    const block: Node = { id, parent, height, epochs: r.epochs, fin: Math.max(parent.fin, r.finalized ?? 0) };
    blocks.push(block);
    lastHeight[who] = height;
    if (!abstain) lastVote[who] = signedVote(lastVote[who], next, hashOf(block));
    const final = ancestor(block, block.fin);
    reached.height = Math.max(reached.height, final.height);
    for (const f of finals)
      if (conflict(f, final))
        return `block ${f.id} (height ${f.height}) and block ${final.id} (height ${final.height})`;
    if (!finals.includes(final)) finals.push(final);
  }
  return null;
}

/** Steps mostly on the newest block, with forks from any of the last 8 with weight `forks` (of 5 + forks). */
const stepsWith = (forks: number) => {
  const back = fc.oneof({ arbitrary: fc.constant(0), weight: 5 }, { arbitrary: fc.nat(20), weight: forks });
  return fc.array(fc.record({ who: fc.integer({ min: 0, max: N - 1 }), back }), { minLength: 10, maxLength: 120 });
};

describe('finality safety (model)', () => {
  it('with the vote rules, no two final blocks ever conflict, whatever the network and one byzantine do', () => {
    let finalizing = 0;
    fc.assert(
      fc.property(stepsWith(2), (s) => {
        const reached = { height: 0 };
        const ok = simulate(s, true, reached) === null;
        if (reached.height >= 5) finalizing++;
        return ok;
      }),
      { numRuns: 3000 },
    );
    // The runs decide something: most of them finalize past the first epochs.
    expect(finalizing).toBeGreaterThan(600);
    fc.assert(
      fc.property(stepsWith(10), (s) => simulate(s, true) === null),
      { numRuns: 3000 },
    );
  });

  it('without them, the same model finds conflicting final blocks (the test has teeth)', () => {
    const r = fc.check(
      fc.property(stepsWith(20), (s) => simulate(s, false) === null),
      { numRuns: 10_000, seed: 7 },
    );
    expect(r.failed).toBe(true);
  });
});
