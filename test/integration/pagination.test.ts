import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { assetId } from '../../src/modules/assets/common';
import { CHAIN_PAGE, FEED_PAGE, LONG_PAGE, type PageRule } from '../../src/views/routes';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

/**
 * SPEC (Limits): MAX_CHAIN_PAGE caps a page of /chain "and similar paginated endpoints". Every
 * paginated feed, on a real node over HTTP: a limit above its maximum is served capped at the
 * maximum and the page says so in `capped`, as /chain does; 0, negative or not a number stays
 * a 400.
 */
const TOKEN = 'pagination-admin-token';
const MINED = FEED_PAGE.max + 20;
let t: TestNode;
let account: Hex;
let token: Hex;
let collection: Hex;

const admin = { 'content-type': 'application/json', 'x-admin-token': TOKEN };

beforeAll(async () => {
  // --dev: POST /dev/mine makes more blocks than a feed's maximum; no idle blocks meanwhile.
  t = await startTestNode({ devAccounts: 1, dev: true, adminToken: TOKEN, idleBlockMs: 3_600_000 });
  const r = await fetch(`${t.url}/dev/mine`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ blocks: MINED }),
  });
  expect(r.status).toBe(200);
  const [dev] = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8')) as {
    address: Hex;
    secret: string;
  }[];
  account = dev.address;
  const keys = deriveKeys(fromHex(dev.secret));
  const txs = [
    signTx(
      keys,
      { type: 'TOKEN_CREATE', data: { name: 'Page Coin', symbol: 'PAGE', decimals: 0, supply: '10' }, nonce: 0 },
      t.network,
    ),
    signTx(keys, { type: 'NFT_CREATE', data: { name: 'Pages', symbol: 'PGS' }, nonce: 1 }, t.network),
  ];
  for (const tx of txs) expect((await t.post('/tx', tx)).body).toEqual({ accepted: true, id: tx.id });
  await waitUntil(
    async () =>
      (await t.get(`/tokens/${assetId(txs[0].id)}`)).status === 200 &&
      (await t.get(`/nfts/${assetId(txs[1].id)}`)).status === 200,
  );
  [token, collection] = txs.map((x) => assetId(x.id));
}, 120_000);
afterAll(async () => t?.cleanup());

/** Every paginated feed: path, the field holding its items, its page rule. */
const feeds = (): [string, string, PageRule][] => [
  ['/blocks', 'blocks', FEED_PAGE],
  ['/txs', 'txs', FEED_PAGE],
  [`/address/${account}/txs`, 'txs', FEED_PAGE],
  ['/mempool', 'txs', LONG_PAGE],
  ['/internal', 'internal', FEED_PAGE],
  ['/logs', 'logs', LONG_PAGE],
  ['/tokens', 'tokens', FEED_PAGE],
  [`/tokens/${token}/holders`, 'holders', FEED_PAGE],
  [`/tokens/${token}/transfers`, 'transfers', FEED_PAGE],
  ['/nfts', 'collections', FEED_PAGE],
  [`/nfts/${collection}`, 'items', FEED_PAGE],
  ['/names', 'names', FEED_PAGE],
  ['/governance/proposals', 'proposals', FEED_PAGE],
  ['/ai/tasks', 'tasks', FEED_PAGE],
  ['/bridge/transfers', 'transfers', FEED_PAGE],
  ['/guard', 'blocks', LONG_PAGE],
];

describe("a limit above a feed's maximum is served capped, and the page says so", () => {
  it('on every paginated feed', async () => {
    for (const [path, field, { max, maxName }] of feeds()) {
      for (const asked of [max + 1, 999_999_999]) {
        const r = await t.get(`${path}?limit=${asked}`);
        expect(r.status, `${path}?limit=${asked}: ${JSON.stringify(r.body).slice(0, 200)}`).toBe(200);
        expect(r.body.capped, path).toBe(`limit ${asked} is above ${maxName ?? max}: at most ${max} items are served`);
        expect(r.body[field].length, path).toBeLessThanOrEqual(max);
      }
      const atMax = await t.get(`${path}?limit=${max}`);
      expect(atMax.status, path).toBe(200);
      expect(atMax.body, path).not.toHaveProperty('capped');
      expect((await t.get(path)).body, path).not.toHaveProperty('capped');
    }
  });

  it('serves exactly the maximum when there is more (/blocks), and /chain says it the same way', async () => {
    expect((await t.get('/status')).body.height).toBeGreaterThan(FEED_PAGE.max);
    const blocks = (await t.get('/blocks?limit=5000')).body;
    expect(blocks.blocks).toHaveLength(FEED_PAGE.max);
    expect(blocks.capped).toBe(`limit 5000 is above MAX_LIMIT: at most ${FEED_PAGE.max} items are served`);
    const chain = (await t.get(`/chain?from=0&limit=${CHAIN_PAGE.max + 1}`)).body;
    expect(chain).toMatchObject({
      limit: CHAIN_PAGE.max,
      capped: `limit ${CHAIN_PAGE.max + 1} is above MAX_CHAIN_PAGE: at most ${CHAIN_PAGE.max} blocks are served`,
    });
  });

  it('0, negative, fractional or not a number is still a 400 {error}, as on /chain', async () => {
    for (const [path] of [...feeds(), ['/chain']]) {
      for (const bad of ['0', '-1', '1.5', 'abc', '1e3']) {
        const r = await t.get(`${path}?limit=${bad}`);
        expect(r.status, `${path}?limit=${bad}`).toBe(400);
        expect(Object.keys(r.body)).toEqual(['error']);
      }
    }
  });
});
