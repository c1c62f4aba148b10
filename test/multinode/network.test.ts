import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { startDevnet, until, type Devnet } from '../helpers/devnet';

/**
 * Four validators, each its own process with its own RocksDB, on loopback ports (cairn
 * devnet): one chain, finality on every node, transactions from any node everywhere, and
 * faults — 1 of 4 killed, then 2 of 4, then both restarted. The devnet helper records every
 * finalized block every node reports and fails the run if one ever changes.
 */
let net: Devnet;
const status = (i: number) => net.get(i, '/status');
const live = () => net.nodes.filter((n) => net.alive(n.index)).map((n) => n.index);
/** Every live node is at or past `height`, and all agree on the block at `height`. */
async function agreeAt(height: number, ms = 30_000): Promise<string> {
  return until(
    async () => {
      const hashes = new Set<string>();
      for (const i of live()) {
        const s = await status(i);
        if (s.height < height) return undefined;
        hashes.add((await net.get(i, `/blocks/${height}`)).hash);
      }
      return hashes.size === 1 ? [...hashes][0] : undefined;
    },
    ms,
    `agreement at height ${height}`,
  );
}

/** Sends `count` transfers from dev account `from`, each to a different node, and returns their ids. */
async function transfers(from: number, count: number): Promise<Hex[]> {
  const keys = deriveKeys(fromHex(net.accounts[from].secret));
  const to = net.accounts[(from + 1) % net.accounts.length].address as Hex;
  const node = live()[0];
  const acc = await net.get(node, `/address/${keys.address}`);
  const ids: Hex[] = [];
  for (let k = 0; k < count; k++) {
    const tx = signTx(
      keys,
      { type: 'TRANSFER', to, amount: 1_000n + BigInt(k), nonce: acc.nextNonce + k, fee: String(COIN) },
      await net.get(node, '/status'),
    );
    const target = live()[k % live().length];
    const r = await net.post(target, '/tx', tx);
    expect(r, `tx ${k} to node ${target}`).toEqual({ accepted: true, id: tx.id });
    ids.push(tx.id);
  }
  return ids;
}

/** Each id is finalized on every live node, in one block, the same on all. */
async function finalizedEverywhere(ids: Hex[], ms = 40_000): Promise<void> {
  for (const id of ids) {
    await until(
      async () => {
        const recs = await Promise.all(live().map((i) => net.get(i, `/tx/${id}`)));
        return recs.every((r) => r.status === 'finalized') && new Set(recs.map((r) => r.blockHash)).size === 1;
      },
      ms,
      `tx ${id} finalized everywhere`,
    );
  }
}

beforeAll(async () => {
  net = await startDevnet(4, { slotMs: 200, idleBlockMs: 800 });
}, 90_000);
afterAll(async () => net?.stop(), 60_000);

