import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTx } from '../../src/chain/envelope';
import { NAME_REGISTRATION_COST } from '../../src/protocol/params';
import type { TxType } from '../../src/protocol/types';
import { toNative } from '../../src/crypto/address';
import { deriveKeys, generateSecret, type HybridKeys } from '../../src/crypto/keys';
import { assetId } from '../../src/modules/assets/common';
import { u32be, u64be } from '../../src/primitives/height';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { encodeCursor } from '../../src/storage/assetIndex';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';

interface DevAccount {
  address: Hex;
  native: string;
  secret: string;
}

let t: TestNode;
let dev: DevAccount[];
let keys: HybridKeys[];
const nonces = new Map<string, number>();

async function nextNonce(k: HybridKeys): Promise<number> {
  if (!nonces.has(k.address)) {
    const r = await t.get(`/address/${k.address}`);
    nonces.set(k.address, r.status === 404 ? 0 : r.body.nextNonce);
  }
  const n = nonces.get(k.address)!;
  nonces.set(k.address, n + 1);
  return n;
}

/** Signs a transaction of dev account `i` with its next nonce. */
async function sign(i: number, type: TxType, to: string | null, data: unknown, amount = '0') {
  return signTx(keys[i], { type, to, amount, data, nonce: await nextNonce(keys[i]) }, t.network);
}

/** Submits a signed transaction; resolves with its id once accepted. */
async function post(tx: Awaited<ReturnType<typeof sign>>, type: TxType, data: unknown): Promise<Hex> {
  const r = await t.post('/tx', tx);
  expect(r.body, `${type} ${JSON.stringify(data)}`).toEqual({ accepted: true, id: tx.id });
  return tx.id;
}

/** Signs and submits a transaction of dev account `i`; resolves with its id once accepted. */
async function submit(i: number, type: TxType, to: string | null, data: unknown, amount = '0'): Promise<Hex> {
  return post(await sign(i, type, to, data, amount), type, data);
}

/** Waits until every transaction is in a block, and checks that each succeeded. */
async function included(ids: Hex[]): Promise<void> {
  for (const id of ids) {
    const rec = await waitUntil(async () => {
      const r = await t.get(`/tx/${id}`);
      return r.status === 200 && (r.body.status === 'included' || r.body.status === 'finalized') ? r.body : undefined;
    });
    expect(rec.result, `tx ${id} (${rec.type})`).toMatchObject({ status: 'success' });
  }
}

/**
 * Every page of a feed, following nextBefore. On a feed paged by cursor (holders, items) a
 * page holds at most `limit`; on a feed ordered by height (`height`: the field of its items
 * that holds it) a page ends with a whole block, nextBefore is its last item's height and the
 * next page holds only what is below it.
 */
async function pages(path: string, field: string, limit: number, height?: string): Promise<any[][]> {
  const out: any[][] = [];
  let before: string | number | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await t.get(
      `${path}${sep}limit=${limit}${before !== null ? `&before=${encodeURIComponent(before)}` : ''}`,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const items = r.body[field];
    if (height) {
      if (before !== null) for (const x of items) expect(x[height]).toBeLessThan(before as number);
      if (r.body.nextBefore !== null) {
        expect(items.length).toBeGreaterThanOrEqual(limit);
        expect(r.body.nextBefore).toBe(items.at(-1)[height]);
      }
    } else {
      expect(items.length).toBeLessThanOrEqual(limit);
      if (r.body.nextBefore !== null) expect(typeof r.body.nextBefore).toBe('string');
    }
    out.push(items);
    before = r.body.nextBefore;
    if (before === null) return out;
  }
  throw new Error('feed did not end');
}

const A = (i: number) => dev[i].address;
let gold: Hex;
let gem: Hex;
let art: Hex;
let pix: Hex;
const otherTokens: Hex[] = [];
const outsider = deriveKeys(generateSecret()).address; // receives tokens, never native coins

