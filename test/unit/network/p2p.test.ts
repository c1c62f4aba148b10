import { describe, expect, it } from 'vitest';
import type { ConsensusMsg } from '../../../src/actors/protocol';
import { FANOUT } from '../../../src/network/p2pActor';
import type { ChainPage, PeerStatus, PostTransport } from '../../../src/network/peerClient';
import { readinessOf, SYNC_LAG_BLOCKS, syncingBehind } from '../../../src/network/readiness';
import type { PeerInfo } from '../../../src/protocol/peers';
import type { Block, SignedTx } from '../../../src/protocol/types';
import { blockAt, GENESIS, hashOf, headAt, testP2p } from '../../helpers/p2pFixtures';

/** A peer at `height` reached through an in-memory transport (what a simulator passes): every call is recorded. */
function fakePeer(height: number) {
  const calls: string[] = [];
  const transport: PostTransport = {
    status: async (peer): Promise<PeerStatus> => (
      calls.push(`status ${peer}`),
      { height, hash: hashOf(height), finalizedHeight: 0, justifiedHeight: 0, genesisHash: GENESIS, chainId: 7 }
    ),
    chain: async (peer, from, limit): Promise<ChainPage> => {
      calls.push(`chain ${peer} ${from}`);
      const to = Math.min(height, from + limit - 1);
      return {
        blocks: Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => blockAt(from + i)),
        next: to < height ? to + 1 : null,
      };
    },
    postBlock: async (peer, b) => (calls.push(`block ${peer} ${b.header.height}`), 200),
    postTx: async (peer, tx: SignedTx) => (calls.push(`tx ${peer} ${tx.id}`), true),
  };
  return { transport, calls };
}

