import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/protocol/events';
import { finishBlock } from '../../src/chain/finishBlock';
import { NAME_REGISTRATION_COST, TREASURY_ADDRESS } from '../../src/protocol/params';
import { PARAMS } from '../../src/protocol/governable';
const TREASURY_REWARD = PARAMS.TREASURY_REWARD.default;
import type { Address, SignedTx, TxResult, TxType } from '../../src/protocol/types';
import { assetId } from '../../src/modules/assets/common';
import { getName } from '../../src/modules/names/records';
import { getCollection, getItem, nftSymbolKey } from '../../src/modules/nft/records';
import type { Hex } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { AssetIndex, decodeCursor, putAssetIndexes } from '../../src/storage/assetIndex';
import {
  ALICE,
  ASSET_GENESIS,
  AssetWorld,
  BOB,
  CAROL,
  DAVE,
  envelope,
  PRODUCER,
  validate,
} from '../helpers/assetHarness';
import { MemChain, replayBlocks } from '../helpers/memChain';
import { runModel, type Outcomes } from '../helpers/modelRunner';
import type { StateTrie } from '../../src/state/stateTrie';

/**
 * Model test of NFT721 and the name service: random blocks of NFT_CREATE, NFT_MINT,
 * NFT_TRANSFER, NFT_APPROVE, NFT_BURN, NAME_REGISTER, NAME_UPDATE, NAME_TRANSFER and
 * NAME_RELEASE by random senders (owners, approved addresses, name targets, strangers; known
 * and unknown collections, items, names; burned items; names released and registered again)
 * go through buildBlock. An independent model of the documented rules (docs/PROTOCOL.md,
 * "NFT721" and "Name service") predicts every outcome and its events.
 *
 * Per transaction, a shadow chain (an AssetWorld re-running the built block with applyTx)
 * checks that a failed transaction changed nothing but its sender's nonce, energy and burned
 * fee (state root with the sender's account put back), that a registration moved exactly
 * NAME_REGISTRATION_COST to the treasury, and that a transfer cleared the approval.
 * After each block: every collection, item, symbol and name record equals the model; item
 * ids are sequential per collection and never reused; minted − burned = live items; account
 * balances and nonces and the treasury add up; the node-local asset index (putAssetIndexes
 * on its own MemoryKv) lists the model's collections, live items and names. Finally a
 * replay with applyBlock on a fresh state reproduces every state root.
 */

const USERS: Address[] = [ALICE, BOB, CAROL, DAVE]; // funded senders
const N = USERS.length;
const STRANGER: Address = `0x${'5e'.repeat(20)}`; // never funded: owns and receives only
const PARTIES = [...USERS, STRANGER];
const UNKNOWN_COLLECTION: Hex = `0x${'ee'.repeat(20)}`;
const SYMBOLS = ['ART', 'PIX', 'GEM', 'ORB'];
/** 'bob' is a prefix of 'bob2': index ordering and prefix search meet it. */
const NAMES = ['alice', 'bob', 'bob2', 'carol-1', 'x-y', 'zzz', 'a1b'];
const COST = NAME_REGISTRATION_COST;

