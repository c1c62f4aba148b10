import { beforeEach, describe, expect, it } from 'vitest';
import { applyTx } from '../../src/chain/applyTx';
import type { ChainEvent } from '../../src/chain/events';
import type { ExecState } from '../../src/chain/execState';
import { applyGenesis } from '../../src/chain/genesis';
import { CHAIN_ID, ENERGY_COST, MAX_NFT_URI_BYTES } from '../../src/chain/params';
import type { AccountState, Address, SignedTx, TxResult, TxType } from '../../src/chain/types';
import { keccakHex } from '../../src/crypto/hash';
import { assetId } from '../../src/modules/assets/common';
import { NFT_HANDLERS } from '../../src/modules/nft';
import { collectionKey, getCollection, getItem, itemKey, nftSymbolKey, type CollectionRecord } from '../../src/modules/nft/records';
import { HANDLERS } from '../../src/modules/registry';
import { COIN } from '../../src/primitives/amount';
import { toHex, utf8, type Hex } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';

// ---- harness: unsigned envelopes (execution does not verify signatures) over StateTrie/MemoryKv.
// Every record and account write goes through a tracking wrapper, so "state unchanged" can be
// checked over everything the test world has ever written, including what a failure tried to write.

const addr = (i: number): Address => `0x${(i + 1).toString(16).padStart(40, '0')}`;
const [ALICE, BOB, CAROL, DAVE] = [addr(0), addr(1), addr(2), addr(3)];
const PRODUCER = addr(99);

interface TxOpts { to?: Address | null; amount?: string; data?: unknown; nonce?: number }
let seq = 0;
function envelope(type: TxType, from: Address, { to = null, amount = '0', data = null, nonce = 0 }: TxOpts = {}): SignedTx {
  const payload = { chainId: CHAIN_ID, type, from, to, amount, nonce, timestamp: ++seq, fee: String(COIN), data };
  return { ...payload, id: keccakHex(utf8(JSON.stringify(payload))), publicKeys: { secp256k1: '0x', mldsa44: toHex(utf8(`key-${from}`)) }, signatures: { secp256k1: '0x', mldsa44: '0x' } };
}

class World {
  readonly keys = new Set<string>();
  readonly addrs = new Set<Address>();
  height = 0;
  state!: ExecState;

  static async create(): Promise<World> {
    const w = new World();
    const s = await StateTrie.open(new MemoryKv(), null);
    w.state = {
      getAccount: (a) => s.getAccount(a),
      putAccount: (a, v) => (w.addrs.add(a), s.putAccount(a, v)),
      deleteAccount: (a) => (w.addrs.add(a), s.deleteAccount(a)),
      getRecord: <T,>(k: string) => s.getRecord<T>(k),
      putRecord: (k, v) => (w.keys.add(k), s.putRecord(k, v)),
      deleteRecord: (k) => (w.keys.add(k), s.deleteRecord(k)),
      checkpoint: () => s.checkpoint(),
      commit: () => s.commit(),
      revert: () => s.revert(),
      root: () => s.root(),
    };
    await applyGenesis(w.state, {
      chainId: CHAIN_ID, timestamp: 1,
      accounts: [...[ALICE, BOB, CAROL, DAVE].map((address) => ({ address, balance: String(1_000n * COIN) })), { address: PRODUCER, balance: '0', staked: '5000000', isValidator: true }],
    });
    return w;
  }

  async tx(type: TxType, from: Address, opts: TxOpts = {}): Promise<SignedTx> {
    return envelope(type, from, { ...opts, nonce: (await this.state.getAccount(from))!.nonce });
  }

  async apply(tx: SignedTx): Promise<TxResult> {
    this.height += 1;
    const v = await applyTx(this.state, tx, { height: this.height, timestamp: this.height * 1000, producer: PRODUCER });
    if (v.kind !== 'applied') throw new Error(`not applied: ${v.reason}`);
    // the type's energy is charged whatever the outcome (from the allowance, the rest burned)
    expect(BigInt(v.result.energyUsed) + BigInt(v.result.burned)).toBe(ENERGY_COST[tx.type]);
    return v.result;
  }

  /** Applies a transaction that must succeed; returns its events. */
  async ok(type: TxType, from: Address, opts: TxOpts = {}): Promise<ChainEvent[]> {
    const tx = await this.tx(type, from, opts);
    expect(HANDLERS[type].validate(tx)).toBeUndefined();
    const r = await this.apply(tx);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe('success');
    return r.events ?? [];
  }

