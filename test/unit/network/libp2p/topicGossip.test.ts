import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { sealBlock, ZERO_HASH } from '../../../../src/chain/block';
import { DEV_NETWORK } from '../../../../src/chain/devnet';
import { signTx } from '../../../../src/chain/envelope';
import { deriveKeys, devSecret } from '../../../../src/crypto/keys';
import type { ImportOutcome } from '../../../../src/actors/protocol';
import type { GossipHandler, GossipTopic, P2pHost } from '../../../../src/network/libp2p/host';
import { startTopicGossip, type TxJudgement } from '../../../../src/network/libp2p/topicGossip';
import { decodeTxBatch, encodeTxBatch } from '../../../../src/network/libp2p/txBatch';
import {
  decodeBlockWire,
  decodeTxWire,
  encodeBlockWire,
  encodeCompactBlock,
  encodeTxWire,
  isCompactBlock,
} from '../../../../src/network/libp2p/wire';
import type { SignedTx } from '../../../../src/protocol/types';
import type { Block } from '../../../../src/protocol/types';
import { headAt } from '../../../helpers/p2pFixtures';

const [alice, carol] = [0, 2].map((i) => deriveKeys(devSecret(i)));
const transfer = (nonce: number) =>
  signTx(alice, { type: 'TRANSFER', to: carol.address, amount: '5', nonce, timestamp: 1_700_000_000_000 }, DEV_NETWORK);
const block = (txs = [transfer(0), transfer(1)]): Block =>
  sealBlock(carol, {
    parent: { height: 0, hash: ZERO_HASH },
    timestamp: 1_000,
    producer: carol.address,
    stateRoot: ZERO_HASH,
    txs,
    results: txs.map(() => ({ status: 'success', energyUsed: '0', burned: '1' })),
    events: [],
  });

/** A host that records what is published and hands a test the handlers of its topics. */
function fakeHost() {
  const handlers = new Map<GossipTopic, GossipHandler>();
  const published: { topic: GossipTopic; data: Uint8Array }[] = [];
  const host = {
    subscribe: (topic: GossipTopic, h: GossipHandler) => void handlers.set(topic, h),
    publish: async (topic: GossipTopic, data: Uint8Array) => (published.push({ topic, data }), 1),
  } as unknown as P2pHost;
  return { host, published, deliver: (topic: GossipTopic, data: Uint8Array) => handlers.get(topic)!(data, 'peer') };
}

const outcome = (o: Partial<ImportOutcome>): ImportOutcome => ({ imported: 0, known: 0, head: headAt(0), ...o });

function gossip(o: { judge?: (n: number) => TxJudgement; imports?: ImportOutcome } = {}) {
  const f = fakeHost();
  const admitted: number[] = [];
  let orphans = 0;
  const g = startTopicGossip({
    host: f.host,
    consensus: { ask: async () => o.imports ?? outcome({ imported: 1 }) } as never,
    admitTx: async (tx) => {
      const nonce = tx.kind === 'hybrid' ? (tx.body as { nonce: number }).nonce : -1;
      admitted.push(nonce);
      return o.judge?.(nonce) ?? 'accepted';
    },
    now: () => 0,
    log: pino({ level: 'silent' }),
    onOrphan: () => orphans++,
    batchMs: 1,
  });
  return { ...f, g, admitted, orphans: () => orphans };
}

describe('the wire (network/libp2p/wire.ts)', () => {
  it('a hybrid transaction crosses as its canonical envelope, and comes back the same', () => {
    const tx = transfer(3);
    const w = decodeTxWire(encodeTxWire(tx));
    expect(w.kind).toBe('hybrid');
    expect(JSON.parse(JSON.stringify((w as { body: unknown }).body))).toEqual(JSON.parse(JSON.stringify(tx)));
  });

  it('a block crosses as a one-block binary page, and comes back the same', () => {
    const b = block();
    expect(JSON.parse(JSON.stringify(decodeBlockWire(encodeBlockWire(b))))).toEqual(JSON.parse(JSON.stringify(b)));
  });

  it('refuses what is not one transaction or one block', () => {
    expect(decodeTxWire(Uint8Array.of(9, 1, 2)).kind).toBe('malformed');
    expect(decodeTxWire(Uint8Array.of(0, 0x7b)).kind).toBe('malformed');
    expect(() => decodeBlockWire(Uint8Array.of(1, 2, 3))).toThrow();
  });
});