type Kind = 'create' | 'mint' | 'transfer' | 'approve' | 'burn' | 'register' | 'update' | 'ntransfer' | 'release';
type Role = 'any' | 'owner' | 'approved' | 'creator';
interface Op {
  kind: Kind;
  sender: number; // 0..N-1, used when the role names nobody who can send
  role: Role; // send as the item's / name's owner, its approved address (or a name's target), the collection's owner
  party: number; // 0..N (N = the stranger): recipient, approved address, target, new owner
  clear: boolean; // approve: to = null (clear); register: to = null (target = sender)
  coll: number; // index into the collections created so far; past the end = an unknown collection
  item: number; // picks an item (see itemOf)
  // among the live items, the burned ones, or any number 1..minted+2 (never-minted included)
  pick: 'live' | 'burned' | 'any';
  name: number; // index into NAMES
  symbol: number; // index into SYMBOLS
  uri: number; // mint: 0 absent, 1 null, 2 a string
  bad: number; // 0 well-formed; 1 unknown data field; 2 a type-specific stateless break
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.oneof(
    { weight: 1, arbitrary: fc.constant<Kind>('create') },
    { weight: 5, arbitrary: fc.constant<Kind>('mint') },
    { weight: 6, arbitrary: fc.constant<Kind>('transfer') },
    { weight: 4, arbitrary: fc.constant<Kind>('approve') },
    { weight: 3, arbitrary: fc.constant<Kind>('burn') },
    { weight: 5, arbitrary: fc.constant<Kind>('register') },
    { weight: 4, arbitrary: fc.constantFrom<Kind>('update', 'ntransfer') },
    { weight: 3, arbitrary: fc.constant<Kind>('release') },
  ),
  sender: fc.nat(N - 1),
  role: fc.oneof(
    { weight: 3, arbitrary: fc.constant<Role>('any') },
    { weight: 4, arbitrary: fc.constant<Role>('owner') },
    { weight: 2, arbitrary: fc.constant<Role>('approved') },
    { weight: 1, arbitrary: fc.constant<Role>('creator') },
  ),
  party: fc.nat(N),
  clear: fc.boolean(),
  coll: fc.oneof({ weight: 9, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.nat(5) }),
  item: fc.nat(20),
  pick: fc.oneof(
    { weight: 5, arbitrary: fc.constant('live' as const) },
    { weight: 1, arbitrary: fc.constant('burned' as const) },
    { weight: 1, arbitrary: fc.constant('any' as const) },
  ),
  name: fc.nat(NAMES.length - 1),
  symbol: fc.nat(SYMBOLS.length - 1),
  uri: fc.nat(2),
  bad: fc.oneof({ weight: 18, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(1, 2) }),
});

const TYPE: Record<Kind, TxType> = {
  create: 'NFT_CREATE',
  mint: 'NFT_MINT',
  transfer: 'NFT_TRANSFER',
  approve: 'NFT_APPROVE',
  burn: 'NFT_BURN',
  register: 'NAME_REGISTER',
  update: 'NAME_UPDATE',
  ntransfer: 'NAME_TRANSFER',
  release: 'NAME_RELEASE',
};

// ---- the model: the documented rules, written independently of the handlers ----

interface MItem {
  owner: Address;
  approved: Address | null;
  uri: string | null;
  mintedAt: number;
}
interface MCollection {
  id: Hex;
  name: string;
  symbol: string;
  owner: Address;
  minted: number;
  burned: number;
  createdAt: number;
  createdBy: Hex;
  items: Map<number, MItem>; // live items only
}
interface MName {
  owner: Address;
  target: Address;
  registeredAt: number;
  registeredBy: Hex;
}

class Model {
  colls = new Map<Hex, MCollection>();
  order: Hex[] = []; // creation order: ops address collections by index
  symbols = new Set<string>();
  names = new Map<string, MName>();
  released = new Set<string>(); // names released at least once
  registrations = 0; // successful NAME_REGISTERs
  nonce = new Map<Address, number>();
  balance = new Map<Address, bigint>();
  // coverage counters (the generator must reach these cases)
  stats = { approvedTransfers: 0, reRegistrations: 0, burnedItemOps: 0, targetDenied: 0, approvedDenied: 0 };

  /** The stateless verdict (admission); unit-tested in test/unit/modules/nft/nft.test.ts and names.test.ts. */
  refusal(tx: SignedTx): string | undefined {
    return validate(tx);
  }