  /** Everything ever written, with each account's envelope bookkeeping (nonce, energy, bound key) blanked. */
  private async snapshot(): Promise<{ records: Map<string, unknown>; accounts: Map<Address, AccountState | undefined> }> {
    const records = new Map<string, unknown>();
    for (const k of this.keys) records.set(k, await this.state.getRecord(k));
    const accounts = new Map<Address, AccountState | undefined>();
    for (const a of this.addrs) {
      const acc = await this.state.getAccount(a);
      accounts.set(a, acc && { ...acc, nonce: 0, energy: 0n, energyHeight: 0, mldsaKeyHash: null });
    }
    return { records, accounts };
  }

  /** Applies a transaction that passes admission but must fail with `reason`, leaving state as it was. */
  async fails(type: TxType, from: Address, opts: TxOpts, reason: string, { admitted = true } = {}): Promise<void> {
    const tx = await this.tx(type, from, opts);
    if (admitted) expect(HANDLERS[type].validate(tx)).toBeUndefined();
    const before = await this.snapshot();
    const known = new Set(this.keys);
    const r = await this.apply(tx);
    expect(r.status).toBe('failed');
    expect(r.error).toBe(reason);
    expect(r.events).toBeUndefined();
    const after = await this.snapshot();
    const payer = after.accounts.get(from)!;
    payer.balance += BigInt(r.burned); // the only balance change a failure makes
    for (const [k, v] of after.records) expect(v, k).toEqual(known.has(k) ? before.records.get(k) : undefined);
    for (const [a, v] of after.accounts) expect(v, a).toEqual(before.accounts.get(a));
  }
}

const refusal = (type: TxType, opts: TxOpts, from: Address = ALICE): string | undefined => HANDLERS[type].validate(envelope(type, from, opts));

// ---- tests

let w: World;
beforeEach(async () => {
  w = await World.create();
});

/** Creates a collection owned by `owner`; returns its id. */
async function collection(owner = ALICE, symbol = 'PUNK', name = 'Punks'): Promise<Hex> {
  const tx = await w.tx('NFT_CREATE', owner, { data: { name, symbol } });
  expect((await w.apply(tx)).status).toBe('success');
  return assetId(tx.id);
}

describe('NFT721 handlers', () => {
  it('are registered for exactly the five types, with ENERGY_COST as their energy', () => {
    expect(Object.keys(NFT_HANDLERS).sort()).toEqual(['NFT_APPROVE', 'NFT_BURN', 'NFT_CREATE', 'NFT_MINT', 'NFT_TRANSFER']);
    for (const [type, h] of Object.entries(NFT_HANDLERS)) {
      expect(h.type).toBe(type);
      expect(HANDLERS[h.type]).toBe(h);
      expect(h.maxEnergy(envelope(h.type, ALICE))).toBe(ENERGY_COST[type]);
    }
  });

  it('refuse the Ethereum envelope and a native amount for every type', () => {
    for (const type of Object.keys(NFT_HANDLERS) as TxType[]) {
      const eth = { ...envelope(type, ALICE), envelope: 'eth' } as unknown as SignedTx;
      expect(HANDLERS[type].validate(eth)).toBe(`${type} is a hybrid-envelope type`);
      expect(refusal(type, { amount: '1' })).toBe(`${type} moves no native coins: amount must be "0"`);
    }
  });

  it('re-check the stateless rules at execution (a block from a peer skipped admission)', async () => {
    const id = await collection();
    await w.fails('NFT_MINT', ALICE, { to: BOB, data: { collection: id, uri: 7 } }, `NFT_MINT data.uri must be a string of at most ${MAX_NFT_URI_BYTES} UTF-8 bytes, or null`, { admitted: false });
    await w.fails('NFT_CREATE', ALICE, { data: { name: 'X', symbol: 'x' } }, 'NFT_CREATE data.symbol must be an upper-case letter followed by at most 11 upper-case letters or digits', { admitted: false });
  });
});

