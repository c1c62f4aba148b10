import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_NFT_URI_BYTES } from '../../../../src/protocol/params';
import type { Address, SignedTx, TxType } from '../../../../src/protocol/types';
import { assetId } from '../../../../src/modules/assets/common';
import {
  collectionKey,
  getCollection,
  getItem,
  itemKey,
  nftSymbolKey,
  type CollectionRecord,
} from '../../../../src/modules/nft/records';
import { ENTRIES, REGISTRY } from '../../../../src/modules/registry';

const NFT_HANDLERS = Object.fromEntries(ENTRIES.filter((e) => e.module === 'nft').map((e) => [e.type, e.handler]));
import type { Hex } from '../../../../src/primitives/hex';
import {
  ALICE,
  AssetWorld,
  BOB,
  CAROL,
  DAVE,
  ENERGY_COST,
  envelope,
  refusal,
  validate,
  type TxOpts,
} from '../../../helpers/assetHarness';

let w: AssetWorld;
beforeEach(async () => {
  w = await AssetWorld.create();
});

/** Creates a collection owned by `owner`; returns its id. */
async function collection(owner = ALICE, symbol = 'PUNK', name = 'Punks'): Promise<Hex> {
  const tx = await w.tx('NFT_CREATE', owner, { data: { name, symbol } });
  expect((await w.apply(tx)).status).toBe('success');
  return assetId(tx.id);
}

describe('NFT721 handlers', () => {
  it('are registered for exactly the five types, with ENERGY_COST as their energy', () => {
    expect(Object.keys(NFT_HANDLERS).sort()).toEqual([
      'NFT_APPROVE',
      'NFT_BURN',
      'NFT_CREATE',
      'NFT_MINT',
      'NFT_TRANSFER',
    ]);
    for (const [type, h] of Object.entries(NFT_HANDLERS)) {
      expect(h.type).toBe(type);
      expect(REGISTRY[h.type as keyof typeof REGISTRY].handler).toBe(h);
      expect(h.maxEnergy(envelope(h.type, ALICE))).toBe(ENERGY_COST[type]);
    }
  });

  it('refuse the Ethereum envelope and a native amount for every type', () => {
    for (const type of Object.keys(NFT_HANDLERS) as TxType[]) {
      const eth = { ...envelope(type, ALICE), envelope: 'eth' } as unknown as SignedTx;
      expect(validate(eth)).toBe(`${type} is a hybrid-envelope type`);
      expect(refusal(type, { amount: '1' })).toBe(`${type} moves no native coins: amount must be "0"`);
    }
  });

  it(
    'never include what admission refuses: ' +
      'applyTx skips it permanently with the same reason, and a block carrying it is invalid',
    async () => {
      const id = await collection();
      await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id } });
      const cases: [TxType, Address, TxOpts, string][] = [
        [
          'NFT_CREATE',
          ALICE,
          { data: { name: 'X', symbol: 'x' } },
          'NFT_CREATE data.symbol must be an upper-case letter followed by at most 11 upper-case letters or digits',
        ],
        [
          'NFT_MINT',
          ALICE,
          { to: BOB, data: { collection: id, uri: 7 } },
          `NFT_MINT data.uri must be a string of at most ${MAX_NFT_URI_BYTES} UTF-8 bytes, or null`,
        ],
        ['NFT_TRANSFER', BOB, { data: { collection: id, item: 1 } }, 'NFT_TRANSFER needs the recipient address in to'],
        [
          'NFT_APPROVE',
          BOB,
          { to: BOB, data: { collection: id, item: 1 } },
          'NFT_APPROVE cannot approve the owner: to must differ from the sender',
        ],
        ['NFT_BURN', BOB, { data: { collection: id, item: 0 } }, 'NFT_BURN data.item must be a positive safe integer'],
      ];
      for (const [type, from, opts, reason] of cases) await w.refused(type, from, opts, reason);
      // nothing moved: the item is still BOB's, and nonces were not spent
      expect(await getItem(w.state, id, 1)).toMatchObject({ owner: BOB, approved: null });
      await w.ok('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: id, item: 1 } });
    },
  );
});

