import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccountFile, devNetworkGenesis } from '../../src/chain/devnet';
import { signTx } from '../../src/chain/envelope';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { deriveKeys } from '../../src/crypto/keys';
import { loadOrCreatePeerKey } from '../../src/network/libp2p/peerKey';
import { PEER_KEY_FILE } from '../../src/node/p2p';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { spawnNode, type ChildNode } from '../helpers/childNode';
import { linkTo, type Link } from '../helpers/linkProxy';
import { freePort, tempDir } from '../helpers/testNode';
import { nodeGet, until } from '../helpers/devnet';

/**
 * A 2 | 2 partition of four validators (separate processes). Every node reaches every peer
 * through its own TCP link to the peer's libp2p port (`--peers` multiaddrs through the link, `--peers-only`: no
 * peer exchange, which would hand out the direct addresses), so the test can cut the links between the halves: each half
 * keeps producing in its own slots but cannot finalize (2 of 4 < ⌊2n/3⌋+1 = 3); healed,
 * every node converges on one chain by fork choice, finality resumes, the losing half's
 * transaction is re-included, and no two conflicting blocks are ever final.
 */
const N = 4;
const { spec, validators, accounts } = devNetworkGenesis(2, N);
let dir: string;
const nodes: ChildNode[] = [];
const links: Link[][] = [];
const finalized = new Map<number, string>();
let conflict: string | undefined;
let recording = true;
let recorder: Promise<void>;

const get = async (i: number, path: string): Promise<any> => (await nodeGet(`${nodes[i].url}${path}`)).json();
const halves = [
  [0, 1],
  [2, 3],
];
const setLinks = (between: 'cut' | 'heal') => {
  for (const i of halves[0])
    for (const j of halves[1])
      for (const [a, b] of [
        [i, j],
        [j, i],
      ])
        links[a][b][between]();
};

