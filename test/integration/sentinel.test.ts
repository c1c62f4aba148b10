/**
 * The security sentinel inside a running node: a supervised, permanent actor fed by the
 * chain's new heads; its alerts are served by GET /security/alerts (x-admin-token).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex } from '../../src/primitives/hex';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

const TOKEN = 'sentinel-test-token';
let t: TestNode;
let dev: { address: `0x${string}`; secret: string }[];

beforeAll(async () => {
  t = await startTestNode({ adminToken: TOKEN });
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
});
afterAll(async () => t?.cleanup());

describe('sentinel in the node', () => {
  it('runs as a permanent supervised child and raises a large-transfer alert served on /security/alerts', async () => {
    expect(t.node.supervisor.status().map((c) => c.name)).toEqual([
      'modes',
      'txLifecycle',
      'blockLifecycle',
      'mempool',
      'view:proposal',
      'view:permissionChange',
      'view:aiTask',
      'view:bridgeTransfer',
      'producer',
      'importer',
      'consensus',
      // On libp2p no gossip actor: gossipsub publishes (network/libp2p/topicGossip.ts).
      'sync',
      'sentinel',
    ]);
    const alerts = async () =>
      (await t.get('/security/alerts', { 'x-admin-token': TOKEN })).body.alerts as {
        kind: string;
        details: Record<string, unknown>;
      }[];
    expect(await alerts()).toEqual([]);

    const tx = signTx(
      deriveKeys(fromHex(dev[0].secret)),
      { type: 'TRANSFER', to: dev[1].address, amount: (1_000_000n * COIN).toString(), nonce: 0 },
      t.network,
    );
    expect((await t.post('/tx', tx)).body).toEqual({ accepted: true, id: tx.id });
    const [a] = await waitUntil(async () => {
      const list = await alerts();
      return list.length > 0 ? list : undefined;
    });
    expect(a).toMatchObject({
      kind: 'large_transfer',
      severity: 'warning',
      details: { txId: tx.id, amount: (1_000_000n * COIN).toString() },
    });
    expect(t.node.alerts.recent(10)[0]).toMatchObject({ kind: 'large_transfer' });

    // Without the token: refused.
    expect((await t.get('/security/alerts')).status).toBeGreaterThanOrEqual(401);
  });

  it('a crash of the sentinel restarts it and never stops production', async () => {
    const h0 = t.node.view.head.height;
    await expect(t.node.sentinel.ref.injectFault()).rejects.toThrow(/injected fault/);
    await waitUntil(
      async () =>
        t.node.supervisor.status().find((c) => c.name === 'sentinel')!.restarts === 1 && t.node.sentinel.ref.running,
    );
    await waitUntil(async () => t.node.view.head.height > h0 + 2);
    expect(t.node.failure).toBeNull();
  });
});
