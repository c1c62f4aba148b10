/**
 * Who wins a tie at one height. First, a withholding producer: it makes its block in its slot and publishes it only after the next slot's producer,
 * not having seen it, built its own at the same height. Fork choice at equal heights went by the lower hash alone,
 * so the late block won half of those ties: every node that saw it undid the block the network had built on, with
 * its vote and the blocks above it (the simulator's seed 6089, 9 validators: finality 52 slots after the heal,
 * above its bound of 42). At equal heights the later block now wins, whatever the hashes.
 *
 * Then the other side of that rule: a validator whose clock runs ahead makes its block early, in what it takes for
 * its slot, at the height of a block honestly made in an earlier slot — and being later, it won the tie. A block more
 * than half a slot ahead of the importing node's clock is refused (a second was allowed: two 500 ms slots).
 */
import { describe, expect, it } from 'vitest';
import { clockToleranceMs } from '../../src/consensus/slots';
import { blocksOf, consensusNode, produce, SLOT, type ConsensusNode } from '../helpers/consensusPair';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

/**
 * The withholder (validator 0) makes block 1 in its slot and keeps it; validator 1, in a later slot, makes its own
 * block 1. Slots are tried until the withheld block has the lower hash: the case the hash rule gave to the withholder.
 */
async function withheldTie(): Promise<{ withholder: ConsensusNode; honest: ConsensusNode }> {
  for (let attempt = 0; attempt < 32; attempt++) {
    const withholder = await consensusNode(0, scratch);
    const honest = await consensusNode(1, scratch);
    withholder.clock.now += attempt * 2 * SLOT;
    expect(await produce(withholder)).toBe(true);
    honest.clock.now = withholder.clock.now;
    expect(await produce(honest)).toBe(true);
    const [late, built] = [withholder.view.head, honest.view.head];
    expect(late.height).toBe(built.height);
    expect(built.timestamp).toBeGreaterThan(late.timestamp);
    if (late.hash.toLowerCase() < built.hash.toLowerCase()) return { withholder, honest };
  }
  throw new Error('no slot gave the withheld block the lower hash in 32 tries');
}

describe('a block released late', () => {
  it('loses the tie at its height to the block built in the later slot, on every node, even with the lower hash', async () => {
    const { withholder, honest } = await withheldTie();
    const built = honest.view.head;
    // The honest node gets the late block: it keeps its head.
    const r = await honest.chain.ask({
      type: 'importBlocks',
      blocks: await blocksOf(withholder),
      now: honest.clock.now + SLOT,
    });
    expect(r.rejected).toBeUndefined();
    expect(r.reorganized ?? 0).toBe(0);
    expect(honest.view.head.hash).toBe(built.hash);
    // The withholder gets the honest block: it takes it over its own, and both chains are one from there.
    withholder.clock.now = honest.clock.now;
    const w = await withholder.chain.ask({
      type: 'importBlocks',
      blocks: await blocksOf(honest),
      now: withholder.clock.now + SLOT,
    });
    expect(w.rejected).toBeUndefined();
    expect(withholder.view.head.hash).toBe(built.hash);
    // The next block, by whichever of them, builds on the honest block.
    expect(await produce(withholder)).toBe(true);
    const next = await honest.chain.ask({
      type: 'importBlocks',
      blocks: await blocksOf(withholder),
      now: withholder.clock.now + SLOT,
    });
    expect(next.rejected).toBeUndefined();
    expect(honest.view.head.hash).toBe(withholder.view.head.hash);
    expect((await honest.store.block(1))!.header.hash).toBe(built.hash);
  });

  it('made early by a clock running ahead, is refused by a node whose clock has not reached it', async () => {
    const honest = await consensusNode(0, scratch);
    const fast = await consensusNode(1, scratch);
    // The honest validator makes block 1 in its slot; the fast one, two slots ahead (as a second is with 500 ms slots),
    // makes its own block 1 in its next slot by its clock, which has not come yet.
    expect(await produce(honest)).toBe(true);
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
    expect(honest.view.head.height).toBe(1);
    expect(honest.view.head.hash).not.toBe(early.hash);
    // Once the honest node's clock reaches it, it is an ordinary block of its slot (and wins the tie, being later).
    const later = await honest.chain.ask({ type: 'importBlocks', blocks: await blocksOf(fast), now: early.timestamp });
    expect(later.rejected).toBeUndefined();
    expect(honest.view.head.hash).toBe(early.hash);
  });
});