describe('gossip verdicts (network/libp2p/topicGossip.ts)', () => {
  it('accepts a batch with an admitted transaction; each envelope is admitted once across batches', async () => {
    const t = gossip();
    const batch = encodeTxBatch([encodeTxWire(transfer(0)), encodeTxWire(transfer(1))]);
    expect(await t.deliver('txs', batch)).toBe('accept');
    // Another peer's batch holding one of them and a new one: only the new one reaches admission.
    expect(await t.deliver('txs', encodeTxBatch([encodeTxWire(transfer(1)), encodeTxWire(transfer(2))]))).toBe(
      'accept',
    );
    expect(t.admitted).toEqual([0, 1, 2]);
  });

  it("rejects a batch with a forged or malformed transaction; ignores one refused for this node's state", async () => {
    const forged = gossip({ judge: (n) => (n === 1 ? 'invalid' : 'accepted') });
    expect(await forged.deliver('txs', encodeTxBatch([encodeTxWire(transfer(0)), encodeTxWire(transfer(1))]))).toBe(
      'reject',
    );
    expect(await gossip().deliver('txs', encodeTxBatch([Uint8Array.of(7, 7, 7)]))).toBe('reject');
    expect(await gossip().deliver('txs', Uint8Array.of(0, 5))).toBe('reject');
    // A nonce used here already, a full mempool: stale or local, no penalty for whoever relayed it.
    const stale = gossip({ judge: () => 'refused' });
    expect(await stale.deliver('txs', encodeTxBatch([encodeTxWire(transfer(0))]))).toBe('ignore');
    const busy = gossip({ judge: () => 'busy' });
    expect(await busy.deliver('txs', encodeTxBatch([encodeTxWire(transfer(0))]))).toBe('ignore');
  });

  it('judges blocks: invalid rejected, below the final height ignored, orphans ignored and pulled', async () => {
    const wire = encodeBlockWire(block());
    expect(await gossip().deliver('blocks', wire)).toBe('accept');
    expect(await gossip({ imports: outcome({ rejected: 'bad signature' }) }).deliver('blocks', wire)).toBe('reject');
    expect(
      await gossip({ imports: outcome({ rejected: 'forks below', belowFinal: true }) }).deliver('blocks', wire),
    ).toBe('ignore');
    expect(await gossip({ imports: outcome({ known: 1 }) }).deliver('blocks', wire)).toBe('ignore');
    const orphan = gossip({ imports: outcome({ orphan: true }) });
    expect(await orphan.deliver('blocks', wire)).toBe('ignore');
    expect(orphan.orphans()).toBe(1);
    expect(await gossip().deliver('blocks', Uint8Array.of(1, 0, 0, 0))).toBe('reject');
  });

  it("publishes the node's transactions in batches and its blocks whole", async () => {
    const t = gossip();
    for (let n = 0; n < 3; n++) t.g.relayTx(transfer(n));
    t.g.flush();
    t.g.publishBlock(block([]));
    const [txs, blocks] = [
      t.published.filter((p) => p.topic === 'txs'),
      t.published.filter((p) => p.topic === 'blocks'),
    ];
    expect(txs).toHaveLength(1);
    expect(decodeTxBatch(txs[0].data)).toHaveLength(3);
    expect(blocks).toHaveLength(1);
    expect(decodeBlockWire(blocks[0].data).header.height).toBe(1);
  });
});

