import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../src/crypto/keys';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { CairnClient, NAME_REGISTRATION_COST } from '../../src/sdk';
import { runCliJson } from '../helpers/cliRun';
import { startTestNode, type TestNode } from '../helpers/testNode';

/** The asset CLI and SDK against a real node: build, sign, send, wait, read back. */

interface DevAccount {
  address: Hex;
  native: string;
  secret: string;
}

let t: TestNode;
let dev: DevAccount[];
let client: CairnClient;

const cli = (argv: string[], secret?: string) => runCliJson(t.url, argv, secret);

const WAIT = ['--wait', 'included', '--poll', '50', '--timeout', '30000'];
/** With one validator a block is final as soon as it is in: a wait for inclusion may see either. */
const INCLUDED = expect.stringMatching(/^(included|finalized)$/);

beforeAll(async () => {
  t = await startTestNode();
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  client = new CairnClient(t.url);
});
afterAll(async () => t?.cleanup());

describe('asset transactions through the CLI and the SDK on a real node', () => {
  let token: Hex;

  it('cairn token create → included; the printed id is the token the node serves', async () => {
    const r = await cli(
      [
        'token',
        'create',
        '--name',
        'Cairn Dollar',
        '--symbol',
        'CUSD',
        '--decimals',
        '6',
        '--supply',
        '1000000000',
        ...WAIT,
      ],
      dev[0].secret,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ accepted: true, outcome: INCLUDED });
    token = r.json.token;
    expect(token).toMatch(/^0x[0-9a-f]{40}$/);
    const info = await cli(['token', 'info', 'cusd']);
    expect(info.code).toBe(0);
    expect(info.json).toMatchObject({
      id: token,
      symbol: 'CUSD',
      decimals: 6,
      supply: '1000000000',
      owner: dev[0].address,
    });
  });

  it('cairn token transfer by symbol → included; holders and transfers show it', async () => {
    const r = await cli(
      ['token', 'transfer', '--token', 'CUSD', '--to', dev[1].native, '--amount', '250', ...WAIT],
      dev[0].secret,
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ accepted: true, outcome: INCLUDED });

    const holders = await client.tokenHolders(token);
    const balances = Object.fromEntries(holders.holders.map((h) => [h.address, h.balance]));
    expect(balances).toMatchObject({ [dev[0].address]: '999999750', [dev[1].address]: '250' });
    const transfers = await cli(['token', 'transfers', token]);
    expect(transfers.code).toBe(0);
    expect(
      transfers.json.transfers.some(
        (x: { txId: string; amount: string }) => x.txId === r.json.id && x.amount === '250',
      ),
    ).toBe(true);
  });

  it('SDK sendAsset TOKEN_TRANSFER and TOKEN_BURN → included', async () => {
    const keys = deriveKeys(fromHex(dev[1].secret));
    const sent = await client.sendAsset(
      keys,
      { type: 'TOKEN_TRANSFER', token, to: dev[2].address, amount: 50n },
      { wait: 'included', pollMs: 50 },
    );
    expect(sent.verdict.accepted).toBe(true);
    expect(sent.wait?.outcome).toEqual(INCLUDED);
    const burned = await client.sendAsset(
      keys,
      { type: 'TOKEN_BURN', token, amount: '100' },
      { wait: 'included', pollMs: 50 },
    );
    expect(burned.wait?.outcome).toEqual(INCLUDED);
    expect((await client.token(token))?.supply).toBe('999999900');
  });

  let collection: Hex;

  it('SDK sendAsset NFT_CREATE returns the collection id; cairn nft mint prints the item', async () => {
    const keys = deriveKeys(fromHex(dev[0].secret));
    const created = await client.sendAsset(
      keys,
      { type: 'NFT_CREATE', name: 'Stones', symbol: 'STONE' },
      { wait: 'included', pollMs: 50 },
    );
    expect(created.wait?.outcome).toEqual(INCLUDED);
    collection = created.assetId!;
    expect(collection).toMatch(/^0x[0-9a-f]{40}$/);
    expect(await client.nftCollection(collection)).toMatchObject({
      id: collection,
      symbol: 'STONE',
      owner: dev[0].address,
    });

    const m = await cli(
      ['nft', 'mint', '--collection', 'STONE', '--to', dev[1].native, '--uri', 'ipfs://stone-1', ...WAIT],
      dev[0].secret,
    );
    expect(m.err).toBe('');
    expect(m.code).toBe(0);
    expect(m.json).toMatchObject({ accepted: true, outcome: INCLUDED, item: 1 });
    const item = await cli(['nft', 'info', `${collection}:1`]);
    expect(item.json).toMatchObject({ collection, item: 1, owner: dev[1].address, uri: 'ipfs://stone-1' });
  });

  it('cairn name register → included, costs the registration fee, and resolves', async () => {
    const before = BigInt((await client.account(dev[3].address))!.balance);
    const r = await cli(['name', 'register', 'alice', '--target', dev[4].native, ...WAIT], dev[3].secret);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ accepted: true, outcome: INCLUDED });
    const after = BigInt((await client.account(dev[3].address))!.balance);
    expect(before - after).toBeGreaterThanOrEqual(NAME_REGISTRATION_COST);

    const resolved = await cli(['name', 'resolve', 'alice']);
    expect(resolved.code).toBe(0);
    expect(resolved.json).toMatchObject({ name: 'alice', address: dev[4].address, owner: dev[3].address });
    expect((await client.names()).names.map((n) => n.name)).toContain('alice');
    expect((await cli(['name', 'resolve', 'nobody'])).code).toBe(1);
  });

  it('a transaction that fails on execution exits 1 with the reason', async () => {
    // dev[5] holds no CUSD: admission accepts the shape, execution fails.
    const r = await cli(
      ['token', 'transfer', '--token', token, '--to', dev[0].address, '--amount', '1', ...WAIT],
      dev[5].secret,
    );
    expect(r.json?.accepted).toBe(true);
    expect(r.json.outcome).toBe('failed');
    expect(typeof r.json.reason).toBe('string');
    expect(r.code).toBe(1);
  });
});