describe('the p2p actor over an injected transport and clock', () => {
  it('polls the peer, pulls its chain from the head up and hands the pages to the consensus actor', async () => {
    const peer = fakePeer(450);
    const view = { head: headAt(0) };
    const imported: number[] = [];
    const consensus = {
      ask: async (m: ConsensusMsg) => {
        if (m.type !== 'importBlocks') throw new Error(m.type);
        for (const b of m.blocks) imported.push(b.header.height);
        view.head = headAt(m.blocks[m.blocks.length - 1].header.height);
        return { imported: m.blocks.length, known: 0, head: view.head };
      },
    };
    const book = new Map<string, PeerInfo>();
    const now = () => 5_000;
    const p2p = testP2p({ consensus: consensus as never, view, book, now, transport: peer.transport });
    await p2p.handle({ type: 'tick', now: now() });
    expect(view.head.height).toBe(450);
    expect(imported).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    expect(book.get('sim://a')).toMatchObject({ height: 450, lastSeen: 5_000, lag: 450 });
    expect(peer.calls.filter((c) => c.startsWith('chain'))).toEqual([
      'chain sim://a 1',
      'chain sim://a 201',
      'chain sim://a 401',
    ]);
  });

  it('starts the signature checks of each page fetched ahead as it arrives, not of the first', async () => {
    // The first page may start with blocks we have (a fork's lookback), which the import skips; the pages after it
    // are new, and their checks run while the page before them is imported.
    const peer = fakePeer(450);
    const view = { head: headAt(0) };
    const checked: number[] = [];
    const consensus = {
      ask: async (m: ConsensusMsg) => {
        if (m.type !== 'importBlocks') throw new Error(m.type);
        view.head = headAt(m.blocks[m.blocks.length - 1].header.height);
        return { imported: m.blocks.length, known: 0, head: view.head };
      },
    };
    const p2p = testP2p({
      consensus: consensus as never,
      view,
      transport: peer.transport,
      preverify: (blocks) => checked.push(blocks[0].header.height),
    });
    await p2p.handle({ type: 'tick', now: 5_000 });
    expect(view.head.height).toBe(450);
    expect(checked).toEqual([201, 401]);
  });

  it("blocks ahead of this node's clock wait for the next round, and never count against the peer", async () => {
    // A node whose clock runs late: the consensus actor takes the peer's blocks up to #10 and calls the rest early.
    const peer = fakePeer(30);
    const view = { head: headAt(0) };
    let clockLate = true;
    const consensus = {
      ask: async (m: ConsensusMsg) => {
        if (m.type !== 'importBlocks') throw new Error(m.type);
        const timely = m.blocks.filter((b) => !clockLate || b.header.height <= 10);
        if (timely.length > 0) view.head = headAt(timely[timely.length - 1].header.height);
        const early = timely.length < m.blocks.length ? 'block from a future slot: #11' : undefined;
        return { imported: timely.length, known: 0, head: view.head, ...(early ? { early } : {}) };
      },
    };
    const book = new Map<string, PeerInfo>();
    const p2p = testP2p({ consensus: consensus as never, view, book, transport: peer.transport });
    for (let i = 0; i < 5; i++) await p2p.handle({ type: 'tick', now: 5_000 });
    expect(view.head.height).toBe(10);
    // Five rounds of early blocks: the peer is neither scored down nor dropped (refused blocks dropped it in two).
    expect(book.get('sim://a')).toMatchObject({ score: 0, droppedUntil: 0 });
    clockLate = false;
    await p2p.handle({ type: 'tick', now: 5_000 });
    expect(view.head.height).toBe(30);
  });

  it('a page that does not link and ends in early blocks still steps back to where the chains part', async () => {
    // Our head is #5 of a branch that left the peer's chain after #3; the peer's blocks above #10 are early.
    const peer = fakePeer(12);
    const view = { head: headAt(5) };
    const asked: string[] = [];
    const consensus = {
      ask: async (m: ConsensusMsg) => {
        if (m.type !== 'importBlocks') throw new Error(m.type);
        const first = m.blocks[0].header.height;
        asked.push(`${first}-${m.blocks[m.blocks.length - 1].header.height}`);
        const early = m.blocks.some((b) => b.header.height > 10) ? 'block from a future slot: #11' : undefined;
        // The blocks before the early one do not link when they start above #4 (its parent is not ours).
        if (first > 4) return { imported: 0, known: 0, head: view.head, orphan: true, early };
        view.head = headAt(10);
        return { imported: 10 - 3, known: 3, head: view.head, reorganized: 1, early };
      },
    };
    const p2p = testP2p({ consensus: consensus as never, view, transport: peer.transport });
    await p2p.handle({ type: 'tick', now: 5_000 });
    // It stepped back from #6 instead of stopping at the page's early end (a late clock's node stayed on its own
    // branch for good: the simulator's clock-skew scenario, seed 2).
    expect(asked).toEqual(['6-12', '1-12']);
    expect(view.head.height).toBe(10);
  });

  it('gossips a block and relays a transaction once each', async () => {
    const peer = fakePeer(0);
    const p2p = testP2p({ now: () => 0, transport: peer.transport });
    for (let i = 0; i < 2; i++) {
      await p2p.handle({ type: 'gossipBlock', block: blockAt(3) });
      await p2p.handle({ type: 'relayTx', tx: { id: hashOf(9) } as SignedTx });
    }
    await new Promise((r) => setImmediate(r));
    expect(peer.calls).toEqual([`block sim://a 3`, `tx sim://a ${hashOf(9)}`]);
  });
});

/**
 * Two chains that part at `forkAt`: ours to `ourTip`, the peer's to `peerTip`, served in pages of at most `perPage`
 * blocks (a page is capped at 16 MiB, so a page of full blocks holds a handful). The consensus side is a model of
 * the actor's answers: known blocks skipped, a block whose parent is unknown an orphan, a branch taken when its last
 * block is higher than our head (else stale).
 */