  /** Predicts an admissible transaction's outcome and applies it. */
  apply(tx: SignedTx, h: number): { error?: string; events?: ChainEvent[] } {
    if (this.refusal(tx) !== undefined) throw new Error('the model applies admissible transactions only');
    const d = tx.data as Record<string, unknown>;
    const s = tx.from;
    const fail = (error: string) => ({ error });
    switch (tx.type) {
      case 'NFT_CREATE': {
        const symbol = d.symbol as string;
        if (this.symbols.has(symbol)) return fail('symbol already taken');
        const id = assetId(tx.id);
        this.symbols.add(symbol);
        this.colls.set(id, {
          id,
          name: d.name as string,
          symbol,
          owner: s,
          minted: 0,
          burned: 0,
          createdAt: h,
          createdBy: tx.id,
          items: new Map(),
        });
        this.order.push(id);
        return { events: [{ kind: 'nft.create', collection: id, symbol, name: d.name as string, height: h }] };
      }
      case 'NFT_MINT': {
        const c = this.colls.get(d.collection as Hex);
        if (!c) return fail('unknown collection');
        if (s !== c.owner) return fail('only the owner of the collection may do this');
        const item = ++c.minted;
        c.items.set(item, {
          owner: tx.to!,
          approved: null,
          uri: (d.uri as string | null | undefined) ?? null,
          mintedAt: h,
        });
        return { events: [{ kind: 'nft.transfer', collection: c.id, item, from: null, to: tx.to! }] };
      }
      case 'NFT_TRANSFER':
      case 'NFT_APPROVE':
      case 'NFT_BURN': {
        const c = this.colls.get(d.collection as Hex);
        if (!c) return fail('unknown collection');
        const n = d.item as number;
        const it = c.items.get(n);
        if (!it) {
          if (n <= c.minted) this.stats.burnedItemOps++;
          return fail('unknown item');
        }
        if (tx.type === 'NFT_TRANSFER') {
          if (s !== it.owner && s !== it.approved)
            return fail('only the owner of the item or its approved address may transfer it');
          if (s !== it.owner) this.stats.approvedTransfers++;
          const from = it.owner;
          it.owner = tx.to!;
          it.approved = null;
          return { events: [{ kind: 'nft.transfer', collection: c.id, item: n, from, to: tx.to! }] };
        }
        if (s !== it.owner) {
          if (s === it.approved) this.stats.approvedDenied++;
          return fail('only the owner of the item may do this');
        }
        if (tx.type === 'NFT_APPROVE') {
          it.approved = tx.to;
          return {};
        }
        c.items.delete(n);
        c.burned++;
        return { events: [{ kind: 'nft.transfer', collection: c.id, item: n, from: s, to: null }] };
      }
      case 'NAME_REGISTER': {
        const name = d.name as string;
        if (this.names.has(name)) return fail('name already registered');
        if (this.released.has(name)) this.stats.reRegistrations++;
        const target = tx.to ?? s;
        this.names.set(name, { owner: s, target, registeredAt: h, registeredBy: tx.id });
        this.registrations++;
        this.balance.set(s, this.balance.get(s)! - COST);
        return { events: [{ kind: 'name.register', name, owner: s, target, height: h }] };
      }
      case 'NAME_UPDATE':
      case 'NAME_TRANSFER':
      case 'NAME_RELEASE': {
        const name = d.name as string;
        const rec = this.names.get(name);
        if (!rec) return fail('name not registered');
        if (s !== rec.owner) {
          if (s === rec.target) this.stats.targetDenied++;
          return fail('only the owner of the name may do this');
        }
        if (tx.type === 'NAME_RELEASE') {
          this.names.delete(name);
          this.released.add(name);
          return {
            events: [
              { kind: 'name.release', name, registeredAt: rec.registeredAt, owner: rec.owner, target: rec.target },
            ],
          };
        }
        const previous = { owner: rec.owner, target: rec.target };
        if (tx.type === 'NAME_UPDATE') rec.target = tx.to!;
        else rec.owner = tx.to!;
        return {
          events: [
            {
              kind: 'name.update',
              name,
              owner: rec.owner,
              target: rec.target,
              registeredAt: rec.registeredAt,
              previous,
            },
          ],
        };
      }
    }
    throw new Error(`model has no rule for ${tx.type}`);
  }
}

