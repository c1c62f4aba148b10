import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccountFile, devNetworkGenesis } from '../../src/chain/devnet';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import type { PeerInfo } from '../../src/protocol/peers';
import { spawnNode, type ChildNode } from '../helpers/childNode';
import { nodeGet, until } from '../helpers/devnet';
import { tempDir } from '../helpers/testNode';

/**
 * Three validators in their own processes on libp2p (issue 50), each told of one peer at most: node 1 by node 0's
 * multiaddr, node 2 by node 0's HTTP URL (resolved through GET /p2p). Nodes 1 and 2 find each other by peer
 * exchange, all three finalize together (3 of 3 are needed), a transaction sent to node 2 is final on node 1, and
 * GET /peers lists each libp2p peer with its links, gossip score and topics.
 */
const N = 3;
const TOKEN = 'a'.repeat(40);
const { spec, validators, accounts } = devNetworkGenesis(2, N);
let dir: string;
const nodes: ChildNode[] = [];
const get = async (i: number, path: string, headers?: Record<string, string>): Promise<any> =>
  headers
    ? (await fetch(`${nodes[i].url}${path}`, { headers, signal: AbortSignal.timeout(5_000) })).json()
    : (await nodeGet(`${nodes[i].url}${path}`)).json();

async function start(i: number, peers: string[]): Promise<ChildNode> {
  const d = join(dir, `node${i}`);
  await mkdir(d, { recursive: true });
  await writeFile(join(d, 'key.json'), JSON.stringify([devAccountFile(validators[i])]), { mode: 0o600 });
  await writeFile(join(d, 'admin-token'), TOKEN, { mode: 0o600 });
  return spawnNode(d, [
    '--genesis',
    join(dir, 'genesis.json'),
    '--allow-dev-validator',
    '--validator-key',
    join(d, 'key.json'),
    '--admin-token-file',
    join(d, 'admin-token'),
    ...(peers.length > 0 ? ['--peers', peers.join(',')] : []),
    '--slot-ms',
    '200',
    '--idle-block-ms',
    '800',
  ]);
}

beforeAll(async () => {
  dir = await tempDir('cairn-libp2p-');
  await writeFile(join(dir, 'genesis.json'), JSON.stringify(spec));
  nodes.push(await start(0, []));
  const p2p0 = await get(0, '/p2p');
  nodes.push(await start(1, [p2p0.addresses[0]]));
  nodes.push(await start(2, [nodes[0].url]));
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.kill('SIGTERM')));
  await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('validators on libp2p (separate processes)', () => {
  it('GET /p2p gives the peer id and its listen addresses, each ending in /p2p/<id>', async () => {
    const p = await get(0, '/p2p');
    expect(p.peerId).toMatch(/^12D3KooW/);
    expect(p.addresses.length).toBeGreaterThan(0);
    for (const a of p.addresses) expect(a).toMatch(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${p.peerId}$`));
  });

  it('nodes given one peer find the rest by peer exchange, and finalize together', async () => {
    const ids = await Promise.all(nodes.map(async (_, i) => (await get(i, '/p2p')).peerId as string));
    await until(
      async () => {
        for (let i = 0; i < N; i++) {
          const { peers } = (await get(i, '/peers', { 'x-admin-token': TOKEN })) as { peers: PeerInfo[] };
          const linked = new Set(peers.map((p) => p.libp2p?.peerId));
          if (!ids.every((id, j) => j === i || linked.has(id))) return false;
        }
        return true;
      },
      30_000,
      'every node linked to every other',
    );
    const { peers } = (await get(1, '/peers', { 'x-admin-token': TOKEN })) as { peers: PeerInfo[] };
    for (const p of peers) {
      expect(p.url).toBe(`/p2p/${p.libp2p!.peerId}`);
      expect(p.libp2p!.topics.map((t) => t.split('/').slice(3).join('/')).sort()).toEqual(['blocks/1', 'txs/1']);
      expect(p.libp2p!.gossipScore).toBeGreaterThanOrEqual(0);
      expect(p.libp2p!.addrs.length).toBeGreaterThan(0);
    }
    // 3 of 3 validators must sign on: finality moves only if every pair hears the others' blocks.
    await until(
      async () => (await Promise.all(nodes.map((_, i) => get(i, '/status')))).every((s) => s.finalizedHeight >= 4),
      60_000,
      'finality ≥ 4 on every node',
    );
  });

  it('a transaction sent to one node is gossiped, included and final on the others', async () => {
    const keys = deriveKeys(fromHex(accounts[0].secret));
    const s = await get(2, '/status');
    const acc = await get(2, `/address/${keys.address}`);
    const tx = signTx(
      keys,
      { type: 'TRANSFER', to: accounts[1].address as Hex, amount: 5_000n, nonce: acc.nextNonce, fee: String(COIN) },
      s,
    );
    const r = await fetch(`${nodes[2].url}/tx`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(tx),
    });
    expect(await r.json()).toEqual({ accepted: true, id: tx.id });
    await until(
      async () => (await Promise.all([0, 1].map((i) => get(i, `/tx/${tx.id}`)))).every((t) => t.status === 'finalized'),
      40_000,
      'the transaction final on nodes 0 and 1',
    );
  });
});
