/**
 * Rows 10, 11 and 13 of issue 23, against one real node process:
 * - extra keys inside `signatures` were accepted (and dropped on storage) while extra keys in
 *   `publicKeys` were refused: both are refused now, the same way;
 * - behind `--trusted-proxies`, a malformed X-Forwarded-For was counted against the proxy's
 *   own address (the proxy got 429 and could be guard-blocked): it is a 400 for that request
 *   and counts against nobody;
 * - `POST /dev/mine {"blocks": 1000}` ran the head minutes ahead of the clock, and production
 *   waited for it: the head now never runs more than a few slots ahead.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_MINE_AHEAD_SLOTS } from '../../src/actors/consensus/consensusActor';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { fromHex } from '../../src/primitives/hex';
import { ATTACKER, HONEST, requestFrom, spawnTarget, waitFor, type Target } from './lib';

const SLOT_MS = 200;
const PROXY = '127.0.0.77';
let t: Target;

beforeAll(async () => {
  t = await spawnTarget(['--slot-ms', String(SLOT_MS), '--idle-block-ms', '400', '--trusted-proxies', PROXY]);
});
afterAll(async () => t?.cleanup());

const status = async () => (await requestFrom(HONEST, `${t.url}/status`)).json as { height: number; timestamp: number };

describe('envelope: unknown signature keys', () => {
  it('an extra key inside signatures is refused like one inside publicKeys', async () => {
    const [dev] = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8')) as {
      secret: string;
      address: string;
    }[];
    const tx = signTx(
      deriveKeys(fromHex(dev.secret)),
      { type: 'TRANSFER', to: `0x${'22'.repeat(20)}`, amount: 1n, nonce: 0 },
      t.network,
    );
    const extraSig = await requestFrom(ATTACKER, `${t.url}/tx`, {
      body: { ...tx, signatures: { ...tx.signatures, ed25519: '0x00' } },
    });
    expect(extraSig.status).toBe(400);
    expect(extraSig.json.error).toBe('unknown field: signatures.ed25519');
    const extraKey = await requestFrom(ATTACKER, `${t.url}/tx`, {
      body: { ...tx, publicKeys: { ...tx.publicKeys, ed25519: '0x00' } },
    });
    expect(extraKey.status).toBe(400);
    expect(extraKey.json.error).toBe('unknown field: publicKeys.ed25519');
    // The envelope as signed is accepted.
    const ok = await requestFrom(HONEST, `${t.url}/tx`, { body: tx });
    expect(ok.json).toMatchObject({ accepted: true, id: tx.id });
  });
});

describe('trusted proxy: a malformed X-Forwarded-For', () => {
  it('is a 400 for that request and never counts against the proxy', async () => {
    // More than the rate limit allows one client in its window (240 per 10 s).
    for (let i = 0; i < 260; i++) {
      const r = await requestFrom(PROXY, `${t.url}/status`, {
        headers: { 'x-forwarded-for': i % 2 ? 'not-an-ip' : '203.0.113.9, ' },
      });
      expect(r.status, `request ${i}`).toBe(400);
      expect(r.json.error).toMatch(/malformed X-Forwarded-For/);
    }
    // The proxy's clients are still served, each as itself.
    const r = await requestFrom(PROXY, `${t.url}/status`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(r.status).toBe(200);
    const guard = (await requestFrom(HONEST, `${t.url}/guard`)).json;
    expect(JSON.stringify(guard)).not.toContain('127.0.0.77');
  });
});

describe('POST /dev/mine', () => {
  const mine = (blocks: number) =>
    requestFrom(HONEST, `${t.url}/dev/mine`, { body: { blocks }, headers: { 'x-admin-token': t.adminToken } });

  it('never puts the head more than a few slots ahead of the clock', async () => {
    // The head is at the clock once the node has produced on its own (the transfer above, idle blocks).
    await waitFor('a block at the clock', async () => (await status()).timestamp > Date.now() - 10 * SLOT_MS);
    const r = await mine(1_000);
    expect(r.status).toBe(409);
    expect(r.json.error).toMatch(new RegExp(`at most ${DEV_MINE_AHEAD_SLOTS} slots ahead of the clock`));
    const few = await mine(2);
    expect(few.status).toBe(200);
    const s = await status();
    expect(s.timestamp).toBeLessThanOrEqual(Date.now() + DEV_MINE_AHEAD_SLOTS * SLOT_MS);
    // Production did not stop: the node's own blocks follow.
    await waitFor('the node producing after the mined blocks', async () => (await status()).height > s.height, 20_000);
  });
});