// ---- building transactions from ops ----

const funded = (a: Address | null | undefined): number => (a ? USERS.indexOf(a) : -1);

/** The item an op addresses in collection `c` (unknown collection: a small number). */
function itemOf(o: Op, c: MCollection | undefined): number {
  if (!c) return 1 + (o.item % 3);
  const live = [...c.items.keys()];
  const burned = Array.from({ length: c.minted }, (_, i) => i + 1).filter((i) => !c.items.has(i));
  if (o.pick === 'live' && live.length > 0) return live[o.item % live.length];
  if (o.pick === 'burned' && burned.length > 0) return burned[o.item % burned.length];
  return 1 + (o.item % (c.minted + 2));
}

/** The sender index and the envelope fields of an op, given the model before the block. */
function shape(o: Op, m: Model): { sender: number; to: Address | null; amount: string; data: Record<string, unknown> } {
  const collId = m.order[o.coll] ?? UNKNOWN_COLLECTION;
  const c = m.colls.get(collId);
  const item = itemOf(o, c);
  const it = c?.items.get(item);
  const rec = m.names.get(NAMES[o.name]);
  let who = -1;
  if (o.kind === 'create' || o.kind === 'register') who = -1;
  else if (o.kind === 'mint') who = o.role === 'owner' || o.role === 'creator' ? funded(c?.owner) : -1;
  else if (o.kind === 'transfer' || o.kind === 'approve' || o.kind === 'burn') {
    who =
      o.role === 'owner'
        ? funded(it?.owner)
        : o.role === 'approved'
          ? funded(it?.approved)
          : o.role === 'creator'
            ? funded(c?.owner)
            : -1;
  } else who = o.role === 'owner' ? funded(rec?.owner) : o.role === 'approved' ? funded(rec?.target) : -1;
  const sender = who >= 0 ? who : o.sender;
  const party = PARTIES[o.party];
  const name = NAMES[o.name];
  let to: Address | null = null;
  let amount = '0';
  let data: Record<string, unknown>;
  switch (o.kind) {
    case 'create':
      data = {
        name: `Collection ${SYMBOLS[o.symbol]}`,
        symbol: o.bad === 2 ? SYMBOLS[o.symbol].toLowerCase() : SYMBOLS[o.symbol],
      };
      break;
    case 'mint':
      to = o.bad === 2 ? null : party;
      data = { collection: collId, ...(o.uri === 0 ? {} : { uri: o.uri === 1 ? null : `ipfs://item-${o.item}` }) };
      break;
    case 'transfer':
      to = party;
      data = { collection: collId, item: o.bad === 2 ? 0 : item };
      break;
    case 'approve':
      to = o.bad === 2 ? USERS[sender] : o.clear ? null : party;
      data = { collection: collId, item };
      break;
    case 'burn':
      data = { collection: o.bad === 2 ? (collId.toUpperCase().replace('0X', '0x') as Hex) : collId, item };
      break;
    case 'register':
      to = o.clear ? null : party;
      amount = o.bad === 2 ? String(COST - 1n) : String(COST);
      data = { name };
      break;
    case 'update':
    case 'ntransfer':
      to = o.bad === 2 ? null : party;
      data = { name };
      break;
    case 'release':
      to = o.bad === 2 ? party : null;
      data = { name };
      break;
  }
  if (o.bad === 1) data = { ...data, memo: 'x' };
  return { sender, to, amount, data };
}

// ---- checks ----

