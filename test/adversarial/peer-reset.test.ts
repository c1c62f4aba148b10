import { describe, expect, it } from 'vitest';
import type { ConsensusMsg } from '../../src/actors/protocol';
import type { ChainPage, PostTransport } from '../../src/network/peerClient';
import { blockAt, GENESIS, hashOf, headAt, testP2p } from '../helpers/p2pFixtures';

/**
 * A peer that dies in the middle of a sync (its connection reset) must not take the node with it. In the soak, two
 * validators exited on `fetch failed … ECONNRESET` from GET /chain: the sync loop had asked for a page it then left
 * behind (its head had caught up meanwhile), and that request's rejection was unhandled, which ends a Node process.
 */
describe('a peer resetting its connection during a sync', () => {
  it('is a failed request, not an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const transport: PostTransport = {
        status: async () => ({
          height: 250,
          hash: hashOf(250),
          finalizedHeight: 0,
          justifiedHeight: 0,
          genesisHash: GENESIS,
          chainId: 7,
        }),
        chain: async (_peer, from, limit): Promise<ChainPage> => {
          if (from > 1) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
          return { blocks: Array.from({ length: limit }, (_, i) => blockAt(from + i)), next: from + limit };
        },
        postBlock: async () => 200,
        postTx: async () => true,
      };
      const view = { head: headAt(0) };
      // Importing the first page, the head reaches the peer's (gossip brought the rest): the loop asks for the page
      // after the new head, then stops, the peer no longer ahead.
      const consensus = {
        ask: async (m: ConsensusMsg) => {
          if (m.type !== 'importBlocks') throw new Error(m.type);
          view.head = headAt(250);
          return { imported: m.blocks.length, known: 0, head: view.head };
        },
      };
      const p2p = testP2p({ consensus: consensus as never, view, transport });
      await p2p.handle({ type: 'tick', now: 5_000 });
      await new Promise((r) => setTimeout(r, 50)); // an unhandled rejection is reported after a turn of the loop
      expect(view.head.height).toBe(250);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
