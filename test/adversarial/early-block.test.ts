/**
 * A block made early by a clock running ahead: in what its producer takes for its slot, at the height of a block
 * honestly made in an earlier slot. A node took blocks up to a second ahead of its own clock (two 500 ms slots), so
 * such a block met the honest one and won half of those ties (all of them under a rule that favoured later blocks).
 * A block more than half a slot ahead of the importing node's clock now waits: it is not taken, nor refused (the
 * clock that is off may be the importer's), until the clock reaches it.
 */
import { describe, expect, it } from 'vitest';
import { clockToleranceMs } from '../../src/consensus/slots';
import { blocksOf, consensusNode, produce, SLOT } from '../helpers/consensusPair';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

describe('a block from a clock running ahead', () => {
  it('waits on a node whose clock has not reached it: not taken, not refused', async () => {
    const honest = await consensusNode(0, scratch);
    const fast = await consensusNode(1, scratch);
    // The honest validator makes block 1 in its slot; the fast one, two slots ahead (as a second is with 500 ms slots),
    // makes its own block 1 in its next slot by its clock, which has not come yet.
    expect(await produce(honest)).toBe(true);
    const honestBlock = honest.view.head;
    fast.clock.now = honest.clock.now + 2 * SLOT;
    expect(await produce(fast)).toBe(true);
    const early = fast.view.head;
    expect(early.height).toBe(1);
    expect(early.timestamp - honest.clock.now).toBeGreaterThan(clockToleranceMs(SLOT));
    const r = await honest.chain.ask({ type: 'importBlocks', blocks: await blocksOf(fast), now: honest.clock.now });
    // Not taken yet, and not refused either: the clock that is off may be this node's (its sync brings it again).
    expect(r.rejected).toBeUndefined();
    expect(r.early).toMatch(/^block from a future slot/);
    expect(r.imported).toBe(0);
    expect(honest.view.head.hash).toBe(honestBlock.hash);
    // Once the honest node's clock reaches it, it is an ordinary block of its slot, weighed by fork choice.
    const later = await honest.chain.ask({ type: 'importBlocks', blocks: await blocksOf(fast), now: early.timestamp });
    expect(later.rejected).toBeUndefined();
    expect(later.early).toBeUndefined();
    expect(later.imported + (later.stale ? 1 : 0)).toBe(1);
  });
});