/** Every collection, item, symbol and name record, and the accounts, equal the model. */
async function checkState(s: StateTrie, m: Model, h: number, treasury0: bigint): Promise<void> {
  for (const sym of SYMBOLS) {
    const rec = await s.getRecord<{ id: Hex }>(nftSymbolKey(sym));
    const c = [...m.colls.values()].find((x) => x.symbol === sym);
    expect(rec, `symbol ${sym}`).toEqual(c ? { id: c.id } : undefined);
  }
  expect(await getCollection(s, UNKNOWN_COLLECTION)).toBeUndefined();
  for (const c of m.colls.values()) {
    const rec = await getCollection(s, c.id);
    expect(rec).toEqual({
      id: c.id,
      name: c.name,
      symbol: c.symbol,
      owner: c.owner,
      minted: c.minted,
      burned: c.burned,
      createdAt: c.createdAt,
      createdBy: c.createdBy,
    });
    // ids 1..minted were handed out in order; nothing exists above minted
    let live = 0;
    for (let i = 1; i <= c.minted + 2; i++) {
      const got = await getItem(s, c.id, i);
      const want = c.items.get(i);
      expect(got, `item ${c.symbol}#${i}`).toEqual(want ? { collection: c.id, item: i, ...want } : undefined);
      if (got) {
        live++;
        expect(i).toBeLessThanOrEqual(c.minted);
      }
    }
    expect(live, `${c.symbol}: minted − burned = live items`).toBe(rec!.minted - rec!.burned);
    expect(c.items.size).toBe(c.minted - c.burned);
  }
  for (const name of NAMES) {
    const rec = await getName(s, name);
    const want = m.names.get(name);
    expect(rec, `name ${name}`).toEqual(want ? { name, ...want } : undefined);
    expect(rec?.target, `${name} resolves`).toBe(want?.target);
  }
  for (const u of USERS) {
    const a = (await s.getAccount(u))!;
    expect(a.nonce, `nonce of ${u}`).toBe(m.nonce.get(u));
    expect(a.balance, `balance of ${u}`).toBe(m.balance.get(u));
  }
  expect(await s.getAccount(STRANGER), 'holding items or names creates no account').toBeUndefined();
  // the treasury got its block share and exactly the cost of each successful registration
  expect((await s.getAccount(TREASURY_ADDRESS))!.balance - treasury0).toBe(
    BigInt(h) * TREASURY_REWARD + BigInt(m.registrations) * COST,
  );
}

/**
 * All pages of an index feed with a small page size, following nextBefore (`resume`: what it means as the next
 * `before`).
 */
async function allPages<T, C, B>(
  fetch: (before?: B) => Promise<{ items: T[]; nextBefore: C | null }>,
  resume: (nextBefore: C) => B | undefined,
): Promise<T[]> {
  const out: T[] = [];
  let before: B | undefined;
  for (;;) {
    const p = await fetch(before);
    out.push(...p.items);
    if (p.nextBefore === null) return out;
    before = resume(p.nextBefore);
    expect(before).toBeDefined();
  }
}

/** The asset index, fed every block so far, agrees with the model (hence with state). */
async function checkIndex(index: AssetIndex, m: Model): Promise<void> {
  expect((await index.collections(100)).items, 'collections, newest first').toEqual([...m.order].reverse());
  expect((await index.items(UNKNOWN_COLLECTION, 100)).items).toEqual([]);
  for (const c of m.colls.values()) {
    const live = [...c.items.keys()].sort((a, b) => b - a);
    expect((await index.items(c.id, 1000)).items, `live items of ${c.symbol}`).toEqual(live);
    expect(
      await allPages(
        (b?: Uint8Array) => index.items(c.id, 2, b),
        (cursor) => decodeCursor('items', cursor),
      ),
    ).toEqual(live);
  }
  const names = [...m.names.entries()].map(([name, r]) => ({
    name,
    owner: r.owner,
    target: r.target,
    registeredAt: r.registeredAt,
  }));
  const byRegistration = [...names].sort((a, b) => b.registeredAt - a.registeredAt || (a.name < b.name ? 1 : -1));
  expect((await index.names(100)).items, 'names, newest registration first').toEqual(byRegistration);
  expect(
    await allPages(
      (b?: number) => index.names(2, b),
      (height) => height,
    ),
  ).toEqual(byRegistration);
  const byName = [...names].sort((a, b) => (a.name < b.name ? -1 : 1));
  expect(await index.searchNames('', 100), 'names in name order').toEqual(byName);
  expect(await index.searchNames('bo', 100)).toEqual(byName.filter((n) => n.name.startsWith('bo')));
}