describe('compact blocks (header and ids; rebuilt from the mempool)', () => {
  it('rebuilds a block from the mempool, asks the sender only for what it lacks, and publishes compact', async () => {
    const [t0, t1] = [transfer(0), transfer(1)];
    const b = block([t0, t1]);
    const handlers = new Map<string, GossipHandler>();
    const asked: unknown[] = [];
    const published: Uint8Array[] = [];
    const host = {
      subscribe: (topic: string, h: GossipHandler) => void handlers.set(topic, h),
      publish: async (_t: string, data: Uint8Array) => (published.push(data), 1),
      handle: async () => {},
      request: async (_peer: string, _protocol: string, req: Uint8Array) => {
        asked.push(JSON.parse(new TextDecoder().decode(req)));
        return new TextEncoder().encode(JSON.stringify([JSON.parse(JSON.stringify(t1))]));
      },
    } as unknown as P2pHost;
    let imported: Block | undefined;
    const g = startTopicGossip({
      host,
      consensus: {
        ask: async (m: { blocks: Block[] }) => ((imported = m.blocks[0]), outcome({ imported: 1 })),
      } as never,
      admitTx: async () => 'accepted',
      now: () => 0,
      log: pino({ level: 'silent' }),
      knownBlock: async (hash) => hash === b.header.parentHash,
      lookupTx: (id) => (id === t0.id ? (t0 as SignedTx) : undefined),
    });
    expect(await handlers.get('blocks')!(encodeCompactBlock(b), 'producer')).toBe('accept');
    expect(asked).toEqual([[t1.id]]);
    expect(imported!.txs.map((t) => t.id)).toEqual([t0.id, t1.id]);
    expect(imported!.header).toEqual(b.header);
    g.publishBlock(b);
    expect(isCompactBlock(published[0])).toBe(true);
    expect(published[0].length).toBeLessThan(encodeBlockWire(b).length / 2);
  });

  it('a compact block whose missing transactions the sender does not serve is left to the sync, unpenalized', async () => {
    const b = block([transfer(5)]);
    const handlers = new Map<string, GossipHandler>();
    let pulls = 0;
    const host = {
      subscribe: (topic: string, h: GossipHandler) => void handlers.set(topic, h),
      publish: async () => 1,
      handle: async () => {},
      request: async () => {
        throw new Error('no answer');
      },
    } as unknown as P2pHost;
    startTopicGossip({
      host,
      consensus: { ask: async () => outcome({ imported: 1 }) } as never,
      admitTx: async () => 'accepted',
      now: () => 0,
      log: pino({ level: 'silent' }),
      knownBlock: async (hash) => hash === b.header.parentHash,
      lookupTx: () => undefined,
      onOrphan: () => pulls++,
    });
    expect(await handlers.get('blocks')!(encodeCompactBlock(b), 'producer')).toBe('ignore');
    expect(pulls).toBe(1);
  });
});

describe('rival branches by gossip (held stale blocks)', () => {
  const keys = deriveKeys(devSecret(3));
  const child = (parent: Block, t: number): Block =>
    sealBlock(keys, {
      parent: { height: parent.header.height, hash: parent.header.hash },
      timestamp: t,
      producer: keys.address,
      stateRoot: ZERO_HASH,
      txs: [],
      results: [],
      events: [],
    });
  const root = child(block(), 1_000); // the fork point: known here
  const sibling = child(root, 1_500); // a rival of this node's head, stale when it came
  const next = child(sibling, 2_000);

  function node(outcomes: (blocks: Block[]) => ImportOutcome) {
    const f = fakeHost();
    const asked: string[][] = [];
    let orphans = 0;
    const g = startTopicGossip({
      host: f.host,
      consensus: {
        ask: async (m: { blocks: Block[] }) => {
          asked.push(m.blocks.map((b) => b.header.hash));
          return outcomes(m.blocks);
        },
      } as never,
      admitTx: async () => 'accepted',
      now: () => 0,
      log: pino({ level: 'silent' }),
      onOrphan: () => orphans++,
      knownBlock: async (hash) => hash === root.header.hash || hash === block().header.hash,
    });
    return { ...f, g, asked, orphans: () => orphans };
  }

  it('a block on a held stale sibling goes to the consensus with it, and is not an orphan', async () => {
    const n = node((blocks) =>
      blocks.length === 1 ? outcome({ stale: true }) : outcome({ imported: 2, reorganized: 1 }),
    );
    expect(await n.deliver('blocks', encodeBlockWire(sibling))).toBe('ignore');
    expect(await n.deliver('blocks', encodeBlockWire(next))).toBe('accept');
    expect(n.asked).toEqual([[sibling.header.hash], [sibling.header.hash, next.header.hash]]);
    expect(n.orphans()).toBe(0);
    expect(n.g.stats().linked).toBe(1);
  });

  it('without the sibling held, the next block is an orphan left to the sync (as before)', async () => {
    const n = node(() => outcome({ imported: 1 }));
    expect(await n.deliver('blocks', encodeBlockWire(next))).toBe('ignore');
    expect(n.asked).toEqual([]);
    expect(n.orphans()).toBe(1);
  });

  it('a branch refused with held blocks in it blames no one, drops them, and asks the sync', async () => {
    const n = node((blocks) =>
      blocks.length === 1 ? outcome({ stale: true }) : outcome({ rejected: 'bad signature' }),
    );
    await n.deliver('blocks', encodeBlockWire(sibling));
    expect(await n.deliver('blocks', encodeBlockWire(next))).toBe('ignore');
    expect(n.orphans()).toBe(1);
    // Dropped: the same block again is an orphan now.
    expect(await n.deliver('blocks', encodeBlockWire(child(sibling, 2_100)))).toBe('ignore');
    expect(n.asked).toHaveLength(2);
    expect(n.orphans()).toBe(2);
  });
});
