import { describe, expect, it } from 'vitest';
import type { PostTransport } from '../../src/network/peerClient';
import type { SignedTx } from '../../src/protocol/types';
import { blockAt, hashOf, headAt, testNetwork } from '../helpers/p2pFixtures';

/**
 * The node's network side (network/network.ts) as `cairn node` starts it, over an in-memory transport: gossip and
 * sync are two actors, so what one is made to wait on never holds the other.
 */
describe("a node's network side under a transaction flood and a silent peer", () => {
  /** startNetwork over a transport whose status answers wait until released; every call is recorded. */
  async function network() {
    const calls: string[] = [];
    let release: () => void = () => {};
    const answered = new Promise<void>((r) => (release = r));
    const transport: PostTransport = {
      status: async (peer) => {
        calls.push(`status ${peer}`);
        await answered;
        return { height: 0, hash: hashOf(0), finalizedHeight: 0, justifiedHeight: 0 };
      },
      chain: async () => ({ blocks: [], next: null }),
      postBlock: async (peer, b) => (calls.push(`block ${peer} ${b.header.height}`), 200),
      postTx: async () => true,
    };
    const { net, supervisor } = await testNetwork({
      consensus: { ask: async () => ({ imported: 0, known: 0, head: headAt(0) }) },
      transport,
    });
    return { net, calls, release, supervisor };
  }

  it('a poll goes out while relayed transactions wait in the gossip mailbox', async () => {
    // Before, one mailbox: a tick was sent only when it was empty. Anyone can keep it from being empty by sending
    // valid transactions (each is relayed); at 60 tx/s in the soak it never was, so no node synced and the network
    // split for good.
    const t = await network();
    for (let i = 0; i < 50; i++) t.net.relay({ id: hashOf(1_000 + i) } as SignedTx);
    t.net.tick(1_000);
    await expect.poll(() => t.calls.includes('status sim://a')).toBe(true);
    t.release();
    await t.supervisor.stop();
  });

  it("the node's own block is gossiped while a sync waits on a peer that does not answer", async () => {
    // Before, a sync held the one mailbox, and the block it had just produced waited behind it (a fork each time): a
    // configured peer that answered /status slowly held back the node's gossip as long as it liked.
    const t = await network();
    t.net.tick(1_000);
    await expect.poll(() => t.calls.includes('status sim://a')).toBe(true); // the poll is out, not answered
    t.net.produced(blockAt(7));
    await expect.poll(() => t.calls.includes('block sim://a 7')).toBe(true);
    t.release();
    await t.supervisor.stop();
  });
});