describe('NFT_CREATE', () => {
  const create = (data: unknown, to: Address | null = null) => refusal('NFT_CREATE', { data, to });
  const NAME = 'NFT_CREATE data.name must be a string of 1 to 64 UTF-8 bytes';
  const SYMBOL =
    'NFT_CREATE data.symbol must be an upper-case letter followed by at most 11 upper-case letters or digits';

  it('refuses at admission: destination, data shape, name, symbol', () => {
    expect(create({ name: 'A', symbol: 'A' }, BOB)).toBe('NFT_CREATE takes no to address (to must be null)');
    expect(create(null)).toBe('NFT_CREATE needs a data object with name, symbol');
    expect(create(['A', 'A'])).toBe('NFT_CREATE needs a data object with name, symbol');
    expect(create('x')).toBe('NFT_CREATE needs a data object with name, symbol');
    expect(create({ name: 'A' })).toBe('NFT_CREATE data.symbol is required');
    expect(create({ symbol: 'A' })).toBe('NFT_CREATE data.name is required');
    expect(create({ name: 'A', symbol: 'A', owner: BOB })).toBe('NFT_CREATE data has unknown field "owner"');
    for (const name of ['', 'é'.repeat(32) + 'x', 'x'.repeat(65), 5, null])
      expect(create({ name, symbol: 'A' })).toBe(NAME);
    for (const name of ['a\nb', 'tab\there', 'del\u007f', 'c1\u0085'])
      expect(create({ name, symbol: 'A' })).toBe('NFT_CREATE data.name must not contain control characters');
    for (const symbol of ['', 'abc', 'Abc', '1AB', 'A-B', 'ABCDEFGHIJKLM', 'A B', 7])
      expect(create({ name: 'N', symbol })).toBe(SYMBOL);
    for (const [name, symbol] of [
      ['é'.repeat(32), 'A'],
      ['x'.repeat(64), 'ABCDEFGHIJKL'],
      ['Émoji 🎨', 'A1'],
    ])
      expect(create({ name, symbol })).toBeUndefined();
  });

  it('creates a collection owned by the sender, id from the transaction id, and reports nft.create', async () => {
    const tx = await w.tx('NFT_CREATE', ALICE, { data: { name: 'Punks', symbol: 'PUNK' } });
    const r = await w.apply(tx);
    expect(r.status).toBe('success');
    const id = assetId(tx.id);
    expect(r.events).toEqual([{ kind: 'nft.create', collection: id, symbol: 'PUNK', name: 'Punks', height: w.height }]);
    expect(await getCollection(w.state, id)).toEqual<CollectionRecord>({
      id,
      name: 'Punks',
      symbol: 'PUNK',
      owner: ALICE,
      minted: 0,
      burned: 0,
      createdAt: w.height,
      createdBy: tx.id,
    });
    expect(await w.state.getRecord(nftSymbolKey('PUNK'))).toEqual({ id });
  });

  it('fails on a symbol already taken by any collection, state untouched', async () => {
    await collection(ALICE, 'PUNK');
    await w.fails('NFT_CREATE', BOB, { data: { name: 'Other', symbol: 'PUNK' } }, 'symbol already taken');
    await w.fails('NFT_CREATE', ALICE, { data: { name: 'Punks', symbol: 'PUNK' } }, 'symbol already taken');
    await w.ok('NFT_CREATE', BOB, { data: { name: 'Other', symbol: 'PUNK2' } });
  });
});

