import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx, txId } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { defaultGuardOptions } from '../../src/web/guard';
import { fromHex, type Hex } from '../../src/primitives/hex';
import type { HybridTx } from '../../src/protocol/types';
import { startTestNode, type TestNode } from '../helpers/testNode';

/**
 * SPEC (Authentication 4, Errors): a transaction whose payload was changed after signing is
 * refused with the reason `invalid signature`, the same answer for the same body every time;
 * here one that keeps its original `id`, on a real node over HTTP whose loopback clients are
 * guarded (not exempt), so the guard's counting is seen too.
 */
const ADMIN = 'tampered-admin-token';
let t: TestNode;
let dev: { address: Hex; secret: string }[];

beforeAll(async () => {
  t = await startTestNode({ rateLimitExempt: [], adminToken: ADMIN });
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
}, 60_000);
afterAll(async () => t?.cleanup());

/** GET from another loopback source address (the guard keys clients by address). */
function getFrom(
  from: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.url}${path}`, { localAddress: from, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('POST /tx: a payload changed after signing that keeps its original id', () => {
  it(
    'answers 200 {accepted: false, reason: "invalid signature"} every time, ' +
      'and the guard counts it as an invalid submission',
    async () => {
      const keys = deriveKeys(fromHex(dev[0].secret));
      const signed = signTx(keys, { type: 'TRANSFER', to: dev[1].address, amount: '5', nonce: 0 }, t.network);
      const tampered: HybridTx = { ...signed, amount: '5000' }; // `id` is still the signed payload's
      const { id: _claimed, publicKeys: _k, signatures: _s, ...payload } = tampered;
      const verdict = { accepted: false, id: txId(payload), reason: 'invalid signature', code: 'TX_BAD_SIGNATURE' };
      expect(verdict.id).not.toBe(signed.id);

      for (let i = 0; i < 3; i++) expect(await t.post('/tx', tampered)).toEqual({ status: 200, body: verdict });
      expect((await t.get(`/tx/${signed.id}`)).status).toBe(404); // nothing was admitted under the claimed id
      // The envelope as signed is accepted; its tampered copy is still refused the same way.
      expect((await t.post('/tx', signed)).body).toEqual({ accepted: true, id: signed.id });
      expect(await t.post('/tx', tampered)).toEqual({ status: 200, body: verdict });

      // invalid_submission weighs 2 and the guard blocks at 20: the 10th refusal blocks the client.
      const { threshold, weights } = defaultGuardOptions;
      const toBlock = threshold / weights.invalid_submission;
      for (let sent = 4; sent < toBlock; sent++) expect((await t.post('/tx', tampered)).body).toEqual(verdict);
      const blocked = await t.get('/status');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toMatch(/temporarily blocked/);
      const guard = (await getFrom('127.0.0.2', '/guard', { 'x-admin-token': ADMIN })).body;
      expect(guard.blocks).toHaveLength(1);
      expect(guard.blocks[0]).toMatchObject({
        client: '127.0.0.1',
        offences: { invalid_submission: toBlock, malformed_body: 0, rate_limited: 0 },
      });
    },
  );
});