/**
 * Re-runs the built block transaction by transaction on the shadow chain: same results; a
 * failed transaction changed only its sender's account (nonce + 1, the burned fee, energy);
 * a success moved no native coins except a registration's cost to the treasury; a transfer
 * cleared the approval. Ends with the block's finish and the producer's root.
 */
async function checkPerTx(
  shadow: AssetWorld,
  h: number,
  txs: SignedTx[],
  results: TxResult[],
  root: Hex,
): Promise<void> {
  const s = shadow.state;
  shadow.height = h;
  let burned = 0n;
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i];
    const rootBefore = s.root();
    const before = (await s.getAccount(tx.from))!;
    const treasuryBefore = (await s.getAccount(TREASURY_ADDRESS))?.balance ?? 0n;
    const r = await shadow.apply(tx); // also checks energy used + burned = the type's cost
    expect(r).toEqual(results[i]);
    burned += BigInt(r.burned);
    const after = (await s.getAccount(tx.from))!;
    expect(after.nonce).toBe(before.nonce + 1);
    const treasuryAfter = (await s.getAccount(TREASURY_ADDRESS))?.balance ?? 0n;
    if (r.status === 'failed') {
      expect(r.events, 'a failed transaction reports no events').toBeUndefined();
      expect(after.balance, 'a failure costs only the burned fee').toBe(before.balance - BigInt(r.burned));
      s.checkpoint();
      await s.putAccount(tx.from, before);
      expect(s.root(), `failed ${tx.type} (${r.error}) changed only the sender's account`).toBe(rootBefore);
      await s.revert();
    } else {
      const paid = tx.type === 'NAME_REGISTER' ? COST : 0n;
      expect(after.balance).toBe(before.balance - BigInt(r.burned) - paid);
      expect(treasuryAfter - treasuryBefore, 'the treasury gets exactly the registration cost').toBe(paid);
      if (tx.type === 'NFT_TRANSFER') {
        const d = tx.data as { collection: Hex; item: number };
        const it = (await getItem(s, d.collection, d.item))!;
        expect({ owner: it.owner, approved: it.approved }, 'a transfer clears the approval').toEqual({
          owner: tx.to,
          approved: null,
        });
      }
    }
  }
  await finishBlock(s, { height: h, producer: PRODUCER, burned });
  expect(s.root(), 'shadow chain root').toBe(root);
}

// ---- running blocks ----

/**
 * Runs `blocksOps` through buildBlock against the model; counts the ok, failed and refused transactions and the model's
 * cases.
 */
