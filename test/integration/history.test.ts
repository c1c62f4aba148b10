import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { syncState } from '../../src/node/stateSync';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { ChainStore } from '../../src/storage/chainStore';
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
  t = await startTestNode({ devAccounts: 2, idleBlockMs: 100, history: 20, snapshotInterval: 10 });
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
    // The window moves on with every block: the height an error names is at least the one just read.
    const note = 'this node keeps history from (?:height|block) (\\d+)';
    const names = (error: string | undefined, pattern: string) => {
      const m = new RegExp(`^${pattern}$`).exec(error ?? '');
      expect(m, error).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThanOrEqual(from);
    };
    const block = await t.get(`/blocks/${at}`);
    expect(block.status).toBe(404);
    names(block.body.error, `block ${at} is pruned: ${note}`);
    const tx = await t.get(`/tx/${sent.tx.id}`);
    expect(tx.status).toBe(404);
    names(tx.body.error, `transaction not known to this node \\(it may still be propagating, or be older: ${note}\\)`);
    const chain = await t.get('/chain?from=1');
    expect(chain.status).toBe(404);
    names(chain.body.error, `blocks from 1 are pruned: ${note}`);
    const feed = (await t.get(`/address/${a.address}/txs`)).body;
    expect(feed.txs.map((x: { id: string }) => x.id)).not.toContain(sent.tx.id);
    // Kept: the final blocks inside the window, genesis, and the account's balance (state is not history).
    expect((await t.get(`/blocks/${status.finalizedHeight}`)).status).toBe(200);
    expect((await t.get('/blocks/0')).status).toBe(200);
    expect(BigInt((await client.account(b.address))!.balance)).toBeGreaterThanOrEqual(3n * COIN);

    const logs = await rpc('eth_getLogs', [{ fromBlock: `0x${at.toString(16)}`, toBlock: `0x${from.toString(16)}` }]);
    expect(logs.error?.code).toBe(-32000);
    names(logs.error?.message, `history pruned: ${note} \\(asked ${at}\\)`);
    expect((await rpc('eth_getBlockByNumber', [`0x${at.toString(16)}`, false])).result).toBeNull();
  }, 120_000);

  it('collects old state nodes: state reads below stateFrom are refused, the state above stays whole', async () => {
    const treasury = '0x000000000000000000000000000000000000007e';
    // K = min(128, 20) roots kept; a collection cycle every 4 × K final blocks.
    const first = await waitUntil(
      async () => {
        const st = (await t.get('/status')).body;
        return st.stateFrom > 0 && (st.stateFrom as number);
      },
      60_000,
      100,
      'a state collection cycle',
    );
    const old = first - 1;
    expect(await t.get(`/proof/${treasury}?height=${old}`)).toMatchObject({
      status: 404,
      body: { error: `state at height ${old} is pruned: this node keeps state from height ${first}` },
    });
    expect((await rpc('eth_getBalance', [treasury, `0x${old.toString(16)}`])).error).toEqual({
      code: -32000,
      message: `state pruned: this node keeps state from block ${first} (asked ${old})`,
    });
    // A later cycle, then every kept root reads whole: proofs at each kept height and the balance at the head.
    const next = await waitUntil(
      async () => {
        const from = (await t.get('/status')).body.stateFrom as number;
        return from > first && from;
      },
      60_000,
      100,
      'another cycle',
    );
    expect(next).toBeGreaterThan(first);
    // Well inside the window (K = 20 roots; the next cycle moves it 80 blocks on): every root reads whole.
    const now = (await t.get('/status')).body;
    for (let h = now.finalizedHeight - 10; h <= now.height; h++)
      expect((await t.get(`/proof/${treasury}?height=${h}`)).status).toBe(200);
    expect((await rpc('eth_getBalance', [treasury, 'latest'])).result).toMatch(/^0x[1-9a-f]/);

    // The snapshots it serves (every 10th final block, the newest two) outlive the cycles: fetched whole, node by
    // node against their roots, by the state sync a joining node runs.
    const { snapshots } = (await t.get('/snapshots')).body as { snapshots: { height: number; hash: Hex }[] };
    expect(snapshots).toHaveLength(2);
    expect(snapshots[0].height - snapshots[1].height).toBe(10);
    expect(snapshots[0].height % 10).toBe(0);
    for (const snap of snapshots) {
      const head = await syncState({
        kv: new MemoryKv(),
        store: new ChainStore(new MemoryKv()),
        peers: [t.url],
        checkpoint: snap.hash,
        genesisHash: t.network.genesisHash,
        log: pino({ level: 'silent' }),
      });
      expect(head.height).toBe(snap.height);
    }
  }, 150_000);

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