describe('NFT_MINT', () => {
  const C0 = `0x${'ab'.repeat(20)}`;
  const mint = (data: unknown, to: Address | null = BOB) => refusal('NFT_MINT', { data, to });
  const URI = `NFT_MINT data.uri must be a string of at most ${MAX_NFT_URI_BYTES} UTF-8 bytes, or null`;
  const COLL = 'NFT_MINT data.collection must be a collection id (0x + 40 lower-case hex digits)';

  it('refuses at admission: recipient, data shape, collection id, uri', () => {
    expect(mint({ collection: C0 }, null)).toBe('NFT_MINT needs the recipient address in to');
    expect(mint(null)).toBe('NFT_MINT needs a data object with collection');
    expect(mint({})).toBe('NFT_MINT data.collection is required');
    expect(mint({ collection: C0, item: 1 })).toBe('NFT_MINT data has unknown field "item"');
    for (const collection of [
      C0.toUpperCase(),
      `0x${'AB'.repeat(20)}`,
      `0x${'ab'.repeat(19)}`,
      `0x${'ab'.repeat(21)}`,
      'ab'.repeat(20),
      1,
    ])
      expect(mint({ collection })).toBe(COLL);
    for (const uri of ['x'.repeat(MAX_NFT_URI_BYTES + 1), 'é'.repeat(MAX_NFT_URI_BYTES / 2) + 'x', 1, {}, ['u']])
      expect(mint({ collection: C0, uri })).toBe(URI);
    for (const uri of ['x'.repeat(MAX_NFT_URI_BYTES), 'é'.repeat(MAX_NFT_URI_BYTES / 2), '', null])
      expect(mint({ collection: C0, uri })).toBeUndefined();
    expect(mint({ collection: C0 })).toBeUndefined();
  });

  it('mints sequential items from 1 to the recipient, reporting nft.transfer from null', async () => {
    const id = await collection();
    expect(await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id, uri: 'ipfs://one' } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 1, from: null, to: BOB },
    ]);
    const mintedAt = w.height;
    expect(await w.ok('NFT_MINT', ALICE, { to: ALICE, data: { collection: id } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 2, from: null, to: ALICE },
    ]);
    expect(await w.ok('NFT_MINT', ALICE, { to: CAROL, data: { collection: id, uri: null } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 3, from: null, to: CAROL },
    ]);
    expect(await getItem(w.state, id, 1)).toEqual({
      collection: id,
      item: 1,
      owner: BOB,
      uri: 'ipfs://one',
      approved: null,
      mintedAt,
    });
    expect((await getItem(w.state, id, 2))!.uri).toBeNull();
    expect((await getItem(w.state, id, 3))!.owner).toBe(CAROL);
    expect(await w.state.getRecord(itemKey(id, 3))).toEqual(await getItem(w.state, id, 3));
    expect((await getCollection(w.state, id))!.minted).toBe(3);
  });

  it('never reuses an item number after a burn', async () => {
    const id = await collection();
    await w.ok('NFT_MINT', ALICE, { to: ALICE, data: { collection: id } });
    await w.ok('NFT_MINT', ALICE, { to: ALICE, data: { collection: id } });
    await w.ok('NFT_BURN', ALICE, { data: { collection: id, item: 2 } });
    expect(await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 3, from: null, to: BOB },
    ]);
    expect(await getItem(w.state, id, 2)).toBeUndefined();
    expect(await getCollection(w.state, id)).toMatchObject({ minted: 3, burned: 1 });
  });

  it('fails for an unknown collection or a sender other than the collection owner', async () => {
    const id = await collection();
    await w.fails('NFT_MINT', ALICE, { to: BOB, data: { collection: C0 } }, 'unknown collection');
    await w.fails(
      'NFT_MINT',
      BOB,
      { to: BOB, data: { collection: id } },
      'only the owner of the collection may do this',
    );
    expect((await getCollection(w.state, id))!.minted).toBe(0);
  });
});

