import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealBlock } from '../../src/chain/block';
import { deriveKeys, devSecret } from '../../src/crypto/keys';
import type { ConsensusMsg } from '../../src/actors/protocol';
import { PeerRequestError, startP2pHost, type GossipHandler, type P2pHost } from '../../src/network/libp2p/host';
import { loadOrCreatePeerKey } from '../../src/network/libp2p/peerKey';
import { hostTransport } from '../../src/network/libp2p/requests';
import { ORPHAN_BURST, startTopicGossip } from '../../src/network/libp2p/topicGossip';
import { encodeBlockWire } from '../../src/network/libp2p/wire';
import type { ChainPage, PeerStatus, PostTransport } from '../../src/network/peerClient';
import type { Hex } from '../../src/primitives/hex';
import type { PeerInfo } from '../../src/protocol/peers';
import { blockAt, GENESIS, hashOf, headAt, quietLog, testNetwork, testP2p } from '../helpers/p2pFixtures';
import { scratchDirs } from '../helpers/scratch';
import { waitFor } from '../helpers/wait';

/**
 * Issue 50, "Peers that lie", on the libp2p layer: each row is what a peer did to the HTTP network, and each test
 * failed before its fix.
 */

/** A peer by URL: its status, and pages from `chain` (empty: a peer that claims a head and serves nothing). */
function peers(of: Record<string, { status: PeerStatus; chain?: (from: number, limit: number) => ChainPage }>) {
  const asked: string[] = [];
  const transport: PostTransport = {
    status: async (url) => of[url].status,
    chain: async (url, from, limit) => (asked.push(url), of[url].chain?.(from, limit) ?? { blocks: [], next: null }),
    postBlock: async () => 200,
    postTx: async () => true,
  };
  return { transport, asked };
}

const status = (height: number, justifiedHeight = 0): PeerStatus => ({
  height,
  hash: hashOf(height),
  finalizedHeight: 0,
  justifiedHeight,
  genesisHash: GENESIS,
  chainId: 7,
});

/** A consensus actor that imports whatever links (the fixtures' blocks are their height and hash). */
function importing(view: { head: ReturnType<typeof headAt> }) {
  return {
    ask: async (m: ConsensusMsg) => {
      if (m.type !== 'importBlocks') throw new Error(m.type);
      view.head = headAt(m.blocks[m.blocks.length - 1].header.height);
      return { imported: m.blocks.length, known: 0, head: view.head };
    },
  };
}

describe('row 1: a peer that claims a later justified head and serves empty pages', () => {
  it('is scored down, and the sync takes the honest peer within a few rounds', async () => {
    const honest = (from: number, limit: number): ChainPage => {
      const to = Math.min(30, from + limit - 1);
      return { blocks: Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => blockAt(from + i)), next: null };
    };
    const { transport, asked } = peers({
      'sim://liar': { status: status(100, 90) },
      'sim://honest': { status: status(30), chain: honest },
    });
    const view = { head: headAt(0) };
    const book = new Map<string, PeerInfo>();
    const p2p = testP2p({
      peers: () => ['sim://liar', 'sim://honest'],
      consensus: importing(view) as never,
      view,
      book,
      transport,
    });
    for (let round = 0; round < 4 && view.head.height < 30; round++) await p2p.handle({ type: 'tick', now: 5_000 });
    expect(view.head.height).toBe(30);
    expect(asked.filter((u) => u === 'sim://liar').length).toBeLessThanOrEqual(3);
    expect(book.get('sim://liar')!.droppedUntil > 5_000 || book.get('sim://liar')!.score < 0).toBe(true);
  });
});

describe('row 3: a peer that claims an absurd height', () => {
  it('makes the node answer "syncing" for a few rounds at most, and not once it is scored down or dropped', async () => {
    const { transport } = peers({ 'sim://a': { status: status(1e12) } });
    const view = { head: headAt(5) };
    const { net, supervisor } = await testNetwork({ consensus: importing(view), transport, head: view.head });
    try {
      // Polled round after round (a round is sent only when the last is done): it first counts, and not for long.
      let round = 0;
      let counted = false;
      await waitFor(
        'the claimed height no longer counts',
        () => {
          if (net.behind() !== null) counted = true;
          net.tick(5_000 + round++);
          return counted && net.behind() === null;
        },
        10_000,
        10,
      );
      expect(net.book.get('sim://a')!.height).toBe(1e12); // still in the book: its claim no longer counts
    } finally {
      await supervisor.stop();
    }
  });
});

describe('row 4: a peer that gossips orphans', () => {
  it('costs the node a lookup each (never a decode or an import), and past its bucket each is rejected', async () => {
    const handlers = new Map<string, GossipHandler>();
    const host = {
      subscribe: (topic: string, h: GossipHandler) => void handlers.set(topic, h),
      publish: async () => 0,
    } as unknown as P2pHost;
    let asked = 0;
    let orphans = 0;
    startTopicGossip({
      host,
      consensus: {
        ask: async () => {
          asked++;
          return { imported: 0, known: 0, orphan: true, head: headAt(0) };
        },
      } as never,
      admitTx: async () => 'accepted',
      now: () => 1_000,
      log: quietLog,
      onOrphan: () => orphans++,
      knownBlock: async () => false,
      slotMs: 500,
    });
    const producer = deriveKeys(devSecret(3));
    const orphan = (n: number) =>
      encodeBlockWire(
        sealBlock(producer, {
          parent: { height: 1_000 + n, hash: `0x${(n + 1).toString(16).padStart(64, '7')}` as Hex },
          timestamp: 1_000,
          producer: producer.address,
          stateRoot: GENESIS,
          txs: [],
          results: [],
          events: [],
        }),
      );
    const verdicts = [];
    for (let n = 0; n < 100; n++) verdicts.push(await handlers.get('blocks')!(orphan(n), 'attacker'));
    expect(asked).toBe(0);
    expect(verdicts.slice(0, ORPHAN_BURST).every((v) => v === 'ignore')).toBe(true);
    expect(verdicts.slice(ORPHAN_BURST).every((v) => v === 'reject')).toBe(true);
    expect(orphans).toBe(ORPHAN_BURST);
    // Another peer is not charged for the first one's flood.
    expect(await handlers.get('blocks')!(orphan(200), 'honest')).toBe('ignore');
  });
});

describe('row 2: a peer that answers a page with a huge body', () => {
  const scratch = scratchDirs();
  const hosts: P2pHost[] = [];
  afterAll(async () => {
    for (const h of hosts) await h.stop();
  });

  it('costs the asker its bound and no more: the read is cut (host.ts readBounded) and the sync sees a failed page', async () => {
    const start = async (name: string) => {
      const h = await startP2pHost({
        privateKey: await loadOrCreatePeerKey(join(scratch(`cairn-liar-${name}-`), 'p2p-key')),
        listen: ['/ip4/127.0.0.1/tcp/0'],
        genesisHash: GENESIS,
        log: quietLog,
      });
      hosts.push(h);
      return h;
    };
    const victim = await start('victim');
    const liar = await start('liar');
    // 80 MiB of page: the binary page bound is 32 MiB.
    await liar.handle('chain', async () => new Uint8Array(80 << 20), { maxRequestBytes: 256 });
    await victim.dial(liar.addresses()[0]);
    const err = await hostTransport(victim)
      .chain(`/p2p/${liar.peerId}`, 1, 10)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PeerRequestError);
    expect((err as PeerRequestError).kind).toBe('oversize');
  }, 60_000);
});
