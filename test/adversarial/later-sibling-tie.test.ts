/**
 * A producer that forks out its predecessor's block: in its own slot, in time, it builds on the block before the one
 * its predecessor made, so that its block stands at the same height. Fork choice gave equal heights (both in time) to
 * the lower hash, so it won half of those ties and undid an honest block with its producer's finality vote; a
 * byzantine validator doing it in its every slot kept the simulator's network from finality 41 slots after the heal
 * (seed 31090, 8 validators, bound 39). At equal heights, both in time, the earlier block now wins.
 */
import { describe, expect, it } from 'vitest';
import { arrivedLate } from '../../src/consensus/slots';
import { blocksOf, consensusNode, produce, SLOT } from '../helpers/consensusPair';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

describe("a block that takes its predecessor's place, in its own slot", () => {
  it('does not replace the earlier block at its height, even with the lower hash', async () => {
    // The two blocks' hashes depend on their times: find the start at which the later one has the lower hash, the tie
    // the hash rule gave to it.
    for (let start = 0; start < 20; start++) {
      const honest = await consensusNode(0, scratch);
      const forker = await consensusNode(1, scratch);
      honest.clock.now += start * 2 * SLOT;
      expect(await produce(honest)).toBe(true);
      // The forker ignores the honest block 1 and makes its own 1 in its slot, after the honest one's.
      forker.clock.now = honest.clock.now;
      expect(await produce(forker)).toBe(true);
      const [earlier, later] = [honest.view.head, forker.view.head];
      expect(later.height).toBe(earlier.height);
      expect(later.timestamp).toBeGreaterThan(earlier.timestamp);
      if (later.hash.toLowerCase() > earlier.hash.toLowerCase()) continue;

      // Published in its own slot: in time.
      expect(arrivedLate(later.timestamp, forker.clock.now, SLOT)).toBe(false);
      const r = await honest.chain.ask({ type: 'importBlocks', blocks: await blocksOf(forker), now: forker.clock.now });
      expect(r.rejected).toBeUndefined();
      expect(r.stale).toBe(true);
      expect(honest.view.head.hash).toBe(earlier.hash);
      return;
    }
    throw new Error('no start gave the later block the lower hash');
  });
});
