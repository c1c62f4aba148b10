import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN } from '../../src/primitives/amount';
import type { Hex } from '../../src/primitives/hex';
import { CairnClient, deriveKeys } from '../../src/sdk';
import { fromHex } from '../../src/primitives/hex';
import { runCliCaptured, runCliJson } from '../helpers/cliRun';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

/**
 * `cairn stake|gov|resource|vesting` against a real node from an empty store and the
 * development genesis (voting 10 blocks, timelock 5, epoch 10; a block every 100 ms here).
 */

interface Key {
  address: Hex;
  native: string;
  secret: string;
}

let t: TestNode;
let dev: Key[];
let validator: Key;
let client: CairnClient;

const cli = (argv: string[], secret?: string) => runCliJson(t.url, argv, secret);

const WAIT = ['--wait', 'included', '--poll', '50', '--timeout', '30000'];

/** A write that must succeed: accepted, included, and the transaction's result a success. */
async function ok(argv: string[], secret: string): Promise<any> {
  const r = await cli([...argv, ...WAIT], secret);
  expect(r.err, argv.join(' ')).toBe('');
  expect(r.json, argv.join(' ')).toMatchObject({
    accepted: true,
    outcome: expect.stringMatching(/^(included|finalized)$/),
  });
  expect(r.code).toBe(0);
  return r.json;
}

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 3, idleBlockMs: 100 });
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  [validator] = JSON.parse(await readFile(join(t.dataDir, 'dev-validators.json'), 'utf8'));
  client = new CairnClient(t.url);
});
afterAll(async () => t?.cleanup());