function forkedPeers(forkAt: number, ourTip: number, peerTip: number, perPage: number) {
  const ours = (h: number) => (h <= forkAt ? hashOf(h) : (`0xa${hashOf(h).slice(3)}` as const));
  const theirs = (h: number) => (h <= forkAt ? hashOf(h) : (`0xb${hashOf(h).slice(3)}` as const));
  const block = (h: number) =>
    ({ header: { height: h, hash: theirs(h), parentHash: theirs(h - 1) } }) as unknown as Block;
  const chain = new Map<number, string>(Array.from({ length: ourTip + 1 }, (_, h) => [h, ours(h)]));
  const head = () => {
    const height = chain.size - 1;
    return { ...headAt(height), hash: chain.get(height)! as `0x${string}` };
  };
  const view = { head: head() };
  const pagesAsked: number[] = [];
  const transport: PostTransport = {
    status: async () => ({
      height: peerTip,
      hash: theirs(peerTip),
      finalizedHeight: 0,
      justifiedHeight: 0,
      genesisHash: GENESIS,
      chainId: 7,
    }),
    chain: async (_peer, from, limit) => {
      pagesAsked.push(from);
      const to = Math.min(peerTip, from + Math.min(limit, perPage) - 1);
      return {
        blocks: Array.from({ length: to - from + 1 }, (_, i) => block(from + i)),
        next: to < peerTip ? to + 1 : null,
      };
    },
    postBlock: async () => 200,
    postTx: async () => true,
  };
  const consensus = {
    ask: async (m: ConsensusMsg) => {
      if (m.type !== 'importBlocks') throw new Error(m.type);
      const out = { imported: 0, known: 0, head: view.head };
      for (const b of m.blocks) {
        const h = b.header;
        if (chain.get(h.height) === h.hash) {
          out.known++;
          continue;
        }
        if (chain.get(h.height - 1) !== h.parentHash) return { ...out, orphan: true };
        if (chain.size - 1 >= h.height) {
          const tip = m.blocks[m.blocks.length - 1].header.height;
          if (tip <= chain.size - 1) return { ...out, stale: true };
          for (let x = chain.size - 1; x >= h.height; x--) chain.delete(x); // the reorganization
        }
        chain.set(h.height, h.hash);
        out.imported++;
        view.head = head();
      }
      return { ...out, head: view.head };
    },
  };
  return { view, consensus, transport, pagesAsked, theirs };
}

/** One tick of the p2p actor against forkedPeers' peer. */
async function syncOnce(f: ReturnType<typeof forkedPeers>): Promise<void> {
  const p2p = testP2p({ consensus: f.consensus as never, view: f.view, transport: f.transport });
  await p2p.handle({ type: 'tick', now: 5_000 });
}

describe('gossip fanout', () => {
  it('sends each message to the next FANOUT peers in turn: within three messages all 20 peers, scored down or not', async () => {
    const sent: string[][] = [[], [], []];
    let message = 0;
    const peers = Array.from({ length: 20 }, (_, i) => `sim://p${String(i).padStart(2, '0')}`);
    const book = new Map<string, PeerInfo>();
    const p2p = testP2p({
      peers: () => peers,
      book,
      now: () => 0,
      transport: { ...fakePeer(0).transport, postBlock: async (peer) => (sent[message].push(peer), 200) },
    });
    // Twelve peers a partition cut off, scored down: before, the same best-scored eight got every message.
    for (const url of peers.slice(0, 12)) book.get(url)!.score = -40;
    for (; message < 3; message++) await p2p.handle({ type: 'gossipBlock', block: blockAt(message + 1) });
    await new Promise((r) => setImmediate(r));
    expect(sent.map((s) => s.length)).toEqual([FANOUT, FANOUT, FANOUT]);
    expect(new Set(sent.flat())).toEqual(new Set(peers));
  });
});

describe('sync across a fork', () => {
  it('finds where the chains part and takes a branch that outweighs our head only past its first pages', async () => {
    // Before: the page after the step back held blocks we had, so the loop asked again from our head (an orphan
    // again) and stepped back again, for ever — the soak's split: nodes that never took the longer chain.
    const f = forkedPeers(20, 34, 38, 4);
    await syncOnce(f);
    expect(f.view.head).toMatchObject({ height: 38, hash: f.theirs(38) });
    // From our head, back 32, then page by page up to the peer's head: no page asked twice.
    expect(f.pagesAsked).toEqual([35, 3, 7, 11, 15, 19, 23, 27, 31, 35]);
  });

  it('gives up a branch that never outweighs our head, and asks nothing more', async () => {
    const f = forkedPeers(20, 34, 33, 4);
    f.transport.status = async () => ({
      height: 40, // it claims more than it serves
      hash: f.theirs(33),
      finalizedHeight: 0,
      justifiedHeight: 0,
      genesisHash: GENESIS,
      chainId: 7,
    });
    await syncOnce(f);
    expect(f.view.head.height).toBe(34);
    expect(f.view.head.hash.startsWith('0xa')).toBe(true);
    expect(f.pagesAsked.length).toBeLessThan(12);
  });
});

