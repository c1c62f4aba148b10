import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex } from '../../src/primitives/hex';
import { CairnClient, type TxInput } from '../../src/sdk';
import { startTestNode, type TestNode } from '../helpers/testNode';

/**
 * The development controls of a --dev node (real node, real RocksDB): mine blocks now,
 * snapshot, revert — the snapshot reusable any number of times; admin token required;
 * refused on a node without --dev.
 */
const TOKEN = 'dev-secret-token';
let t: TestNode;
let client: CairnClient;
let accounts: HybridKeys[];
const dev = (path: string, body: unknown = {}, token = TOKEN) =>
  fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-admin-token': token } : {}) },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const balance = async (a: string) => BigInt((await client.account(a))?.balance ?? 0);

beforeAll(async () => {
  // Empty blocks every hour: only /dev/mine and pending transactions make blocks.
  t = await startTestNode({ devAccounts: 3, dev: true, adminToken: TOKEN, idleBlockMs: 3_600_000 });
  client = new CairnClient(t.url);
  accounts = (JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[]).map(
    (a) => deriveKeys(fromHex(a.secret)),
  );
}, 60_000);
afterAll(async () => t?.cleanup());

describe('--dev controls', () => {
  it('mines N blocks now; a snapshot can be reverted to again and again, giving the same state each time', async () => {
    const h0 = (await client.status()).height;
    const mined = await dev('/dev/mine', { blocks: 5 });
    expect(mined.status).toBe(200);
    expect(mined.body.to - mined.body.from).toBe(4);
    expect(mined.body.from).toBeGreaterThan(h0);
    expect((await client.status()).height).toBeGreaterThanOrEqual(mined.body.to);

    const snap = await dev('/dev/snapshot');
    expect(snap.status).toBe(200);
    const { id, height, stateRoot } = snap.body;
    const [a, b] = accounts;
    const before = await balance(b.address);
    for (let round = 0; round < 3; round++) {
      const sent = await client.sendTx(a, { type: 'TRANSFER', to: b.address, amount: 7n * COIN } as TxInput, {
        wait: 'included',
        timeoutMs: 20_000,
        pollMs: 50,
      });
      await dev('/dev/mine', { blocks: 3 });
      expect(await balance(b.address)).toBe(before + 7n * COIN);
      // Read while final: the node keeps final records, and must forget them when a revert undoes them.
      expect((await client.tx(sent.tx.id))?.status).toBe('finalized');
      const back = await dev('/dev/revert', { id });
      expect(back.status).toBe(200);
      expect(back.body.head).toMatchObject({ height, stateRoot });
      expect(back.body.undone).toBeGreaterThanOrEqual(4);
      expect((await client.status()).height).toBe(height);
      expect(await balance(b.address)).toBe(before);
      expect((await client.account(a.address))?.nonce ?? 0).toBe(0); // the transfer is gone, not back in the pool
      expect((await client.tx(sent.tx.id))?.status ?? 'unknown').not.toBe('finalized');
    }
    // A later snapshot whose block was undone and replaced is refused, not silently wrong.
    await dev('/dev/mine', { blocks: 2 });
    const later = (await dev('/dev/snapshot')).body;
    await dev('/dev/revert', { id });
    // Mined blocks take the slots right after the head: the replacement differs by a transfer.
    await client.sendTx(accounts[0], { type: 'TRANSFER', to: accounts[1].address, amount: COIN } as TxInput, {
      wait: 'included',
      timeoutMs: 20_000,
      pollMs: 50,
    });
    await dev('/dev/mine', { blocks: 3 });
    const gone = await dev('/dev/revert', { id: later.id });
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatch(new RegExp(`snapshot ${later.id} is gone`));
    expect((await dev('/dev/revert', { id })).status).toBe(200);
  }, 60_000);

  it('needs the admin token; bad input is a 400; an unknown snapshot a 404', async () => {
    expect((await dev('/dev/mine', { blocks: 1 }, '')).status).toBe(401);
    expect((await dev('/dev/mine', { blocks: 1 }, 'wrong')).status).toBe(403);
    expect((await dev('/dev/mine', { blocks: 0 })).status).toBe(400);
    expect((await dev('/dev/mine', { blocks: 1001 })).status).toBe(400);
    expect((await dev('/dev/revert', { id: 'x' })).status).toBe(400);
    expect((await dev('/dev/revert', { id: 999 })).status).toBe(404);
  });
});

describe('a node without --dev', () => {
  it(
    'has no development controls (404), ' + 'and --dev is refused off the development network or without a token',
    async () => {
      const plain = await startTestNode({ adminToken: TOKEN });
      try {
        const r = await fetch(`${plain.url}/dev/mine`, {
          method: 'POST',
          headers: { 'x-admin-token': TOKEN },
          body: '{}',
        });
        expect(r.status).toBe(404);
      } finally {
        await plain.cleanup();
      }
      const { loadConfig } = await import('../../src/config/config');
      expect(() => loadConfig(['--dev'], {})).toThrow(/--dev needs an admin token/);
      expect(() => loadConfig(['--dev', '--genesis', 'g.json'], { ADMIN_TOKEN: 'x'.repeat(32) })).toThrow(
        /development network only/,
      );
    },
  );
});

describe('examples/fuzzer.ts against a --dev node', () => {
  it('runs random transfers and blocks from one reusable snapshot; the invariants hold', async () => {
    const { fuzz } = await import('../../examples/fuzzer');
    const node = await startTestNode({ devAccounts: 4, dev: true, adminToken: TOKEN, idleBlockMs: 3_600_000 });
    try {
      const keys = (
        JSON.parse(await readFile(join(node.dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[]
      ).map((a) => deriveKeys(fromHex(a.secret)));
      const h0 = (await new CairnClient(node.url).status()).height;
      const r = await fuzz({ node: node.url, adminToken: TOKEN, keys, runs: 8, seed: 42 });
      expect(r.runs).toBe(8);
      expect(r.txs).toBeGreaterThan(0);
      // Back at the snapshot: the runs left nothing behind.
      expect((await new CairnClient(node.url).status()).height).toBe(h0);
    } finally {
      await node.cleanup();
    }
  }, 120_000);
});
