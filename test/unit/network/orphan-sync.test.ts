import { describe, expect, it } from 'vitest';
import { sealBlock } from '../../../src/chain/block';
import { devAccounts } from '../../../src/chain/devnet';
import type { PostTransport } from '../../../src/network/peerClient';
import { GENESIS, hashOf, headAt, testNetwork } from '../../helpers/p2pFixtures';

/**
 * A gossiped block whose parent this node lacks (network/network.ts): the sync goes out at once, not at the next
 * poll two slots later — meanwhile the node would build its own block on the branch the orphan's producer left.
 */
describe('an orphan block from a peer', () => {
  const [{ keys: validator }] = devAccounts(1);
  // A well-formed block on a parent this node does not have (the consensus actor below says so).
  const orphan = sealBlock(validator, {
    parent: { height: 41, hash: hashOf(41) },
    timestamp: 21_000,
    producer: validator.address,
    stateRoot: GENESIS,
    txs: [],
    results: [],
    events: [],
  });

  async function network() {
    const polls: number[] = [];
    let now = 21_000;
    const transport: PostTransport = {
      status: async () => (polls.push(now), { height: 0, hash: hashOf(0), finalizedHeight: 0, justifiedHeight: 0 }),
      chain: async () => ({ blocks: [], next: null }),
      postBlock: async () => 200,
      postTx: async () => true,
    };
    const head = headAt(40);
    const { net, supervisor } = await testNetwork({
      consensus: { ask: async () => ({ imported: 0, known: 0, orphan: true, head }) },
      transport,
      head,
      now: () => now,
    });
    return { net, polls, supervisor, at: (t: number) => (now = t) };
  }

  it('starts a poll of the peers at once, and no more than one per quarter slot however many come', async () => {
    const t = await network();
    expect(await t.net.blocks(orphan)).toMatchObject({ status: 200, body: { status: 'orphan' } });
    await expect.poll(() => t.polls).toEqual([21_000]);
    // A stranger sending orphans gets one status poll of the peers per quarter slot, no more.
    for (let i = 0; i < 20; i++) await t.net.blocks(orphan);
    t.at(21_124);
    await t.net.blocks(orphan);
    t.at(21_125);
    await t.net.blocks(orphan);
    await expect.poll(() => t.polls).toEqual([21_000, 21_125]);
    await t.supervisor.stop();
  });
});
