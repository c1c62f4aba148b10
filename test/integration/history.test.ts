import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex } from '../../src/primitives/hex';
import { CairnClient, type TxInput } from '../../src/sdk';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

/**
 * A node with a bounded history (--history 20, the development network's longest protocol
 * window): blocks more than 20 below the finalized height lose their bodies, locations, feeds
 * and logs; reads of them answer 404 (and JSON-RPC -32000) saying from which height the node
 * keeps history; /status shows historyFrom, which survives a restart.
 */
let t: TestNode;
let client: CairnClient;

beforeAll(async () => {
  // Idle blocks every slot: the window moves on by itself.
  t = await startTestNode({ devAccounts: 2, idleBlockMs: 100, history: 20 });
  client = new CairnClient(t.url);
}, 60_000);
afterAll(async () => t?.cleanup());

const rpc = async (method: string, params: unknown[]) => {
  const r = await fetch(`http://127.0.0.1:${t.node.config.rpcPort}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as { result?: unknown; error?: { code: number; message: string } };
};

describe('--history N', () => {
  it('prunes the history of blocks past the window, and says so on every read of it', async () => {
    const [a, b] = (
      JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[]
    ).map((x) => deriveKeys(fromHex(x.secret)));
    const sent = await client.sendTx(a, { type: 'TRANSFER', to: b.address, amount: 3n * COIN } as TxInput, {
      wait: 'included',
      timeoutMs: 20_000,
      pollMs: 50,
    });
    const at = (await client.tx(sent.tx.id))!.blockHeight!;
    expect((await t.get(`/blocks/${at}`)).status).toBe(200);
    expect((await t.get('/status')).body.historyFrom).toBe(0);

    await waitUntil(async () => (await t.get('/status')).body.historyFrom > at, 60_000, 100, 'history pruned past it');
    const status = (await t.get('/status')).body;
    const from: number = status.historyFrom;
    // The window: 20 final blocks are kept below the finalized height.
    expect(status.finalizedHeight - from + 1).toBeGreaterThanOrEqual(20);
    const note = `this node keeps history from height ${from}`;

    expect(await t.get(`/blocks/${at}`)).toMatchObject({
      status: 404,
      body: { error: `block ${at} is pruned: ${note}` },
    });
    expect((await t.get(`/tx/${sent.tx.id}`)).body.error).toContain(note);
    expect(await t.get('/chain?from=1')).toMatchObject({
      status: 404,
      body: { error: `blocks from 1 are pruned: ${note}` },
    });
    const feed = (await t.get(`/address/${a.address}/txs`)).body;
    expect(feed.txs.map((x: { id: string }) => x.id)).not.toContain(sent.tx.id);
    // Kept: the block at the window's edge, genesis, and the account's balance (state is not history).
    expect((await t.get(`/blocks/${from}`)).status).toBe(200);
    expect((await t.get('/blocks/0')).status).toBe(200);
    expect(BigInt((await client.account(b.address))!.balance)).toBeGreaterThanOrEqual(3n * COIN);

    const logs = await rpc('eth_getLogs', [{ fromBlock: `0x${at.toString(16)}`, toBlock: `0x${from.toString(16)}` }]);
    expect(logs.error).toEqual({
      code: -32000,
      message: `history pruned: this node keeps history from block ${from} (asked ${at})`,
    });
    expect((await rpc('eth_getBlockByNumber', [`0x${at.toString(16)}`, false])).result).toBeNull();
  }, 120_000);

  it('keeps its window across a restart', async () => {
    const before = (await t.get('/status')).body.historyFrom as number;
    expect(before).toBeGreaterThan(0);
    await t.stop();
    const again = await startTestNode({ dataDir: t.dataDir, devAccounts: 2, idleBlockMs: 100, history: 20 });
    try {
      expect((await again.get('/status')).body.historyFrom).toBeGreaterThanOrEqual(before);
      expect((await again.get(`/blocks/${before - 1}`)).status).toBe(404);
    } finally {
      await again.stop();
    }
  }, 60_000);
});