beforeAll(async () => {
  t = await startTestNode();
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  keys = dev.map((d) => deriveKeys(fromHex(d.secret)));

  // Round 1: tokens, collections and names come into existence.
  const goldTx = await submit(0, 'TOKEN_CREATE', null, {
    name: 'Gold Coin',
    symbol: 'GOLD',
    decimals: 6,
    supply: '1000000',
    mintable: true,
  });
  const gemTx = await submit(1, 'TOKEN_CREATE', null, { name: 'Shiny Gem', symbol: 'GEM', decimals: 0, supply: '500' });
  const more: Hex[] = [];
  for (const [i, sym] of (['SILV', 'COPR', 'TIN'] as const).entries()) {
    more.push(
      await submit(2 + i, 'TOKEN_CREATE', null, { name: `${sym} token`, symbol: sym, decimals: 2, supply: '100' }),
    );
  }
  const artTx = await submit(3, 'NFT_CREATE', null, { name: 'Art Works', symbol: 'ART' });
  const pixTx = await submit(4, 'NFT_CREATE', null, { name: 'Pixels', symbol: 'PIX' });
  const cost = NAME_REGISTRATION_COST.toString();
  const names = [
    await submit(5, 'NAME_REGISTER', null, { name: 'alice' }, cost),
    await submit(6, 'NAME_REGISTER', A(7), { name: 'bob' }, cost),
    await submit(7, 'NAME_REGISTER', null, { name: 'carol' }, cost),
    await submit(8, 'NAME_REGISTER', null, { name: 'dave-1' }, cost),
  ];
  await included([goldTx, gemTx, ...more, artTx, pixTx, ...names]);
  gold = assetId(goldTx);
  gem = assetId(gemTx);
  art = assetId(artTx);
  pix = assetId(pixTx);
  otherTokens.push(...more.map(assetId));

  // Round 2: movements. GOLD's are signed first and sent together, so that blocks hold several of them (even on a
  // busy machine, where one at a time they may each get a block of their own): the feeds' in-block paging needs it.
  const goldMoves: [TxType, string | null, unknown][] = [
    ...[1, 2, 3, 4, 5, 6].map((i): [TxType, string, unknown] => [
      'TOKEN_TRANSFER',
      A(i),
      { token: gold, amount: String(1000 * i) },
    ]),
    ['TOKEN_TRANSFER', outsider, { token: gold, amount: '77' }],
    ['TOKEN_MINT', A(9), { token: gold, amount: '5000' }],
    ['TOKEN_BURN', null, { token: gold, amount: '100' }],
  ];
  const signed: Awaited<ReturnType<typeof sign>>[] = [];
  for (const [type, to, data] of goldMoves) signed.push(await sign(0, type, to, data));
  const ids: Hex[] = await Promise.all(signed.map((tx, j) => post(tx, goldMoves[j][0], goldMoves[j][2])));
  for (let n = 1; n <= 4; n++) ids.push(await submit(3, 'NFT_MINT', A(n), { collection: art, uri: `ipfs://art/${n}` }));
  ids.push(await submit(4, 'NFT_MINT', A(4), { collection: pix }));
  ids.push(await submit(8, 'NAME_RELEASE', null, { name: 'dave-1' }));
  ids.push(await submit(5, 'NAME_UPDATE', A(9), { name: 'alice' }));
  await included(ids);

  // Round 3: moves that depend on round 2.
  const ids3: Hex[] = [];
  ids3.push(await submit(1, 'TOKEN_TRANSFER', A(2), { token: gold, amount: '1000' })); // dev1 leaves GOLD entirely
  ids3.push(await submit(1, 'NFT_TRANSFER', A(5), { collection: art, item: 1 }));
  ids3.push(await submit(2, 'NFT_BURN', null, { collection: art, item: 2 }));
  ids3.push(await submit(6, 'NAME_TRANSFER', A(8), { name: 'bob' }));
  await included(ids3);
}, 120_000);
afterAll(async () => t?.cleanup());

