import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from '../../src/primitives/hex';
import {
  PeerRequestError,
  REQUEST_SILENCE_MS,
  startP2pHost,
  type GossipVerdict,
  type P2pHost,
} from '../../src/network/libp2p/host';
import { loadOrCreatePeerKey } from '../../src/network/libp2p/peerKey';
import { decodeTxBatch, encodeTxBatch } from '../../src/network/libp2p/txBatch';
import { scratchDirs } from '../helpers/scratch';
import { waitFor } from '../helpers/wait';

/**
 * The libp2p host of issue 50 between real TCP sockets on loopback: Noise-encrypted links, gossipsub on the network's
 * topics, each message handled once, and the handler's verdicts used as gossipsub designed them (reject scores the
 * sender down; ignore costs nobody).
 */
const scratch = scratchDirs();
const log = pino({ level: 'silent' });
const NET: Hex = `0x${'ab'.repeat(32)}`;
const OTHER_NET: Hex = `0x${'cd'.repeat(32)}`;

interface Peer {
  host: P2pHost;
  seen: Uint8Array[];
}

/** A host whose txs handler records each message and judges it by its first byte (0xBA: reject, 0x1E: ignore). */
async function peer(dir: string, genesisHash = NET): Promise<Peer> {
  const host = await startP2pHost({
    privateKey: await loadOrCreatePeerKey(join(dir, 'p2p-key')),
    listen: ['/ip4/127.0.0.1/tcp/0'],
    genesisHash,
    log,
  });
  const seen: Uint8Array[] = [];
  host.subscribe('txs', (data): GossipVerdict => {
    seen.push(data);
    const tag = decodeTxBatch(data)[0][0];
    return tag === 0xba ? 'reject' : tag === 0x1e ? 'ignore' : 'accept';
  });
  return { host, seen };
}

/** A batch of one envelope whose first byte is `tag` (the handler's verdict) and the rest `n`. */
const batch = (tag: number, n: number) => encodeTxBatch([Uint8Array.from([tag, n & 255, n >> 8])]);

let a: Peer;
let b: Peer;
let c: Peer;
let dirA: string;
beforeAll(async () => {
  dirA = scratch('cairn-p2p-a-');
  a = await peer(dirA);
  b = await peer(scratch('cairn-p2p-b-'));
  c = await peer(scratch('cairn-p2p-c-'), OTHER_NET);
  await a.host.dial(b.host.addresses()[0]);
  await c.host.dial(b.host.addresses()[0]);
  // Subscriptions travel after the link is up: A publishes once B is known to take the topic.
  await waitFor('A sees B on the txs topic', () =>
    a.host.peers().some((p) => p.id === b.host.peerId && p.topics.some((t) => t.endsWith('/txs/1'))),
  );
}, 30_000);
afterAll(async () => {
  await Promise.all([a, b, c].map((p) => p?.host.stop()));
});

describe('libp2p host', () => {
  it('keeps one peer identity per data directory, in an owner-only file', async () => {
    const again = await loadOrCreatePeerKey(join(dirA, 'p2p-key'));
    expect(again.publicKey.toString()).toBe((await loadOrCreatePeerKey(join(dirA, 'p2p-key'))).publicKey.toString());
    expect(a.host.addresses()[0]).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${a.host.peerId}$`));
    expect((await stat(join(dirA, 'p2p-key'))).mode & 0o777).toBe(0o600);
  });

  it('delivers a batch once: the same bytes again are a duplicate, dropped before the handler', async () => {
    const msg = batch(0x01, 1);
    expect(await a.host.publish('txs', msg)).toBeGreaterThan(0);
    await waitFor('B handles the batch', () => b.seen.length >= 1);
    await a.host.publish('txs', msg); // same id: not even sent
    await a.host.publish('txs', batch(0x01, 2));
    await waitFor('B handles the second batch', () => b.seen.length >= 2);
    expect(b.seen.map((m) => decodeTxBatch(m)[0][1])).toEqual([1, 2]);
  });

  it("a node of another network never reaches this network's handlers", async () => {
    const before = b.seen.length;
    await c.host.publish('txs', batch(0x01, 3));
    await a.host.publish('txs', batch(0x01, 4)); // a marker that does arrive after it
    await waitFor('B handles the marker', () => b.seen.some((m) => decodeTxBatch(m)[0][1] === 4));
    expect(b.seen.slice(before).map((m) => decodeTxBatch(m)[0][1])).toEqual([4]);
  });

  it('ignored messages (stale here) cost their sender nothing; rejected ones (invalid) score it down', async () => {
    for (let i = 0; i < 3; i++) await a.host.publish('txs', batch(0x1e, 10 + i));
    await waitFor('B judges the stale ones', () => b.seen.filter((m) => decodeTxBatch(m)[0][0] === 0x1e).length === 3);
    expect(b.host.score(a.host.peerId)).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 3; i++) await a.host.publish('txs', batch(0xba, 20 + i));
    // Three invalid messages: -10 × 3² = -90, under gossipsub's graylist threshold (-80).
    await waitFor('A scored down by B', () => b.host.score(a.host.peerId) < -80, 15_000);
    expect(b.host.peers().find((p) => p.id === a.host.peerId)?.score).toBeLessThan(-80);
  });

  it('answers a request; an answer over its bound, a stalled one and an oversized request are cut', async () => {
    await b.host.handle('status', async (req) => Uint8Array.from([...req].reverse()), { maxRequestBytes: 16 });
    await b.host.handle('chain', async () => new Uint8Array(2 << 20).fill(9), { maxRequestBytes: 16 });
    // A peer that never answers (or drips): the asker's deadline ends it.
    await b.host.handle('trie', () => new Promise<Uint8Array>(() => {}), { maxRequestBytes: 16 });
    const ask = (p: 'status' | 'chain' | 'trie', req: Uint8Array, max = 1 << 20, timeoutMs = 2_000) =>
      a.host.request(b.host.peerId, p, req, { maxResponseBytes: max, timeoutMs });
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as PeerRequestError,
      );

    expect([...(await ask('status', Uint8Array.from([1, 2, 3])))]).toEqual([3, 2, 1]);
    expect((await ask('chain', new Uint8Array(1), 3 << 20)).length).toBe(2 << 20);
    expect(await failure(ask('chain', new Uint8Array(1)))).toMatchObject({
      name: 'PeerRequestError',
      kind: 'oversize',
    });
    expect(await failure(ask('trie', new Uint8Array(1), 1 << 20, 500))).toMatchObject({ kind: 'timeout' });
    // A long deadline (a chain page's) does not keep the asker on a silent peer: its silence is cut first.
    const asked = performance.now();
    expect(await failure(ask('trie', new Uint8Array(1), 1 << 20, 60_000))).toMatchObject({ kind: 'timeout' });
    expect(performance.now() - asked).toBeLessThan(REQUEST_SILENCE_MS + 2_000);
    // The asker's request over the server's bound: the server cuts the stream, the asker gets no answer.
    expect(await failure(ask('status', new Uint8Array(17)))).toBeInstanceOf(PeerRequestError);
    // The link survives all of it.
    expect([...(await ask('status', Uint8Array.from([4, 5])))]).toEqual([5, 4]);
  });
});