describe('NFT_CREATE', () => {
  const create = (data: unknown, to: Address | null = null) => refusal('NFT_CREATE', { data, to });
  const NAME = 'NFT_CREATE data.name must be a string of 1 to 64 UTF-8 bytes';
  const SYMBOL = 'NFT_CREATE data.symbol must be an upper-case letter followed by at most 11 upper-case letters or digits';

  it('refuses at admission: destination, data shape, name, symbol', () => {
    expect(create({ name: 'A', symbol: 'A' }, BOB)).toBe('NFT_CREATE takes no to address (to must be null)');
    expect(create(null)).toBe('NFT_CREATE needs a data object with name, symbol');
    expect(create(['A', 'A'])).toBe('NFT_CREATE needs a data object with name, symbol');
    expect(create('x')).toBe('NFT_CREATE needs a data object with name, symbol');
    expect(create({ name: 'A' })).toBe('NFT_CREATE data.symbol is required');
    expect(create({ symbol: 'A' })).toBe('NFT_CREATE data.name is required');
    expect(create({ name: 'A', symbol: 'A', owner: BOB })).toBe('NFT_CREATE data has unknown field "owner"');
    for (const name of ['', 'é'.repeat(32) + 'x', 'x'.repeat(65), 5, null]) expect(create({ name, symbol: 'A' })).toBe(NAME);
    for (const name of ['a\nb', 'tab\there', 'del\u007f', 'c1\u0085']) expect(create({ name, symbol: 'A' })).toBe('NFT_CREATE data.name must not contain control characters');
    for (const symbol of ['', 'abc', 'Abc', '1AB', 'A-B', 'ABCDEFGHIJKLM', 'A B', 7]) expect(create({ name: 'N', symbol })).toBe(SYMBOL);
    for (const [name, symbol] of [['é'.repeat(32), 'A'], ['x'.repeat(64), 'ABCDEFGHIJKL'], ['Émoji 🎨', 'A1']]) expect(create({ name, symbol })).toBeUndefined();
  });

  it('creates a collection owned by the sender, id from the transaction id, and reports nft.create', async () => {
    const tx = await w.tx('NFT_CREATE', ALICE, { data: { name: 'Punks', symbol: 'PUNK' } });
    const r = await w.apply(tx);
    expect(r.status).toBe('success');
    const id = assetId(tx.id);
    expect(r.events).toEqual([{ kind: 'nft.create', collection: id, symbol: 'PUNK', name: 'Punks', height: w.height }]);
    expect(await getCollection(w.state, id)).toEqual<CollectionRecord>({ id, name: 'Punks', symbol: 'PUNK', owner: ALICE, minted: 0, burned: 0, createdAt: w.height, createdBy: tx.id });
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
    for (const collection of [C0.toUpperCase(), `0x${'AB'.repeat(20)}`, `0x${'ab'.repeat(19)}`, `0x${'ab'.repeat(21)}`, 'ab'.repeat(20), 1]) expect(mint({ collection })).toBe(COLL);
    for (const uri of ['x'.repeat(MAX_NFT_URI_BYTES + 1), 'é'.repeat(MAX_NFT_URI_BYTES / 2) + 'x', 1, {}, ['u']]) expect(mint({ collection: C0, uri })).toBe(URI);
    for (const uri of ['x'.repeat(MAX_NFT_URI_BYTES), 'é'.repeat(MAX_NFT_URI_BYTES / 2), '', null]) expect(mint({ collection: C0, uri })).toBeUndefined();
    expect(mint({ collection: C0 })).toBeUndefined();
  });

  it('mints sequential items from 1 to the recipient, reporting nft.transfer from null', async () => {
    const id = await collection();
    expect(await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id, uri: 'ipfs://one' } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 1, from: null, to: BOB }]);
    const mintedAt = w.height;
    expect(await w.ok('NFT_MINT', ALICE, { to: ALICE, data: { collection: id } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 2, from: null, to: ALICE }]);
    expect(await w.ok('NFT_MINT', ALICE, { to: CAROL, data: { collection: id, uri: null } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 3, from: null, to: CAROL }]);
    expect(await getItem(w.state, id, 1)).toEqual({ collection: id, item: 1, owner: BOB, uri: 'ipfs://one', approved: null, mintedAt });
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
    expect(await w.ok('NFT_MINT', ALICE, { to: BOB, data: { collection: id } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 3, from: null, to: BOB }]);
    expect(await getItem(w.state, id, 2)).toBeUndefined();
    expect(await getCollection(w.state, id)).toMatchObject({ minted: 3, burned: 1 });
  });

  it('fails for an unknown collection or a sender other than the collection owner', async () => {
    const id = await collection();
    await w.fails('NFT_MINT', ALICE, { to: BOB, data: { collection: C0 } }, 'unknown collection');
    await w.fails('NFT_MINT', BOB, { to: BOB, data: { collection: id } }, 'only the owner of the collection may do this');
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
    expect(transfer({ collection: 'punk', item: 1 })).toBe('NFT_TRANSFER data.collection must be a collection id (0x + 40 lower-case hex digits)');
    for (const item of [0, -1, 1.5, '1', null, 2 ** 53, Number.MAX_VALUE]) expect(transfer({ collection: C0, item })).toBe(ITEM);
    expect(transfer({ collection: C0, item: Number.MAX_SAFE_INTEGER })).toBeUndefined();
  });

  it('moves an item from its owner and reports nft.transfer', async () => {
    expect(await w.ok('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: id, item: 1 } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 1, from: BOB, to: CAROL }]);
    expect((await getItem(w.state, id, 1))!.owner).toBe(CAROL);
    await w.fails('NFT_TRANSFER', BOB, { to: BOB, data: { collection: id, item: 1 } }, 'only the owner of the item or its approved address may transfer it');
  });

  it('lets the approved address transfer once: the approval is cleared', async () => {
    await w.ok('NFT_APPROVE', BOB, { to: DAVE, data: { collection: id, item: 1 } });
    expect(await w.ok('NFT_TRANSFER', DAVE, { to: CAROL, data: { collection: id, item: 1 } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 1, from: BOB, to: CAROL }]);
    expect(await getItem(w.state, id, 1)).toMatchObject({ owner: CAROL, approved: null });
    await w.fails('NFT_TRANSFER', DAVE, { to: DAVE, data: { collection: id, item: 1 } }, 'only the owner of the item or its approved address may transfer it');
  });

  it('fails for an unknown collection, an unknown or burned item, or a stranger, state untouched', async () => {
    await w.fails('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: C0, item: 1 } }, 'unknown collection');
    await w.fails('NFT_TRANSFER', BOB, { to: CAROL, data: { collection: id, item: 2 } }, 'unknown item');
    await w.fails('NFT_TRANSFER', ALICE, { to: CAROL, data: { collection: id, item: 1 } }, 'only the owner of the item or its approved address may transfer it');
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
    const approve = (data: unknown, to: Address | null = CAROL, from = BOB) => refusal('NFT_APPROVE', { data, to }, from);
    expect(approve({ collection: C0, item: 1 }, BOB)).toBe('NFT_APPROVE cannot approve the owner: to must differ from the sender');
    expect(approve(null)).toBe('NFT_APPROVE needs a data object with collection, item');
    expect(approve({ collection: C0 })).toBe('NFT_APPROVE data.item is required');
    expect(approve({ collection: C0, item: 0 })).toBe('NFT_APPROVE data.item must be a positive safe integer');
    expect(approve({ collection: C0.toUpperCase(), item: 1 })).toBe('NFT_APPROVE data.collection must be a collection id (0x + 40 lower-case hex digits)');
    expect(approve({ collection: C0, item: 1 }, null)).toBeUndefined();
  });

  it('sets and clears the single approval, with no event', async () => {
    expect(await w.ok('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 1 } })).toEqual([]);
    expect((await getItem(w.state, id, 1))!.approved).toBe(CAROL);
    await w.ok('NFT_APPROVE', BOB, { to: DAVE, data: { collection: id, item: 1 } });
    expect((await getItem(w.state, id, 1))!.approved).toBe(DAVE);
    await w.ok('NFT_APPROVE', BOB, { to: null, data: { collection: id, item: 1 } });
    expect((await getItem(w.state, id, 1))!.approved).toBeNull();
    await w.fails('NFT_TRANSFER', DAVE, { to: DAVE, data: { collection: id, item: 1 } }, 'only the owner of the item or its approved address may transfer it');
  });

  it('fails for an unknown collection or item, or a sender other than the item owner (even the approved one)', async () => {
    await w.fails('NFT_APPROVE', BOB, { to: CAROL, data: { collection: C0, item: 1 } }, 'unknown collection');
    await w.fails('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 9 } }, 'unknown item');
    await w.fails('NFT_APPROVE', ALICE, { to: CAROL, data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
    await w.ok('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 1 } });
    await w.fails('NFT_APPROVE', CAROL, { to: DAVE, data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
    await w.fails('NFT_APPROVE', CAROL, { to: null, data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
  });
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
    expect(await w.ok('NFT_BURN', BOB, { data: { collection: id, item: 1 } })).toEqual([{ kind: 'nft.transfer', collection: id, item: 1, from: BOB, to: null }]);
    expect(await getItem(w.state, id, 1)).toBeUndefined();
    expect(await w.state.getRecord(itemKey(id, 1))).toBeUndefined();
    expect(await w.state.getRecord(collectionKey(id))).toMatchObject({ minted: 1, burned: 1 });
    await w.fails('NFT_BURN', BOB, { data: { collection: id, item: 1 } }, 'unknown item');
  });

  it('fails for an unknown collection or item, or a sender other than the item owner (even the approved one)', async () => {
    await w.fails('NFT_BURN', BOB, { data: { collection: C0, item: 1 } }, 'unknown collection');
    await w.fails('NFT_BURN', BOB, { data: { collection: id, item: 2 } }, 'unknown item');
    await w.fails('NFT_BURN', ALICE, { data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
    await w.ok('NFT_APPROVE', BOB, { to: CAROL, data: { collection: id, item: 1 } });
    await w.fails('NFT_BURN', CAROL, { data: { collection: id, item: 1 } }, 'only the owner of the item may do this');
    expect(await getItem(w.state, id, 1)).toMatchObject({ owner: BOB, approved: CAROL });
  });
});