describe('tokens over HTTP', () => {
  it('lists tokens newest first with paging, and serves one by id or symbol', async () => {
    const all = (await pages('/tokens', 'tokens', 2, 'createdAt')).flat();
    expect(all.map((x) => x.id).sort()).toEqual([gold, gem, ...otherTokens].sort());
    for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt).toBeGreaterThanOrEqual(all[i].createdAt);
    const first = await t.get('/tokens');
    expect(first.body.nextBefore).toBeNull();
    expect(first.body.tokens).toHaveLength(5);

    const g = (await t.get(`/tokens/${gold}`)).body;
    expect(g).toMatchObject({
      id: gold,
      name: 'Gold Coin',
      symbol: 'GOLD',
      decimals: 6,
      owner: A(0),
      ownerNative: dev[0].native,
      mintable: true,
      paused: false,
      supply: String(1_000_000 + 5000 - 100),
    });
    expect(typeof g.createdAt).toBe('number');
    // dev0, dev2…dev6, dev9 and the outsider hold GOLD; dev1 sent all of it away.
    expect(g.holders).toBe(8);
    for (const ref of ['gold', 'GOLD', 'Gold', gold.toUpperCase().replace('0X', '0x')]) {
      expect((await t.get(`/tokens/${ref}`)).body.id).toBe(gold);
    }
  });

  it('pages holders by balance, largest first, without zero balances', async () => {
    const hs = await pages(`/tokens/${gold}/holders`, 'holders', 3);
    expect(hs.map((p) => p.length)).toEqual([3, 3, 2]);
    const flat = hs.flat();
    expect(flat[0]).toEqual({ address: A(0), native: dev[0].native, balance: String(1_000_000 - 21_000 - 77 - 100) });
    expect(flat.map((h) => h.address)).not.toContain(A(1));
    expect(flat.find((h) => h.address === A(2)).balance).toBe('3000'); // 2000 + 1000 from dev1
    expect(flat.find((h) => h.address === outsider).balance).toBe('77');
    for (let i = 1; i < flat.length; i++) expect(BigInt(flat[i - 1].balance) >= BigInt(flat[i].balance)).toBe(true);
    const r = await t.get(`/tokens/GOLD/holders`);
    expect(r.body.token).toBe(gold);
    expect(r.body.nextBefore).toBeNull();
  });

  it('pages transfers newest first: create mint, transfers, mint, burn', async () => {
    const flat = (await pages(`/tokens/${gold}/transfers`, 'transfers', 4, 'blockHeight')).flat();
    expect(flat).toEqual((await t.get(`/tokens/${gold}/transfers?limit=100`)).body.transfers);
    expect(flat[0]).toMatchObject({
      kind: 'transfer',
      from: A(1),
      to: A(2),
      fromNative: dev[1].native,
      toNative: dev[2].native,
      amount: '1000',
    });
    expect(flat.at(-1)).toMatchObject({ kind: 'mint', from: null, fromNative: null, to: A(0), amount: '1000000' });
    expect(flat.find((x) => x.kind === 'burn')).toMatchObject({ from: A(0), to: null, toNative: null, amount: '100' });
    expect(
      flat
        .filter((x) => x.kind === 'mint')
        .map((x) => x.amount)
        .sort(),
    ).toEqual(['1000000', '5000']);
    for (let i = 1; i < flat.length; i++) expect(flat[i - 1].blockHeight).toBeGreaterThanOrEqual(flat[i].blockHeight);
    for (const x of flat) {
      expect(x.txId).toMatch(/^0x[0-9a-f]{64}$/);
      const tx = (await t.get(`/tx/${x.txId}`)).body;
      expect(tx.blockHeight).toBe(x.blockHeight);
    }
    expect(new Set(flat.map((x) => `${x.txId}`)).size).toBe(11);
  });

  it('shows token holdings on the account, including an address that only received tokens', async () => {
    const a2 = (await t.get(`/address/${dev[2].native}`)).body;
    expect(a2.tokens).toEqual(
      expect.arrayContaining([
        { token: gold, symbol: 'GOLD', name: 'Gold Coin', decimals: 6, balance: '3000' },
        { token: otherTokens[0], symbol: 'SILV', name: 'SILV token', decimals: 2, balance: '100' },
      ]),
    );
    expect(a2.tokens).toHaveLength(2);
    const a1 = (await t.get(`/address/${A(1)}`)).body;
    expect(a1.tokens).toEqual([{ token: gem, symbol: 'GEM', name: 'Shiny Gem', decimals: 0, balance: '500' }]);
    const o = await t.get(`/address/${outsider}`);
    expect(o.status).toBe(200);
    expect(o.body).toMatchObject({ balance: '0', nonce: 0, tokens: [{ token: gold, symbol: 'GOLD', balance: '77' }] });
    expect((await t.get(`/address/${deriveKeys(generateSecret()).address}`)).status).toBe(404);
  });
});