describe('four validators on loopback (separate processes)', () => {
  it('reach one head and state root; finality advances on every node; every validator produces', async () => {
    const s0 = await status(0);
    await until(
      async () => (await Promise.all(live().map(status))).every((s) => s.finalizedHeight >= 6),
      40_000,
      'finality ≥ 6 everywhere',
    );
    const h = (await status(0)).finalizedHeight;
    await agreeAt(h);
    const roots = new Set((await Promise.all(live().map((i) => net.get(i, `/blocks/${h}`)))).map((b) => b.stateRoot));
    expect(roots.size).toBe(1);
    // Every validator produces in its slots (nodes that started late join within a few rounds).
    await until(
      async () => {
        const head = (await status(0)).height;
        const producers = new Set<string>();
        for (let k = Math.max(1, head - 15); k <= head; k++) producers.add((await net.get(0, `/blocks/${k}`)).producer);
        return producers.size === 4;
      },
      40_000,
      'all four validators producing',
    );
    expect(s0.genesisHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(new Set((await Promise.all(live().map(status))).map((s) => s.genesisHash)).size).toBe(1);
  });

  it('a transaction sent to any node is included, finalized and readable on every node', async () => {
    const ids = await transfers(0, 8);
    await finalizedEverywhere(ids);
    const keys = deriveKeys(fromHex(net.accounts[0].secret));
    const accounts = await Promise.all(live().map((i) => net.get(i, `/address/${keys.address}`)));
    expect(new Set(accounts.map((a) => a.balance)).size).toBe(1);
    expect(accounts[0].nonce).toBeGreaterThanOrEqual(8);
    const peers = await fetch(`${net.nodes[0].http}/peers`).then((r) => r.status);
    expect(peers).toBe(403); // admin only (no token configured)
    expect((await net.get(1, '/health/ready')).ready).toBe(true);
  });

  it('1 of 4 down: blocks and finality continue; 2 of 4 down: blocks continue, ' +
    'finality stops; restarted, they catch up and finality resumes', async () => {
    await net.kill(3);
    const f1 = (await status(0)).finalizedHeight;
    await until(async () => (await status(0)).finalizedHeight >= f1 + 4, 30_000, 'finality with 3 of 4');
    const ids = await transfers(1, 4);
    await finalizedEverywhere(ids);
    // The operator's view: one peer unreachable, slots of the dead validator missed.
    const metrics = await until(
      async () => {
        const text = await fetch(`${net.nodes[0].http}/metrics`).then((r) => r.text());
        return /^cairn_peers_reachable 2$/m.test(text) && text;
      },
      20_000,
      'metrics show 2 reachable peers',
    );
    expect(Number(/^cairn_missed_slots_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    // Peers are the libp2p peers linked now: the stopped one is not.
    expect(metrics).toMatch(/^cairn_peers 2$/m);

    await net.kill(2);
    // What was about to finalize does once both live validators have produced above node 2's last block.
    const h0 = (await status(0)).height;
    await until(async () => (await status(0)).height >= h0 + 4, 30_000, 'blocks with 2 of 4');
    const stuck = (await status(0)).finalizedHeight;
    const h = (await status(0)).height;
    await until(async () => (await status(0)).height >= h + 5, 30_000, 'more blocks with 2 of 4');
    expect((await status(0)).finalizedHeight).toBe(stuck);
    expect((await status(1)).finalizedHeight).toBe(stuck);
    // Accepted and included, not final while half the validators are down.
    const pending = await transfers(0, 2);
    await until(
      async () => (await net.get(0, `/tx/${pending[1]}`)).status === 'included',
      20_000,
      'inclusion with 2 of 4',
    );

    await net.restart(2);
    await net.restart(3);
    const head = (await status(0)).height;
    await until(
      async () => (await Promise.all([2, 3].map(status))).every((s) => s.height >= head),
      40_000,
      'restarted nodes catch up',
    );
    await until(async () => (await status(0)).finalizedHeight > head, 40_000, 'finality resumes');
    await finalizedEverywhere([...ids, ...pending]);
    await agreeAt((await status(0)).finalizedHeight);
  }, 300_000); // its own waits add up to ~4 min; vitest's 60 s default would cut a slow run short

  it('no finalized block changed on any node, and no accepted transaction was lost or included twice', async () => {
    expect(net.finalized.size).toBeGreaterThan(10);
    // The feed of each sender lists each of its transactions once, with nonces 0..n-1, the same on every node.
    for (const from of [0, 1]) {
      const keys = deriveKeys(fromHex(net.accounts[from].secret));
      const feeds = await Promise.all(live().map((i) => net.get(i, `/address/${keys.address}/txs?limit=100`)));
      for (const f of feeds) {
        const mine = f.txs.filter((t: { from: string }) => t.from === keys.address);
        const nonces = mine.map((t: { nonce: number }) => t.nonce).sort((a: number, b: number) => a - b);
        expect(nonces).toEqual(nonces.map((_: number, k: number) => k));
        expect(new Set(mine.map((t: { id: string }) => t.id)).size).toBe(mine.length);
      }
      expect(new Set(feeds.map((f) => JSON.stringify(f.txs.map((t: { id: string }) => t.id)))).size).toBe(1);
    }
  });
});
