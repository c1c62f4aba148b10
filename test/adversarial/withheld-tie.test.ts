/**
 * A producer that withholds its block: it makes the block in its slot, keeps it until the next producer has filled
 * its place (a block at the same height, in the next slot), then publishes it. Fork choice gave equal heights to the
 * lower hash, so the withheld block won half of those ties: the blocks built on the one it replaced were undone, and
 * with them their producers' finality votes (the simulator, seed 6089, 9 validators: finality 52 slots after the
 * heal, bound 42). A block that comes after its slot ended now loses an equal-height tie to one that came in time.
 */
import { describe, expect, it } from 'vitest';
import { arrivedLate } from '../../src/consensus/slots';
import { blocksOf, consensusNode, produce, SLOT } from '../helpers/consensusPair';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

describe('a block withheld and published late', () => {
  it('does not replace the block made in its place, even with the lower hash', async () => {
    // The two blocks' hashes depend on their times: find the start at which the withheld one has the lower hash, the
    // tie the hash rule gave to the withholder.
    for (let start = 0; start < 20; start++) {
      const withholder = await consensusNode(0, scratch);
      const next = await consensusNode(1, scratch);
      withholder.clock.now += start * 2 * SLOT;
      // The withholder makes block 1 and publishes nothing; the next producer, having seen no block, makes its own 1.
      expect(await produce(withholder)).toBe(true);
      next.clock.now = withholder.clock.now;
      expect(await produce(next)).toBe(true);
      const [withheld, inItsPlace] = [withholder.view.head, next.view.head];
      expect(inItsPlace.height).toBe(withheld.height);
      if (withheld.hash.toLowerCase() > inItsPlace.hash.toLowerCase()) continue;

      // Published now, in the next producer's slot: after its own slot ended.
      expect(arrivedLate(withheld.timestamp, next.clock.now, SLOT)).toBe(true);
      const r = await next.chain.ask({ type: 'importBlocks', blocks: await blocksOf(withholder), now: next.clock.now });
      expect(r.rejected).toBeUndefined();
      expect(r.stale).toBe(true);
      expect(next.view.head.hash).toBe(inItsPlace.hash);

      // The next block settles it for the withholder too: built on the block made in its place, it is higher.
      expect(await produce(next)).toBe(true);
      const settled = await withholder.chain.ask({
        type: 'importBlocks',
        blocks: await blocksOf(next),
        now: next.clock.now,
      });
      expect(settled.rejected).toBeUndefined();
      expect(settled.reorganized).toBe(1);
      expect(withholder.view.head.hash).toBe(next.view.head.hash);
      return;
    }
    throw new Error('no start gave the withheld block the lower hash');
  });
});