describe('NFTs over HTTP', () => {
  it('lists collections newest first with paging', async () => {
    const flat = (await pages('/nfts', 'collections', 1, 'createdAt')).flat();
    expect(flat.map((c) => c.id).sort()).toEqual([art, pix].sort());
    const a = flat.find((c) => c.id === art);
    expect(a).toMatchObject({
      name: 'Art Works',
      symbol: 'ART',
      owner: A(3),
      ownerNative: dev[3].native,
      minted: 4,
      burned: 1,
      supply: 3,
    });
  });

  it('serves a collection with its items (paged) and single items', async () => {
    const c = await t.get(`/nfts/${art}`);
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ id: art, symbol: 'ART', supply: 3, nextBefore: null });
    expect(c.body.items.map((i: { item: number }) => i.item)).toEqual([4, 3, 1]);
    const ps = await pages(`/nfts/${art}`, 'items', 2);
    expect(ps.map((p) => p.map((i: { item: number }) => i.item))).toEqual([[4, 3], [1]]);
    const item1 = await t.get(`/nfts/${art}:1`);
    expect(item1.body).toEqual({
      id: `${art}:1`,
      collection: art,
      item: 1,
      owner: A(5),
      ownerNative: dev[5].native,
      uri: 'ipfs://art/1',
      approved: null,
      mintedAt: item1.body.mintedAt,
      name: 'Art Works',
      symbol: 'ART',
    });
    expect(typeof item1.body.mintedAt).toBe('number');
    expect((await t.get(`/nfts/${encodeURIComponent(`${art}:3`)}`)).body).toMatchObject({ item: 3, owner: A(3) });
    expect((await t.get(`/nfts/PIX:1`)).body).toMatchObject({ collection: pix, owner: A(4), uri: null });
    expect((await t.get(`/nfts/art`)).body.id).toBe(art);
  });

  it('answers 404 for unknown or burned items and collections, 400 for malformed ids', async () => {
    for (const p of [`/nfts/${art}:2`, `/nfts/${art}:99`, `/nfts/0x${'0'.repeat(40)}`, `/nfts/NOPE`, `/nfts/NOPE:1`]) {
      const r = await t.get(p);
      expect(r.status, p).toBe(404);
      expect(typeof r.body.error).toBe('string');
    }
    for (const p of [
      `/nfts/${art}:0`,
      `/nfts/${art}:x`,
      '/nfts/0x123',
      `/nfts/${art}:1:2`,
      '/nfts/%E0%A4%A',
      '/nfts/a_b',
    ]) {
      const r = await t.get(p);
      expect(r.status, p).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });
});