describe('a poll round and a peer that does not answer', () => {
  it('does not wait for a peer that did not answer last time: the others are synced from at once', async () => {
    // Found by the simulator (seed 2, --slots 30 --heal-slots 40): each round waited out the 5 s timeout of a peer cut
    // off by a partition, so after the heal a node took ten slots to see that the others were ahead.
    const ahead = fakePeer(30);
    let asked = 0;
    const transport: PostTransport = {
      ...ahead.transport,
      status: (peer) => {
        if (peer === 'sim://b') return ahead.transport.status(peer);
        asked++;
        // The first poll times out; the next is never answered (the peer is still cut off).
        return asked === 1 ? Promise.reject(new Error('no answer in 5000 ms')) : new Promise(() => {});
      },
    };
    const view = { head: headAt(0) };
    const consensus = {
      ask: async (m: ConsensusMsg) => {
        if (m.type !== 'importBlocks') throw new Error(m.type);
        view.head = headAt(m.blocks[m.blocks.length - 1].header.height);
        return { imported: m.blocks.length, known: 0, head: view.head };
      },
    };
    const book = new Map<string, PeerInfo>();
    const sync = testP2p({ peers: () => ['sim://a', 'sim://b'], consensus: consensus as never, view, book, transport });
    await sync.handle({ type: 'tick', now: 5_000 });
    expect(view.head.height).toBe(30);
    ahead.transport.status = async () => ({ height: 60, hash: hashOf(60), finalizedHeight: 0, justifiedHeight: 0 });
    const second = sync.handle({ type: 'tick', now: 6_000 });
    const done = await Promise.race([second.then(() => 'done'), new Promise((r) => setTimeout(r, 2_000, 'waiting'))]);
    expect(done).toBe('done');
    expect(asked).toBe(2); // polled again all the same: its answer, if it comes, is for the next round
  });
});

describe('readiness', () => {
  const peer = (lastSeen: number, height = 0): PeerInfo => ({
    url: 'p',
    height,
    head: null,
    finalizedHeight: 0,
    justifiedHeight: 0,
    lag: 0,
    latencyMs: null,
    score: 0,
    lastSeen,
    droppedUntil: 0,
  });
  const at = (s: Partial<Parameters<typeof readinessOf>[0]>) =>
    readinessOf({
      configuredPeers: 1,
      peers: [peer(95_000)],
      head: { height: 10, timestamp: 99_000 },
      behind: 0,
      staleMs: 10_000,
      now: 100_000,
      ...s,
    });

  it('is ready with a reachable peer and a recent head', () => {
    expect(at({})).toEqual({ ready: true, height: 10, peers: 1, reachable: 1, behind: 0 });
  });

  it('says why not: syncing, no peer reachable, no recent block', () => {
    expect(at({ behind: SYNC_LAG_BLOCKS + 1 })).toMatchObject({
      ready: false,
      reason: `syncing: ${SYNC_LAG_BLOCKS + 1} blocks behind`,
    });
    expect(at({ peers: [peer(80_000)] })).toMatchObject({ ready: false, reason: 'no peer reachable', reachable: 0 });
    expect(at({ head: { height: 10, timestamp: 80_000 } })).toMatchObject({
      ready: false,
      reason: 'no block for 20 s',
    });
  });

  it('a node without configured peers is never syncing nor short of peers', () => {
    expect(at({ configuredPeers: 0, peers: [], behind: 1_000 })).toMatchObject({ ready: true });
    expect(syncingBehind(0, 1_000)).toBeNull();
    expect(syncingBehind(1, SYNC_LAG_BLOCKS)).toBeNull();
    expect(syncingBehind(1, SYNC_LAG_BLOCKS + 1)).toBe(SYNC_LAG_BLOCKS + 1);
  });
});