describe('NFT_TRANSFER', () => {
  const C0 = `0x${'cd'.repeat(20)}`;
  const ITEM = 'NFT_TRANSFER data.item must be a positive safe integer';
  let id: Hex;
  beforeEach(async () => {
    id = await collection();
    await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id } }); // item 1, owned by BOB
  });

  it('refuses at admission: recipient, data shape, collection id, item number', () => {
    const transfer = (data: unknown, to: Address | null = CAROL) => refusal('NFT_TRANSFER', { data, to });
    expect(transfer({ collection: C0, item: 1 }, null)).toBe('NFT_TRANSFER needs the recipient address in to');
    expect(transfer(null)).toBe('NFT_TRANSFER needs a data object with collection, item');
    expect(transfer({ collection: C0 })).toBe('NFT_TRANSFER data.item is required');
    expect(transfer({ item: 1 })).toBe('NFT_TRANSFER data.collection is required');
    expect(transfer({ collection: C0, item: 1, uri: null })).toBe('NFT_TRANSFER data has unknown field "uri"');
    expect(transfer({ collection: 'punk', item: 1 })).toBe(
      'NFT_TRANSFER data.collection must be a collection id (0x + 40 lower-case hex digits)',
    );
    for (const item of [0, -1, 1.5, '1', null, 2 ** 53, Number.MAX_VALUE])
      expect(transfer({ collection: C0, item })).toBe(ITEM);
    expect(transfer({ collection: C0, item: Number.MAX_SAFE_INTEGER })).toBeUndefined();
  });

  it('moves an item from its owner and reports nft.transfer', async () => {
    expect(await w.ok('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: id, item: 1 } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 1, from: BOB, to: CAROL },
    ]);
    expect((await getItem(w.state, id, 1))!.owner).toBe(CAROL);
    await w.fails(
      'NFT_TRANSFER',
      BOB,
      { to: BOB, data: { collection: id, item: 1 } },
      'only the owner of the item or its approved address may transfer it',
    );
  });

  it('lets the approved address transfer once: the approval is cleared', async () => {
    await w.ok('NFT_APPROVE', BOB, { to: DAVE, data: { collection: id, item: 1 } });
    expect(await w.ok('NFT_TRANSFER', DAVE, { to: CAROL, data: { collection: id, item: 1 } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 1, from: BOB, to: CAROL },
    ]);
    expect(await getItem(w.state, id, 1)).toMatchObject({ owner: CAROL, approved: null });
    await w.fails(
      'NFT_TRANSFER',
      DAVE,
      { to: DAVE, data: { collection: id, item: 1 } },
      'only the owner of the item or its approved address may transfer it',
    );
  });

  it('fails for an unknown collection, an unknown or burned item, or a stranger, state untouched', async () => {
    await w.fails('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: C0, item: 1 } }, 'unknown collection');
    await w.fails('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: id, item: 2 } }, 'unknown item');
    await w.fails(
      'NFT_TRANSFER',
      ALICE,
      { to: CAROL, data: { collection: id, item: 1 } },
      'only the owner of the item or its approved address may transfer it',
    );
    await w.ok('NFT_BURN', BOB, { data: { collection: id, item: 1 } });
    await w.fails('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: id, item: 1 } }, 'unknown item');
  });
});

describe('NFT_APPROVE', () => {
  const C0 = `0x${'ef'.repeat(20)}`;
  let id: Hex;
  beforeEach(async () => {
    id = await collection();
    await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id } });
  });

  it('refuses at admission: approving the sender itself, data shape, item number', () => {
    const approve = (data: unknown, to: Address | null = CAROL, from = BOB) =>
      refusal('NFT_APPROVE', { data, to }, from);
    expect(approve({ collection: C0, item: 1 }, BOB)).toBe(
      'NFT_APPROVE cannot approve the owner: to must differ from the sender',
    );
    expect(approve(null)).toBe('NFT_APPROVE needs a data object with collection, item');
    expect(approve({ collection: C0 })).toBe('NFT_APPROVE data.item is required');
    expect(approve({ collection: C0, item: 0 })).toBe('NFT_APPROVE data.item must be a positive safe integer');
    expect(approve({ collection: C0.toUpperCase(), item: 1 })).toBe(
      'NFT_APPROVE data.collection must be a collection id (0x + 40 lower-case hex digits)',
    );
    expect(approve({ collection: C0, item: 1 }, null)).toBeUndefined();
  });

  it('sets and clears the single approval, with no event', async () => {
    expect(await w.ok('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 1 } })).toEqual([]);
    expect((await getItem(w.state, id, 1))!.approved).toBe(CAROL);
    await w.ok('NFT_APPROVE', BOB, { to: DAVE, data: { collection: id, item: 1 } });
    expect((await getItem(w.state, id, 1))!.approved).toBe(DAVE);
    await w.ok('NFT_APPROVE', BOB, { to: null, data: { collection: id, item: 1 } });
    expect((await getItem(w.state, id, 1))!.approved).toBeNull();
    await w.fails(
      'NFT_TRANSFER',
      DAVE,
      { to: DAVE, data: { collection: id, item: 1 } },
      'only the owner of the item or its approved address may transfer it',
    );
  });

  it(
    'fails for an unknown collection or item, ' + 'or a sender other than the item owner (even the approved one)',
    async () => {
      await w.fails('NFT_APPROVE', BOB, { to: CAROL, data: { collection: C0, item: 1 } }, 'unknown collection');
      await w.fails('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 9 } }, 'unknown item');
      await w.fails(
        'NFT_APPROVE',
        ALICE,
        { to: CAROL, data: { collection: id, item: 1 } },
        'only the owner of the item may do this',
      );
      await w.ok('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 1 } });
      await w.fails(
        'NFT_APPROVE',
        CAROL,
        { to: DAVE, data: { collection: id, item: 1 } },
        'only the owner of the item may do this',
      );
      await w.fails(
        'NFT_APPROVE',
        CAROL,
        { to: null, data: { collection: id, item: 1 } },
        'only the owner of the item may do this',
      );
    },
  );
});

describe('NFT_BURN', () => {
  const C0 = `0x${'12'.repeat(20)}`;
  let id: Hex;
  beforeEach(async () => {
    id = await collection();
    await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id, uri: 'u' } });
  });

  it('refuses at admission: a destination, data shape, item number', () => {
    const burn = (data: unknown, to: Address | null = null) => refusal('NFT_BURN', { data, to }, BOB);
    expect(burn({ collection: C0, item: 1 }, CAROL)).toBe('NFT_BURN takes no to address (to must be null)');
    expect(burn([])).toBe('NFT_BURN needs a data object with collection, item');
    expect(burn({ collection: C0, item: -3 })).toBe('NFT_BURN data.item must be a positive safe integer');
    expect(burn({ collection: C0, item: 1, why: 'x' })).toBe('NFT_BURN data has unknown field "why"');
    expect(burn({ collection: C0, item: 1 })).toBeUndefined();
  });

  it('deletes the item, counts it burned and reports nft.transfer to null', async () => {
    expect(await w.ok('NFT_BURN', BOB, { data: { collection: id, item: 1 } })).toEqual([
      { kind: 'nft.transfer', collection: id, item: 1, from: BOB, to: null },
    ]);
    expect(await getItem(w.state, id, 1)).toBeUndefined();
    expect(await w.state.getRecord(itemKey(id, 1))).toBeUndefined();
    expect(await w.state.getRecord(collectionKey(id))).toMatchObject({ minted: 1, burned: 1 });
    await w.fails('NFT_BURN', BOB, { data: { collection: id, item: 1 } }, 'unknown item');
  });

  it(
    'fails for an unknown collection or item, ' + 'or a sender other than the item owner (even the approved one)',
    async () => {
      await w.fails('NFT_BURN', BOB, { data: { collection: C0, item: 1 } }, 'unknown collection');
      await w.fails('NFT_BURN', BOB, { data: { collection: id, item: 2 } }, 'unknown item');
      await w.fails('NFT_BURN', ALICE, { data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
      await w.ok('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 1 } });
      await w.fails('NFT_BURN', CAROL, { data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
      expect(await getItem(w.state, id, 1)).toMatchObject({ owner: BOB, approved: CAROL });
    },
  );
});
