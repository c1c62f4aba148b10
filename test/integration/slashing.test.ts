import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHeader } from '../../src/chain/block';
import { deriveKeys } from '../../src/crypto/keys';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { runCliCaptured } from '../helpers/cliRun';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

/**
 * A double sign from alert to slash on a real node: a second block at a height the node
 * already has, signed with the validator's key, arrives by POST /blocks; the node refuses it
 * (it forks below the final height) but its sentinel raises `double_sign` with both headers,
 * and the node stops signing (its key is in use elsewhere). The operator restarts it; the
 * alert, saved as it is, is the evidence `cairn stake slash` sends; the validator loses
 * SLASH_DOUBLE_SIGN_BPS of its stake to the treasury and is jailed for good.
 */
let t: TestNode;
interface Key {
  address: Hex;
  native: string;
  secret: string;
}

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 2, idleBlockMs: 100, adminToken: 'op-token' });
});
afterAll(async () => t?.cleanup());

describe('double sign: sentinel alert → SLASH_DOUBLE_SIGN', () => {
  it('the alert is the evidence; the validator is slashed once and jailed for good', async () => {
    const [validator]: Key[] = JSON.parse(await readFile(join(t.dataDir, 'dev-validators.json'), 'utf8'));
    const [reporter]: Key[] = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
    await waitUntil(async () => t.node.view.head.finalizedHeight >= 3);
    const original = (await t.get('/blocks/2')).body;
    const keys = deriveKeys(fromHex(validator.secret));
    const {
      hash: _h,
      signatures: _s,
      ...fields
    } = await (async () => (await t.get('/chain?from=2&limit=1')).body.blocks[0].header)();
    const second = signHeader(keys, { ...fields, timestamp: fields.timestamp + 1 });
    expect(second.hash).not.toBe(original.hash);
    const r = await t.post('/blocks', { header: second, txs: [], results: [] });
    expect(r.status).toBe(400); // below the final height: refused, nothing changes
    expect(t.node.view.head.height).toBeGreaterThan(2);

    const alert = await waitUntil(async () => {
      const a = (await t.get('/security/alerts', { 'x-admin-token': 'op-token' })).body.alerts.find(
        (x: { kind: string }) => x.kind === 'double_sign',
      );
      return a;
    }, 10_000);
    expect(alert.details).toMatchObject({ producer: validator.address, height: 2 });
    const file = join(t.dataDir, 'double-sign-alert.json');
    await writeFile(file, JSON.stringify(alert));
    // The node saw its own key sign a block it did not make: it stops signing until restarted,
    // and its modes say so (GET /health/ready: signing halted at the height it saw).
    const modes = await waitUntil(async () => {
      const m = (await t.get('/health/ready')).body.modes;
      return m?.signing === 'halted' ? m : undefined;
    }, 10_000);
    expect(modes).toMatchObject({ node: 'ready', signing: 'halted', haltedAt: 2 });
    const stoppedAt = t.node.view.head.height;
    await new Promise((r) => setTimeout(r, 500));
    expect(t.node.view.head.height).toBeLessThanOrEqual(stoppedAt + 1);
    await t.stop();
    t = await startTestNode({ dataDir: t.dataDir, devAccounts: 2, idleBlockMs: 100, adminToken: 'op-token' });

    const stakeBefore = BigInt((await t.get(`/address/${validator.address}`)).body.staked);
    const treasuryBefore = BigInt((await t.get('/treasury')).body.balance);
    const cli = (argv: string[]) => runCliCaptured([...argv, '--node', t.url], { CAIRN_SECRET: reporter.secret });
    const sent = await cli([
      'stake',
      'slash',
      '--evidence',
      file,
      '--wait',
      'included',
      '--poll',
      '50',
      '--timeout',
      '30000',
    ]);
    expect(sent.err).toBe('');
    const out = JSON.parse(sent.out);
    expect(out).toMatchObject({ accepted: true, outcome: expect.stringMatching(/^(included|finalized)$/) });

    const penalty = (stakeBefore * 500n) / 10_000n; // SLASH_DOUBLE_SIGN_BPS default 500
    expect(BigInt((await t.get(`/address/${validator.address}`)).body.staked)).toBe(stakeBefore - penalty);
    expect(BigInt((await t.get('/treasury')).body.balance)).toBeGreaterThanOrEqual(treasuryBefore + penalty);
    const v = (await t.get('/validators')).body;
    const me = [...v.active, ...v.bank, ...v.candidates].find((x: { address: Hex }) => x.address === validator.address);
    expect(me.jailed).toMatchObject({ reason: 'double-sign' });
    // The only validator keeps producing (a set of one is never emptied), and the chain goes on.
    const h = t.node.view.head.height;
    await waitUntil(async () => t.node.view.head.height > h + 2);

    // One offence is slashed once.
    const again = await cli([
      'stake',
      'slash',
      '--evidence',
      file,
      '--wait',
      'included',
      '--poll',
      '50',
      '--timeout',
      '30000',
    ]);
    expect(JSON.parse(again.out)).toMatchObject({
      outcome: 'failed',
      reason: 'this double sign (producer and height) was already slashed',
    });
  }, 60_000);
});