describe('staking and governance through the CLI on a real node', () => {
  it('stake add, stake vote; the validators view shows the votes', async () => {
    await ok(['stake', 'add', '--amount', String(500n * COIN)], dev[0].secret);
    await ok(['stake', 'vote', '--for', `${validator.native}=${200n * COIN}`], dev[0].secret);
    const v = await cli(['stake', 'validators']);
    expect(v.code).toBe(0);
    expect(v.json.active[0]).toMatchObject({ address: validator.address });
    expect(BigInt(v.json.active[0].votes)).toBe(200n * COIN);
    expect((await client.account(dev[0].address))?.staked).toBe(String(500n * COIN));
  });

  it('gov propose → gov vote (the validator) → EXECUTED; gov list/show/params follow it', async () => {
    const p = await ok(
      ['gov', 'propose', '--param', 'BANK_SIZE', '--value', '4', '--deposit', String(100n * COIN)],
      dev[1].secret,
    );
    const id = p.id as Hex;
    const shown = await cli(['gov', 'show', id]);
    expect(shown.json).toMatchObject({
      id,
      status: 'VOTING',
      action: { kind: 'param', param: 'BANK_SIZE', value: '4' },
    });
    await ok(['gov', 'vote', '--proposal', id, '--vote', 'yes'], validator.secret);
    expect(
      (await cli(['gov', 'list', '--status', 'VOTING'])).json.proposals.map((x: { id: string }) => x.id),
    ).toContain(id);
    const since = (await client.status()).height;
    await waitUntil(async () => (await client.proposal(id))?.status === 'EXECUTED', 30_000);
    const changed = await cli(['gov', 'list', '--since', String(since)]);
    expect(changed.json.proposals.map((x: { id: string }) => x.id)).toEqual([id]);
    const params = await cli(['gov', 'params']);
    expect(params.json.params.find((x: { name: string }) => x.name === 'BANK_SIZE')).toMatchObject({ value: '4' });
    const missing = await cli(['gov', 'show', `0x${'00'.repeat(32)}`]);
    expect(missing.code).toBe(1);
    expect((await cli(['gov', 'list', '--status', 'NOPE'])).code).toBe(2); // checked here, by the node's own reader
  });

  it('stake claim pays the reward the votes earned and prints it; nothing to claim fails', async () => {
    const r = await ok(['stake', 'claim'], dev[0].secret);
    expect(BigInt(r.reward)).toBeGreaterThan(0n);
    // An account that never voted has nothing to claim: the transaction fails with the reason.
    const none = await cli(['stake', 'claim', ...WAIT], dev[2].secret);
    expect(none.json).toMatchObject({ accepted: true, outcome: 'failed' });
    expect(JSON.stringify(none.json)).toContain('no voter reward to claim');
    expect(none.code).toBe(1);
  });

  it('gov treasury; resource delegate/undelegate; stake remove; vesting create/claim', async () => {
    const tr = await cli(['gov', 'treasury']);
    expect(BigInt(tr.json.balance)).toBeGreaterThan(0n);

    await ok(['resource', 'delegate', '--to', dev[2].native, '--amount', String(100n * COIN)], dev[0].secret);
    expect((await client.account(dev[2].address))?.delegatedIn).toBe(String(100n * COIN));
    await ok(['resource', 'undelegate', '--to', dev[2].native, '--amount', String(100n * COIN)], dev[0].secret);
    expect((await client.account(dev[2].address))?.delegatedIn ?? '0').toBe('0');

    await ok(['stake', 'remove', '--amount', String(300n * COIN)], dev[0].secret);
    expect((await client.account(dev[0].address))?.staked).toBe(String(200n * COIN));

    const created = await ok(
      ['vesting', 'create', '--to', dev[2].native, '--amount', String(10n * COIN), '--duration', '3'],
      dev[1].secret,
    );
    const h = (await client.tx(created.id))!.blockHeight!;
    await waitUntil(async () => (await client.status()).height >= h + 3);
    const before = BigInt((await client.account(dev[2].address))!.balance);
    await ok(['vesting', 'claim', '--id', created.id], dev[2].secret);
    const after = BigInt((await client.account(dev[2].address))!.balance);
    expect(after - before).toBeGreaterThan(9n * COIN); // 10 coins less its fee
  });

  it('the SDK: sendTx builds, signs, submits and waits; the reads answer typed views', async () => {
    const keys = deriveKeys(fromHex(dev[1].secret));
    const r = await client.sendTx(
      keys,
      { type: 'STAKE', amount: 50n * COIN },
      { wait: 'included', pollMs: 50, timeoutMs: 30_000 },
    );
    expect(r.verdict).toMatchObject({ accepted: true });
    expect(r.wait?.outcome).toMatch(/^(included|finalized)$/);
    expect(r.wait?.record?.result).toMatchObject({ status: 'success' });
    expect((await client.account(dev[1].address))?.staked).toBe(String(50n * COIN));
    expect((await client.validators()).active.map((v) => v.address)).toContain(validator.address);
    expect((await client.governance()).params.length).toBeGreaterThan(10);
    expect((await client.proposals({ status: 'EXECUTED' })).proposals).toHaveLength(1);
    expect(await client.proposal(`0x${'00'.repeat(32)}`)).toBeNull();
    expect(BigInt((await client.treasury()).balance)).toBeGreaterThan(0n);
  });

  it(
    'META_TX through cairn tx sign/send: the relayer pays, ' + 'the user and the recipient see it in their feeds',
    async () => {
      const user = dev[2];
      const nonce = (await client.account(user.address))!.nextNonce;
      const signed = await runCliCaptured(
        [
          'tx',
          'sign',
          '--type',
          'TRANSFER',
          '--to',
          dev[0].native,
          '--amount',
          String(3n * COIN),
          '--fee',
          '0',
          '--nonce',
          String(nonce),
        ],
        { CAIRN_SECRET: user.secret, CAIRN_NODE: t.url },
      );
      expect(signed.code).toBe(0);
      const before = BigInt((await client.account(user.address))!.balance);
      const relayed = await ok(
        ['tx', 'send', '--type', 'META_TX', '--data', JSON.stringify({ tx: JSON.parse(signed.out) })],
        dev[1].secret,
      );
      expect(BigInt((await client.account(user.address))!.balance)).toBe(before - 3n * COIN); // the amount, no fee
      expect((await client.account(user.address))!.nextNonce).toBe(nonce + 1);
      for (const who of [user, dev[0], dev[1]]) {
        const feed = (await (await fetch(`${t.url}/address/${who.address}/txs`)).json()) as { txs: { id: string }[] };
        expect(
          feed.txs.map((x: { id: string }) => x.id),
          who.address,
        ).toContain(relayed.id);
      }
    },
  );
});