beforeAll(async () => {
  dir = await tempDir('cairn-partition-');
  await writeFile(join(dir, 'genesis.json'), JSON.stringify(spec));
  const http = await Promise.all(Array.from({ length: N }, () => freePort()));
  const p2p = await Promise.all(Array.from({ length: N }, () => freePort()));
  // Each node's peer identity made ahead, so the others can be given its multiaddr through their link.
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const d = join(dir, `node${i}`);
    await mkdir(d, { recursive: true });
    ids.push(peerIdFromPrivateKey(await loadOrCreatePeerKey(join(d, PEER_KEY_FILE))).toString());
  }
  for (let i = 0; i < N; i++) {
    links[i] = [];
    for (let j = 0; j < N; j++) if (i !== j) links[i][j] = await linkTo(p2p[j], await freePort());
  }
  for (let i = 0; i < N; i++) {
    const d = join(dir, `node${i}`);
    await writeFile(join(d, 'key.json'), JSON.stringify([devAccountFile(validators[i])]), { mode: 0o600 });
    const peers = links[i]
      .flatMap((l, j) => (j === i || !l ? [] : [`/ip4/127.0.0.1/tcp/${l.port}/p2p/${ids[j]}`]))
      .join(',');
    nodes.push(
      await spawnNode(
        d,
        [
          '--genesis',
          join(dir, 'genesis.json'),
          '--allow-dev-validator',
          '--validator-key',
          join(d, 'key.json'),
          '--peers',
          peers,
          '--peers-only',
          '--listen',
          `/ip4/127.0.0.1/tcp/${p2p[i]}`,
          '--slot-ms',
          '200',
          '--idle-block-ms',
          '800',
        ],
        http[i],
      ),
    );
  }
  // Every finalized block every node reports, at once: two different hashes at one height fail the run.
  recorder = (async () => {
    const seen = nodes.map(() => 0);
    while (recording) {
      for (let i = 0; i < N; i++) {
        try {
          const s = await get(i, '/status');
          for (let h = seen[i] + 1; h <= s.finalizedHeight; h++) {
            const hash = (await get(i, `/blocks/${h}`)).hash;
            if (finalized.has(h) && finalized.get(h) !== hash)
              conflict ??= `height ${h}: ${finalized.get(h)} vs ${hash} (node ${i})`;
            finalized.set(h, hash);
            seen[i] = h;
          }
        } catch {
          /* busy */
        }
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
}, 120_000);

afterAll(async () => {
  recording = false;
  await recorder;
  await Promise.all(nodes.map((n) => n.kill('SIGTERM')));
  for (const row of links) for (const l of row ?? []) await l?.close();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('partition 2 | 2', () => {
  it("no half finalizes alone; healed, all converge on one chain, finality resumes, both halves' transactions " +
    'end up final once', async () => {
    await until(
      async () => (await Promise.all(nodes.map((_, i) => get(i, '/status')))).every((s) => s.finalizedHeight >= 4),
      60_000,
      'finality before the partition',
    );
    setLinks('cut');
    // Blocks already on their way finalize or not: two more blocks on every node, cut off.
    const cutAt = await Promise.all(nodes.map((_, i) => get(i, '/status')));
    await until(
      async () =>
        (await Promise.all(nodes.map((_, i) => get(i, '/status')))).every((s, i) => s.height >= cutAt[i].height + 2),
      30_000,
      'two blocks on each side after the cut',
    );
    const atCut = Math.max(
      ...(await Promise.all(nodes.map((_, i) => get(i, '/status')))).map((s) => s.finalizedHeight),
    );

    // One transaction on each side, from different senders.
    const senders = accounts.map((u) => deriveKeys(fromHex(u.secret)));
    const txA = signTx(
      senders[0],
      { type: 'TRANSFER', to: senders[1].address, amount: 5n, nonce: 0, fee: String(COIN) },
      nodes[0].network,
    );
    const txB = signTx(
      senders[1],
      { type: 'TRANSFER', to: senders[0].address, amount: 7n, nonce: 0, fee: String(COIN) },
      nodes[0].network,
    );
    const post = async (i: number, tx: unknown) =>
      (
        await fetch(`${nodes[i].url}/tx`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(tx),
        })
      ).json();
    expect(await post(0, txA)).toMatchObject({ accepted: true });
    expect(await post(2, txB)).toMatchObject({ accepted: true });
    await until(
      async () =>
        (await get(1, `/tx/${txA.id}`)).status === 'included' && (await get(3, `/tx/${txB.id}`)).status === 'included',
      20_000,
      'inclusion on each side',
    );
    // Each half keeps producing, neither finalizes.
    const h = await Promise.all(nodes.map((_, i) => get(i, '/status')));
    await until(
      async () =>
        (await Promise.all(nodes.map((_, i) => get(i, '/status')))).every((s, i) => s.height >= h[i].height + 3),
      30_000,
      'three more blocks on each side',
    );
    const later = await Promise.all(nodes.map((_, i) => get(i, '/status')));
    // Finality can only reach blocks both halves share (the fork point): above it a half has
    // 2 producers, and finality needs 3 distinct ones on top.
    let fork = Math.min(later[0].height, later[2].height);
    while (fork > 0 && (await get(0, `/blocks/${fork}`)).hash !== (await get(2, `/blocks/${fork}`)).hash) fork--;
    for (let i = 0; i < N; i++) {
      expect(later[i].height).toBeGreaterThan(h[i].height);
      expect(later[i].finalizedHeight).toBeLessThanOrEqual(fork);
    }
    expect(fork).toBeLessThan(Math.min(later[0].height, later[2].height));
    expect(later[0].headHash).not.toBe(later[2].headHash);
    expect((await get(0, `/tx/${txB.id}`)).status ?? 'unknown').not.toBe('included');

    setLinks('heal');
    await until(
      async () => {
        const s = await Promise.all(nodes.map((_, i) => get(i, '/status')));
        return new Set(s.map((x) => x.headHash)).size === 1 && s[0].finalizedHeight > fork + 2 && s;
      },
      120_000,
      'convergence and finality after healing',
    ); // seconds when quiet; a loaded 2-core CI needed more than 60
    for (const tx of [txA, txB]) {
      await until(
        async () => {
          const recs = await Promise.all(nodes.map((_, i) => get(i, `/tx/${tx.id}`)));
          return recs.every((r) => r.status === 'finalized') && new Set(recs.map((r) => r.blockHash)).size === 1;
        },
        40_000,
        `${tx.id} final everywhere`,
      );
    }
    // Indexes agree with state on every node: balances, nonces and feeds.
    for (const s of senders) {
      const acc = await Promise.all(nodes.map((_, i) => get(i, `/address/${s.address}`)));
      expect(new Set(acc.map((a) => `${a.balance}/${a.nonce}`)).size).toBe(1);
      expect(acc[0].nonce).toBe(1);
      const feeds = await Promise.all(nodes.map((_, i) => get(i, `/address/${s.address}/txs`)));
      expect(new Set(feeds.map((f) => JSON.stringify(f.txs.map((t: { id: Hex }) => t.id)))).size).toBe(1);
    }
    // The recorder polls on its own (a busy node's answer is skipped): let it catch up with what the nodes report.
    await until(async () => finalized.size > fork, 30_000, 'the recorder to read every final block');
    expect(conflict).toBeUndefined();
    expect(finalized.size).toBeGreaterThan(fork);
    expect(atCut).toBeGreaterThanOrEqual(4);
  }, 330_000); // its own waits add up to ~5 min at worst; vitest's 60 s default would cut a slow run short
});
