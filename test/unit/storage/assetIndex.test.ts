import { beforeEach, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../../src/protocol/events';
import type { Address, Block, SignedTx, TxResult } from '../../../src/protocol/types';
import type { Hex } from '../../../src/primitives/hex';
import { MemoryKv } from '../../../src/state/kv';
import { word32 as u256be } from '../../../src/primitives/hex';
import { AssetIndex, decodeCursor, encodeCursor, readU256be, type Page } from '../../../src/storage/assetIndex';
import { u32be, u64be } from '../../../src/primitives/height';
import { ChainStore } from '../../../src/storage/chainStore';

const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const asset = (n: number): Hex => `0x${'a'.repeat(8)}${n.toString(16).padStart(32, '0')}`;
const txId = (h: number, i: number): Hex => `0x${h.toString(16).padStart(32, '0')}${i.toString(16).padStart(32, '0')}`;

let kv: MemoryKv;
let store: ChainStore;
let index: AssetIndex;

interface TxSpec {
  events: ChainEvent[];
  failed?: boolean;
}

/** Writes a synthetic block of transactions with the given events through ChainStore.putBlock. */
async function block(height: number, txs: TxSpec[]): Promise<Block> {
  const b: Block = {
    header: {
      height,
      parentHash: `0x${'0'.repeat(64)}`,
      timestamp: 1_000 + height,
      producer: addr(999),
      txRoot: `0x${'0'.repeat(64)}`,
      stateRoot: `0x${'0'.repeat(64)}`,
      txCount: txs.length,
      hash: txId(height, 0xffff),
      signatures: { secp256k1: '0x', mldsa44: '0x' },
    },
    txs: txs.map(
      (_, i) =>
        ({ id: txId(height, i), from: addr(1), to: null, amount: '0', type: 'TOKEN_TRANSFER' }) as unknown as SignedTx,
    ),
    results: txs.map(
      (t): TxResult =>
        t.failed
          ? { status: 'failed', error: 'x', energyUsed: '0', burned: '0', events: t.events }
          : { status: 'success', energyUsed: '0', burned: '0', events: t.events },
    ),
  };
  const batch = kv.batch();
  store.putBlock(batch, b, {
    height,
    hash: b.header.hash,
    stateRoot: b.header.stateRoot,
    finalizedHeight: 0,
    timestamp: b.header.timestamp,
  });
  await kv.write(batch);
  return b;
}

const bal = (token: Hex, holder: Address, previous: bigint, balance: bigint): ChainEvent => ({
  kind: 'token.balance',
  token,
  holder,
  previous: previous.toString(),
  balance: balance.toString(),
});
const xfer = (token: Hex, from: Address | null, to: Address | null, amount: bigint): ChainEvent => ({
  kind: 'token.transfer',
  token,
  from,
  to,
  amount: amount.toString(),
});

/** All pages of a feed ordered by height, following nextBefore (a height, decreasing). */
async function allByHeight<T>(fetch: (before?: number) => Promise<Page<T, number>>): Promise<T[][]> {
  const pages: T[][] = [];
  let before: number | undefined;
  for (;;) {
    const p = await fetch(before);
    pages.push(p.items);
    if (p.nextBefore === null) return pages;
    expect(p.nextBefore).toBeLessThan(before ?? Infinity);
    before = p.nextBefore;
  }
}

/** All pages of a feed paged by cursor (holders, items), following nextBefore. */
async function all<T>(
  fetch: (before?: Uint8Array) => Promise<{ items: T[]; nextBefore: string | null }>,
  feed: Parameters<typeof decodeCursor>[0],
) {
  const pages: T[][] = [];
  let before: Uint8Array | undefined;
  for (;;) {
    const p = await fetch(before);
    pages.push(p.items);
    if (p.nextBefore === null) return pages;
    before = decodeCursor(feed, p.nextBefore);
    expect(before).toBeDefined();
  }
}

beforeEach(() => {
  kv = new MemoryKv();
  store = new ChainStore(kv);
  index = new AssetIndex(kv);
});

describe('u256 keys', () => {
  it('orders balances numerically by bytes', () => {
    const vals = [0n, 1n, 255n, 256n, 10n ** 18n, 2n ** 200n, 2n ** 256n - 1n];
    for (const v of vals) expect(readU256be(u256be(v))).toBe(v);
    const sorted = [...vals].map((v) => u256be(v).toString('hex')).sort();
    expect(sorted).toEqual(vals.map((v) => u256be(v).toString('hex')));
  });
});

describe('token indexes', () => {
  const T = asset(1);
  const [A, B, C] = [addr(0xa), addr(0xb), addr(0xc)];

  it('keeps holders sorted by balance, removes zero balances, lists holdings', async () => {
    await block(1, [
      {
        events: [
          { kind: 'token.create', token: T, symbol: 'GOLD', name: 'Gold Coin', height: 1 },
          xfer(T, null, A, 1000n),
          bal(T, A, 0n, 1000n),
        ],
      },
    ]);
    expect((await index.holders(T, 10)).items).toEqual([{ address: A, balance: '1000' }]);
    expect((await index.holders(T, 100)).items.length).toBe(1);

    // Two transactions in one block; A's balance moves twice.
    await block(2, [
      { events: [xfer(T, A, B, 300n), bal(T, A, 1000n, 700n), bal(T, B, 0n, 300n)] },
      { events: [xfer(T, A, C, 100n), bal(T, A, 700n, 600n), bal(T, C, 0n, 100n)] },
    ]);
    expect((await index.holders(T, 10)).items).toEqual([
      { address: A, balance: '600' },
      { address: B, balance: '300' },
      { address: C, balance: '100' },
    ]);
    expect((await index.holders(T, 100)).items.length).toBe(3);

    // B leaves (balance 0), C overtakes A; ties order by address, higher first.
    await block(3, [{ events: [xfer(T, B, C, 300n), bal(T, B, 300n, 0n), bal(T, C, 100n, 400n)] }]);
    await block(4, [{ events: [xfer(T, A, C, 200n), bal(T, A, 600n, 400n), bal(T, C, 400n, 600n)] }]);
    await block(5, [{ events: [xfer(T, C, A, 200n), bal(T, C, 600n, 400n), bal(T, A, 400n, 600n)] }]);
    await block(6, [{ events: [xfer(T, A, C, 200n), bal(T, A, 600n, 400n), bal(T, C, 400n, 600n)] }]);
    await block(7, [{ events: [xfer(T, C, null, 200n), bal(T, C, 600n, 400n)] }]); // burn: A and C tie at 400
    expect((await index.holders(T, 10)).items).toEqual([
      { address: C, balance: '400' },
      { address: A, balance: '400' },
    ]);
    expect((await index.holders(T, 100)).items.length).toBe(2);
    expect(await index.holdings(B, 10)).toEqual([]);
    expect(await index.holdings(A, 10)).toEqual([{ token: T, balance: '400' }]);

    // A holder that comes back is counted again; a failed transaction's events are ignored.
    await block(8, [
      { events: [xfer(T, A, B, 1n), bal(T, A, 400n, 399n), bal(T, B, 0n, 1n)] },
      { failed: true, events: [xfer(T, A, B, 5n), bal(T, A, 399n, 394n), bal(T, B, 1n, 6n)] },
    ]);
    expect((await index.holders(T, 100)).items.length).toBe(3);
    expect((await new AssetIndex(kv).holders(T, 100)).items).toHaveLength(3); // a fresh reader agrees
    expect((await index.holders(T, 10)).items.map((h) => h.balance)).toEqual(['400', '399', '1']);

    // A holder whose balance goes up and back to zero inside one block leaves no trace.
    const D = addr(0xd);
    await block(9, [{ events: [bal(T, D, 0n, 5n), bal(T, D, 5n, 0n)] }]);
    expect((await index.holders(T, 100)).items.length).toBe(3);
    expect(await index.holdings(D, 10)).toEqual([]);
  });

  it('pages holders with before across pages', async () => {
    const events: ChainEvent[] = [];
    for (let i = 1; i <= 25; i++) events.push(bal(T, addr(i), 0n, BigInt(1000 - (i % 7) * 100)));
    await block(1, [{ events }]);
    const pages = await all((b) => index.holders(T, 10, b), 'holders');
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    const flat = pages.flat();
    expect(new Set(flat.map((h) => h.address)).size).toBe(25);
    for (let i = 1; i < flat.length; i++) expect(BigInt(flat[i - 1].balance) >= BigInt(flat[i].balance)).toBe(true);
  });

  it('feeds transfers newest first, paging by height in whole blocks', async () => {
    let n = 0;
    const expected: string[] = [];
    for (let h = 1; h <= 9; h++) {
      const txs: TxSpec[] = [];
      for (let i = 0; i < 5; i++) {
        const amount = BigInt(++n);
        txs.push({ events: [xfer(T, i === 0 ? null : A, i === 4 ? null : B, amount)] });
        expected.unshift(amount.toString());
      }
      await block(h, txs);
    }
    const pages = await allByHeight((b) => index.transfers(T, 20, b));
    expect(pages.map((p) => p.length)).toEqual([20, 20, 5]);
    expect(pages.flat().map((t) => t.amount)).toEqual(expected);
    const first = pages[0][0];
    expect(first).toEqual({ txId: txId(9, 4), kind: 'burn', from: A, to: null, amount: '45', blockHeight: 9 });
    expect(pages[0][4]).toMatchObject({ kind: 'mint', from: null, to: B, blockHeight: 9 });
    expect(pages[0][1]).toMatchObject({ kind: 'transfer', from: A, to: B });
    // A last page that is exactly full has no next page.
    const exact = await allByHeight((b) => index.transfers(T, 15, b));
    expect(exact.map((p) => p.length)).toEqual([15, 15, 15]);
    // A page that fills up inside a block takes the rest of it: the next starts below its height, nothing skipped.
    const p1 = await index.transfers(T, 7);
    expect(p1.items.map((t) => t.blockHeight)).toEqual([9, 9, 9, 9, 9, 8, 8, 8, 8, 8]);
    expect(p1.nextBefore).toBe(8);
    const sevens = await allByHeight((b) => index.transfers(T, 7, b));
    expect(sevens.map((p) => p.length)).toEqual([10, 10, 10, 10, 5]);
    expect(sevens.flat().map((t) => t.amount)).toEqual(expected);
    // Any height: strictly below it; above the newest, from the newest; 0, nothing.
    expect((await index.transfers(T, 3, 5)).items.map((t) => t.blockHeight)).toEqual([4, 4, 4, 4, 4]);
    expect((await index.transfers(T, 3, 1_000)).items[0]).toEqual(first);
    expect(await index.transfers(T, 3, 0)).toEqual({ items: [], nextBefore: null });
    // Another token's transfers are not mixed in.
    expect((await index.transfers(asset(2), 20)).items).toEqual([]);
  });

  it('lists tokens newest first and finds them by symbol or name prefix, case-insensitively', async () => {
    await block(1, [
      { events: [{ kind: 'token.create', token: asset(1), symbol: 'GOLD', name: 'Gold Coin', height: 1 }] },
    ]);
    await block(2, [
      { events: [{ kind: 'token.create', token: asset(2), symbol: 'SILV', name: 'Silver', height: 2 }] },
      { events: [{ kind: 'token.create', token: asset(3), symbol: 'GEM', name: 'Shiny gold', height: 2 }] },
    ]);
    const pages = await allByHeight((b) => index.tokens(2, b));
    expect(pages).toEqual([[asset(3), asset(2)], [asset(1)]]);
    expect((await index.searchTokens('go', 10)).map((t) => t.id)).toEqual([asset(1)]);
    expect((await index.searchTokens('G', 10)).map((t) => t.symbol).sort()).toEqual(['GEM', 'GOLD']);
    expect(await index.searchTokens('shiny', 10)).toEqual([{ id: asset(3), symbol: 'GEM', name: 'Shiny gold' }]);
    expect(await index.searchTokens('x', 10)).toEqual([]);
  });
});

describe('NFT indexes', () => {
  it('lists collections newest first and live items newest first', async () => {
    const [K1, K2] = [asset(11), asset(12)];
    await block(1, [{ events: [{ kind: 'nft.create', collection: K1, symbol: 'ART', name: 'Art', height: 1 }] }]);
    await block(2, [{ events: [{ kind: 'nft.create', collection: K2, symbol: 'PIX', name: 'Pix', height: 2 }] }]);
    const mints: TxSpec[] = [];
    for (let i = 1; i <= 5; i++)
      mints.push({ events: [{ kind: 'nft.transfer', collection: K1, item: i, from: null, to: addr(1) }] });
    await block(3, mints);
    await block(4, [
      { events: [{ kind: 'nft.transfer', collection: K1, item: 2, from: addr(1), to: null }] },
      { events: [{ kind: 'nft.transfer', collection: K1, item: 3, from: addr(1), to: addr(2) }] },
    ]);
    expect((await index.collections(10)).items).toEqual([K2, K1]);
    const pages = await all((b) => index.items(K1, 2, b), 'items');
    expect(pages).toEqual([
      [5, 4],
      [3, 1],
    ]);
    expect((await index.items(K2, 10)).items).toEqual([]);
  });
});

describe('name indexes', () => {
  it('lists names newest first, follows updates, and handles release and re-registration', async () => {
    const [A, B, C] = [addr(0xa), addr(0xb), addr(0xc)];
    await block(1, [{ events: [{ kind: 'name.register', name: 'alice', owner: A, target: A, height: 1 }] }]);
    await block(2, [{ events: [{ kind: 'name.register', name: 'bob', owner: B, target: B, height: 2 }] }]);
    await block(3, [
      {
        events: [
          {
            kind: 'name.update',
            name: 'alice',
            owner: A,
            target: C,
            registeredAt: 1,
            previous: { owner: A, target: A },
          },
        ],
      },
    ]);
    expect((await index.names(10)).items).toEqual([
      { name: 'bob', owner: B, target: B, registeredAt: 2 },
      { name: 'alice', owner: A, target: C, registeredAt: 1 },
    ]);
    expect(await index.searchNames('al', 10)).toEqual([{ name: 'alice', owner: A, target: C, registeredAt: 1 }]);

    await block(4, [{ events: [{ kind: 'name.release', name: 'alice', registeredAt: 1, owner: A, target: C }] }]);
    expect((await index.names(10)).items.map((n) => n.name)).toEqual(['bob']);
    expect(await index.searchNames('al', 10)).toEqual([]);

    await block(5, [{ events: [{ kind: 'name.register', name: 'alice', owner: B, target: B, height: 5 }] }]);
    expect((await index.names(10)).items).toEqual([
      { name: 'alice', owner: B, target: B, registeredAt: 5 },
      { name: 'bob', owner: B, target: B, registeredAt: 2 },
    ]);
    // Release and re-register inside one block (two transactions).
    await block(6, [
      { events: [{ kind: 'name.release', name: 'bob', registeredAt: 2, owner: B, target: B }] },
      { events: [{ kind: 'name.register', name: 'bob', owner: C, target: A, height: 6 }] },
    ]);
    const pages = await allByHeight((b) => index.names(1, b));
    expect(pages.flat().map((n) => `${n.name}@${n.registeredAt}`)).toEqual(['bob@6', 'alice@5']);
    expect(await index.searchNames('b', 10)).toEqual([{ name: 'bob', owner: C, target: A, registeredAt: 6 }]);
  });
});

describe('cursors', () => {
  it('round-trips and refuses cursors of other feeds, bad encodings and bad positions', () => {
    const pos = Buffer.alloc(16, 7);
    const c = encodeCursor('transfers', pos);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(decodeCursor('transfers', c)!)).toEqual(pos);
    expect(decodeCursor('tokens', c)).toBeUndefined(); // same length, other feed
    expect(decodeCursor('transfers', `${c}=`)).toBeUndefined();
    expect(decodeCursor('transfers', `${c}A`)).toBeUndefined();
    expect(decodeCursor('transfers', c.slice(0, -2))).toBeUndefined();
    expect(decodeCursor('transfers', '')).toBeUndefined();
    expect(decodeCursor('transfers', '12345')).toBeUndefined();
    expect(decodeCursor('transfers', 'not a cursor')).toBeUndefined();
    expect(decodeCursor('holders', encodeCursor('holders', Buffer.alloc(51)))).toBeUndefined();
    expect(decodeCursor('holders', encodeCursor('holders', Buffer.alloc(52)))).toBeDefined();
    expect(decodeCursor('items', encodeCursor('items', Buffer.alloc(8)))).toBeDefined();
    const name = (s: string) => Buffer.concat([Buffer.alloc(8), Buffer.from(s)]);
    expect(decodeCursor('names', encodeCursor('names', name('alice')))).toBeDefined();
    expect(decodeCursor('names', encodeCursor('names', name('-bad')))).toBeUndefined();
    expect(decodeCursor('names', encodeCursor('names', Buffer.alloc(8)))).toBeUndefined();
  });

  it('a height from an earlier page stays valid after new entries arrive', async () => {
    const T = asset(1);
    for (let h = 1; h <= 3; h++) await block(h, [{ events: [xfer(T, null, addr(1), BigInt(h))] }]);
    const p1 = await index.transfers(T, 2);
    expect(p1.items.map((t) => t.amount)).toEqual(['3', '2']);
    await block(4, [{ events: [xfer(T, null, addr(1), 4n)] }]);
    const p2 = await index.transfers(T, 2, p1.nextBefore!);
    expect(p2.items.map((t) => t.amount)).toEqual(['1']);
    expect(p2.nextBefore).toBeNull();
  });

  it(
    'the feeds ordered by height still take the cursors they issued before: ' +
      'exactly after that entry, then the rest of its block',
    async () => {
      const T = asset(1);
      await block(1, [{ events: [xfer(T, null, addr(1), 1n)] }]);
      await block(
        2,
        [0, 1, 2].map((i) => ({ events: [xfer(T, null, addr(1), BigInt(20 + i))] })),
      );
      // The cursor a page ending at block 2's second transaction (tx 1, event 0) used to return.
      const old = decodeCursor('transfers', encodeCursor('transfers', Buffer.concat([u64be(2), u32be(1), u32be(0)])));
      expect((await index.transfers(T, 1, old)).items.map((t) => t.amount)).toEqual(['20']);
      expect(await index.transfers(T, 5, old)).toMatchObject({
        items: [{ amount: '20' }, { amount: '1' }],
        nextBefore: null,
      });
    },
  );
});