describe('names over HTTP', () => {
  it('lists live names newest first with paging, following updates, transfers and releases', async () => {
    const flat = (await pages('/names', 'names', 2, 'registeredAt')).flat();
    expect(flat.map((n) => n.name).sort()).toEqual(['alice', 'bob', 'carol']);
    expect(flat.find((n) => n.name === 'alice')).toMatchObject({
      owner: A(5),
      ownerNative: dev[5].native,
      target: A(9),
      targetNative: dev[9].native,
    });
    expect(flat.find((n) => n.name === 'bob')).toMatchObject({ owner: A(8), target: A(7) });
    for (let i = 1; i < flat.length; i++) expect(flat[i - 1].registeredAt).toBeGreaterThanOrEqual(flat[i].registeredAt);
  });

  it('resolves a name; 404 for unknown, released and malformed names (the read resolves or answers 404)', async () => {
    const r = await t.get('/name/bob');
    expect(r.body).toEqual({
      name: 'bob',
      address: A(7),
      native: dev[7].native,
      owner: A(8),
      ownerNative: dev[8].native,
      registeredAt: r.body.registeredAt,
    });
    expect(r.body.registeredAt).toBeGreaterThan(0);
    expect((await t.get('/name/ALICE')).body.address).toBe(A(9));
    for (const n of ['dave-1', 'nobody']) {
      const x = await t.get(`/name/${n}`);
      expect(x.status).toBe(404);
      expect(x.body.error).toMatch(/not registered/);
    }
    for (const n of ['ab', '-abc', 'abc-', 'a_b_c', 'x'.repeat(33)]) {
      const x = await t.get(`/name/${n}`);
      expect(x.status, n).toBe(404);
      expect(x.body.error).toMatch(/^name not registered: .* \(names are 3–32 characters/);
    }
    const malformed = await t.get('/name/%ZZ'); // a malformed %-escape cannot be a name either
    expect(malformed.status).toBe(404);
    expect(malformed.body.error).toMatch(/^name not registered: %ZZ \(names are/);
  });
});

describe('`before` is a block height on the token, NFT and name feeds (SPEC: the height of the last item seen)', () => {
  /** Each feed ordered by height, with the field of its items holding the height. */
  const feeds = () => [
    { path: '/tokens', field: 'tokens', height: 'createdAt' },
    { path: `/tokens/${gold}/transfers`, field: 'transfers', height: 'blockHeight' },
    { path: '/nfts', field: 'collections', height: 'createdAt' },
    { path: '/names', field: 'names', height: 'registeredAt' },
  ];

  it('any height: the items strictly below it, newest first (e.g. GET /tokens/:id/transfers?before=80)', async () => {
    const head = (await t.get('/status')).body.height;
    for (const { path, field, height } of feeds()) {
      const all: any[] = (await t.get(`${path}?limit=100`)).body[field];
      const heights = [...new Set(all.map((x) => x[height] as number))];
      expect(heights.length, path).toBeGreaterThan(0);
      for (const h of [0, 1, 80, ...heights, ...heights.map((x) => x + 1), head + 1]) {
        const r = await t.get(`${path}?before=${h}&limit=100`);
        expect(r.status, `${path}?before=${h}`).toBe(200);
        expect(r.body[field], `${path}?before=${h}`).toEqual(all.filter((x) => x[height] < h));
      }
    }
  });

  it(
    'a page that fills up inside a block ends with that block: ' + 'following nextBefore skips and repeats nothing',
    async () => {
      for (const { path, field, height } of feeds()) {
        const all = (await t.get(`${path}?limit=100`)).body[field];
        const walked = await pages(path, field, 1, height); // checks each page against the nextBefore it follows
        expect(walked.flat(), path).toEqual(all);
        // GOLD's round-2 movements were submitted together: some block holds several, served whole.
        if (field === 'transfers') expect(Math.max(...walked.map((p) => p.length)), path).toBeGreaterThan(1);
      }
    },
  );

  it('still takes the cursors these feeds returned before they paged by height: exactly after that entry', async () => {
    const all = (await t.get(`/tokens/${gold}/transfers?limit=100`)).body.transfers;
    // TOKEN_TRANSFER: its token.transfer is event 0
    const k = all.findIndex((x: { kind: string }) => x.kind === 'transfer');
    const tx = (await t.get(`/tx/${all[k].txId}`)).body;
    const old = encodeCursor('transfers', Buffer.concat([u64be(tx.blockHeight), u32be(tx.index), u32be(0)]));
    const r = await t.get(`/tokens/${gold}/transfers?limit=100&before=${old}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ transfers: all.slice(k + 1), nextBefore: null });
  });
});

describe('search, errors and the endpoint index', () => {
  it('finds tokens by symbol or name prefix and names by prefix', async () => {
    const s1 = (await t.get('/search?q=gol')).body.results;
    expect(s1).toContainEqual({ kind: 'token', id: gold, symbol: 'GOLD', name: 'Gold Coin' });
    const s2 = (await t.get('/search?q=shiny')).body.results;
    expect(s2).toEqual([{ kind: 'token', id: gem, symbol: 'GEM', name: 'Shiny Gem' }]);
    const s3 = (await t.get('/search?q=Ali')).body.results;
    expect(s3).toEqual([{ kind: 'name', id: 'alice', address: A(9), native: toNative(A(9)) }]);
    expect((await t.get('/search?q=dave')).body.results).toEqual([]);
    const s4 = (await t.get(`/search?q=${gold}`)).body.results;
    expect(s4).toContainEqual({ kind: 'token', id: gold, symbol: 'GOLD', name: 'Gold Coin' });
    expect(s4[0]).toMatchObject({ kind: 'address', id: gold });
  });

  it('answers 400 for bad limits and cursors, 404 for unknown tokens', async () => {
    const feeds = [
      '/tokens',
      `/tokens/${gold}/holders`,
      `/tokens/${gold}/transfers`,
      '/nfts',
      `/nfts/${art}`,
      '/names',
    ];
    for (const f of feeds) {
      for (const q of [
        'limit=0',
        'limit=-1',
        'limit=abc',
        'before=not-a-cursor',
        'before=AAAA',
        'before=%25',
        'before=-1',
        'before=1.5',
        `before=${'9'.repeat(16)}`,
      ]) {
        const r = await t.get(`${f}?${q}`);
        expect(r.status, `${f}?${q}`).toBe(400);
        expect(typeof r.body.error).toBe('string');
      }
      expect((await t.get(`${f}?limit=100`)).body).not.toHaveProperty('capped');
      // Above the maximum the page is capped, not refused (test/integration/pagination.test.ts).
      expect((await t.get(`${f}?limit=101`)).body.capped).toBe(
        'limit 101 is above MAX_LIMIT: at most 100 items are served',
      );
    }
    // A cursor of one feed is refused by another; a height only by the feeds paged by cursor.
    const hc = (await t.get(`/tokens/${gold}/holders?limit=1`)).body.nextBefore;
    expect((await t.get(`/nfts/${art}?before=${hc}`)).body.error).toMatch(/invalid cursor/);
    expect((await t.get(`/tokens?before=${hc}`)).body.error).toBe(
      'invalid before: expected a block height (the nextBefore of the previous page)',
    );
    expect((await t.get(`/tokens/${gold}/holders?before=80`)).body.error).toMatch(/invalid cursor/);
    for (const p of [
      `/tokens/0x${'0'.repeat(40)}`,
      '/tokens/NOPE',
      `/tokens/NOPE/holders`,
      `/tokens/0x${'1'.repeat(40)}/transfers`,
    ]) {
      const r = await t.get(p);
      expect(r.status, p).toBe(404);
      expect(r.body.error).toMatch(/token not found/);
    }
    for (const p of [
      '/tokens/0x123',
      '/tokens/1ABC',
      '/tokens/A-B',
      `/tokens/${'A'.repeat(13)}`,
      '/tokens/0x123/holders',
    ]) {
      expect((await t.get(p)).status, p).toBe(400);
    }
  });

  it('answers junk path parameters and repeated query keys with 400/404 {error}, never 5xx', async () => {
    const junk = ['%00', '%3A', ':1', '%3A1', 'x'.repeat(1000), '%F0%9F%92%A9', '0x', `${gold}:1`, '%25', ' ', 'a%20b'];
    for (const j of junk) {
      for (const p of [`/tokens/${j}`, `/tokens/${j}/holders`, `/tokens/${j}/transfers`, `/nfts/${j}`, `/name/${j}`]) {
        const r = await t.get(p);
        expect([400, 404], `${p} → ${r.status}`).toContain(r.status);
        expect(typeof r.body.error).toBe('string');
      }
    }
    for (const p of ['/tokens?before=a&before=b', '/tokens?limit=1&limit=2', '/names?before=%00']) {
      const r = await t.get(p);
      expect(r.status, p).toBe(400);
    }
  });

  it('lists the new endpoints in the index', async () => {
    const idx = (await t.get('/', { accept: 'application/json' })).body.endpoints.map((e: { path: string }) => e.path);
    for (const p of [
      'GET /tokens?limit&before',
      'GET /tokens/:id',
      'GET /tokens/:id/holders?limit&before',
      'GET /tokens/:id/transfers?limit&before',
      'GET /nfts?limit&before',
      'GET /names?limit&before',
      'GET /name/:name',
    ]) {
      expect(idx).toContain(p);
    }
  });
});