async function runChain(blocksOps: Op[][], outcomes: Outcomes): Promise<MemChain> {
  const c = await MemChain.open(ASSET_GENESIS, PRODUCER);
  const shadow = await AssetWorld.create({ autoHeight: false });
  const idxKv = new MemoryKv();
  const index = new AssetIndex(idxKv);
  const m = new Model();
  for (const u of USERS) {
    const a = (await c.state.getAccount(u))!;
    m.nonce.set(u, a.nonce);
    m.balance.set(u, a.balance);
  }
  const treasury0 = (await c.state.getAccount(TREASURY_ADDRESS))?.balance ?? 0n;
  const nonces = USERS.map((u) => m.nonce.get(u)!);
  const mintedIds = new Set<string>(); // collection/item ever minted: numbers are never reused
  for (let h = 1; h <= blocksOps.length; h++) {
    const offered: SignedTx[] = [];
    const refused = new Map<Hex, string>();
    for (const o of blocksOps[h - 1]) {
      const { sender, to, amount, data } = shape(o, m);
      const tx = envelope(TYPE[o.kind], USERS[sender], { to, amount, data, nonce: nonces[sender] });
      const reason = m.refusal(tx);
      // a refused transaction never takes its nonce; it stays queued so block building meets (and drops) it
      if (reason === undefined) nonces[sender]++;
      else refused.set(tx.id, reason);
      offered.push(tx);
    }
    const { built, block } = await c.buildAdmitted(offered, refused);
    outcomes.count('refused', refused.size);
    for (let i = 0; i < built.txs.length; i++) {
      const tx = built.txs[i];
      const r = built.results[i];
      const want = m.apply(tx, h);
      expect({ type: tx.type, status: r.status, error: r.error, events: r.events }).toEqual({
        type: tx.type,
        status: want.error === undefined ? 'success' : 'failed',
        error: want.error,
        events: want.events?.length ? want.events : undefined,
      });
      m.nonce.set(tx.from, m.nonce.get(tx.from)! + 1);
      m.balance.set(tx.from, m.balance.get(tx.from)! - BigInt(r.burned));
      for (const e of r.events ?? []) {
        if (e.kind !== 'nft.transfer' || e.from !== null) continue;
        const k = `${e.collection}/${e.item}`;
        expect(mintedIds.has(k), `item number ${k} reused`).toBe(false);
        mintedIds.add(k);
      }
      outcomes.count(r.status === 'failed' ? 'failed' : 'ok');
    }
    await checkPerTx(shadow, h, built.txs, built.results, c.roots.at(-1)!);
    await checkState(c.state, m, h, treasury0);
    const batch = idxKv.batch();
    putAssetIndexes(batch, block);
    await idxKv.write(batch);
    await checkIndex(index, m);
  }
  for (const [k, n] of Object.entries(m.stats)) outcomes.count(k, n);
  return c;
}

const seedOp = (o: Partial<Op>): Op => ({
  kind: 'transfer',
  sender: 0,
  role: 'any',
  party: 0,
  clear: false,
  coll: 0,
  item: 0,
  pick: 'live',
  name: 0,
  symbol: 0,
  uri: 0,
  bad: 0,
  ...o,
});
/**
 * Block 1: Alice, Bob and Carol create ART, PIX and GEM; Dave registers "alice" for Alice.
 * Block 2: each collection mints to every party (the stranger included); Bob and Carol
 * register names. Block 3: item owners approve the next user, so later blocks meet approved
 * senders.
 */
const SEED: Op[][] = [
  [
    ...[0, 1, 2].map((i) => seedOp({ kind: 'create', sender: i, symbol: i })),
    seedOp({ kind: 'register', sender: 3, name: 0, party: 0 }),
  ],
  [
    ...[0, 1, 2].flatMap((coll) =>
      PARTIES.map((_, party) => seedOp({ kind: 'mint', role: 'creator', coll, party, uri: party % 3 })),
    ),
    seedOp({ kind: 'register', sender: 1, name: 1, clear: true }),
    seedOp({ kind: 'register', sender: 2, name: 5, party: N }),
  ],
  [0, 1, 2].flatMap((coll) =>
    [0, 1, 2, 3].map((item) => seedOp({ kind: 'approve', role: 'owner', coll, item, party: (item + 1) % N })),
  ),
];

describe('NFT721 and name-service model', () => {
  it('state and index follow the model, failures change only the sender, ' +
    'registrations pay the treasury, and replays reproduce every root', async () => {
    await runModel({
      inputs: fc.array(fc.array(opArb, { minLength: 5, maxLength: 25 }), { minLength: 2, maxLength: 6 }),
      run: (ops, outcomes) => runChain([...SEED, ...ops], outcomes),
      replays: [
        { name: 'the blocks imported on a fresh state', roots: (_, c) => replayBlocks(ASSET_GENESIS, c.blocks) },
      ],
      numRuns: 40,
      // the generator exercises every outcome, and the cases the rules single out, in quantity
      moreThan: {
        ok: 1200,
        failed: 500,
        refused: 50,
        approvedTransfers: 5,
        reRegistrations: 5,
        burnedItemOps: 5,
        targetDenied: 5,
        approvedDenied: 5,
      },
    });
  }, 60_000);
});
