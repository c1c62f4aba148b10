import { beforeEach, describe, expect, it } from 'vitest';
import { applyTx } from '../../src/chain/applyTx';
import type { ChainEvent } from '../../src/chain/events';
import type { ExecState } from '../../src/chain/execState';
import { applyGenesis } from '../../src/chain/genesis';
import { CHAIN_ID, ENERGY_COST, NAME_REGISTRATION_COST, TREASURY_ADDRESS } from '../../src/chain/params';
import type { AccountState, Address, SignedTx, TxResult, TxType } from '../../src/chain/types';
import { keccakHex } from '../../src/crypto/hash';
import { NAME_HANDLERS } from '../../src/modules/names';
import { getName, nameKey, type NameRecord } from '../../src/modules/names/records';
import { HANDLERS } from '../../src/modules/registry';
import { COIN } from '../../src/primitives/amount';
import { toHex, utf8 } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';

// The harness is the same as test/unit/nft.test.ts's (a shared test helper would hold it).
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

const COST = NAME_REGISTRATION_COST.toString();
const FEE_REFUSAL = `NAME_REGISTER amount must be exactly the registration cost, ${COST} base units`;
const SHAPE = (type: TxType) => `${type} data.name must be 3 to 32 characters of a-z, 0-9 and "-", not starting or ending with "-"`;
const LOWER = (type: TxType) => `${type} data.name must be lower case (names are not case-folded)`;

let w: World;
beforeEach(async () => {
  w = await World.create();
});

const balance = async (a: Address): Promise<bigint> => (await w.state.getAccount(a))?.balance ?? 0n;

/** Registers `name` for `owner` (target `to`, or the owner); returns the registration height. */
async function register(name: string, owner = ALICE, to: Address | null = null): Promise<number> {
  await w.ok('NAME_REGISTER', owner, { to, amount: COST, data: { name } });
  return w.height;
}

describe('name-service handlers', () => {
  it('are registered for exactly the four types, with ENERGY_COST as their energy', () => {
    expect(Object.keys(NAME_HANDLERS).sort()).toEqual(['NAME_REGISTER', 'NAME_RELEASE', 'NAME_TRANSFER', 'NAME_UPDATE']);
    for (const [type, h] of Object.entries(NAME_HANDLERS)) {
      expect(h.type).toBe(type);
      expect(HANDLERS[h.type]).toBe(h);
      expect(h.maxEnergy(envelope(h.type, ALICE))).toBe(ENERGY_COST[type]);
    }
  });

  it('refuse the Ethereum envelope, a bad data object and a malformed name for every type', () => {
    for (const type of Object.keys(NAME_HANDLERS) as TxType[]) {
      const to = type === 'NAME_RELEASE' ? null : BOB;
      const amount = type === 'NAME_REGISTER' ? COST : '0';
      const eth = { ...envelope(type, ALICE, { to, amount, data: { name: 'abc' } }), envelope: 'eth' } as unknown as SignedTx;
      expect(HANDLERS[type].validate(eth)).toBe(`${type} is a hybrid-envelope type`);
      const check = (data: unknown) => refusal(type, { to, amount, data });
      expect(check(null)).toBe(`${type} needs a data object with name`);
      expect(check(['abc'])).toBe(`${type} needs a data object with name`);
      expect(check({})).toBe(`${type} data.name is required`);
      expect(check({ name: 'abc', target: BOB })).toBe(`${type} data has unknown field "target"`);
      for (const name of ['ab', 'a'.repeat(33), '-abc', 'abc-', '-', '---', 'a_b', 'ab c', 'a.b', 'héllo', 'abc\n', '', 123, null]) expect(check({ name }), String(name)).toBe(SHAPE(type));
      for (const name of ['Alice', 'ABC', 'my-Name']) expect(check({ name })).toBe(LOWER(type));
      for (const name of ['abc', 'a'.repeat(32), 'a-b', 'a--b', '0-9', '123', 'x1-y2']) expect(check({ name }), name).toBeUndefined();
    }
  });

  it('re-check the stateless rules at execution (a block from a peer skipped admission)', async () => {
    await w.fails('NAME_REGISTER', ALICE, { amount: '1', data: { name: 'alice' } }, FEE_REFUSAL, { admitted: false });
    await w.fails('NAME_UPDATE', ALICE, { to: BOB, data: { name: 'Alice' } }, LOWER('NAME_UPDATE'), { admitted: false });
  });
});

describe('NAME_REGISTER', () => {
  it('refuses at admission an amount other than the registration cost', () => {
    for (const amount of ['0', '1', (NAME_REGISTRATION_COST - 1n).toString(), (NAME_REGISTRATION_COST + 1n).toString(), (NAME_REGISTRATION_COST * 2n).toString()]) {
      expect(refusal('NAME_REGISTER', { amount, data: { name: 'alice' } })).toBe(FEE_REFUSAL);
    }
    expect(FEE_REFUSAL).toContain('10000000 base units');
    expect(refusal('NAME_REGISTER', { amount: COST, data: { name: 'alice' } })).toBeUndefined();
    expect(refusal('NAME_REGISTER', { amount: COST, to: BOB, data: { name: 'alice' } })).toBeUndefined();
  });

  it('registers a free name to the sender, pays the cost to the treasury and reports name.register', async () => {
    const [aliceBefore, treasuryBefore] = [await balance(ALICE), await balance(TREASURY_ADDRESS)];
    const tx = await w.tx('NAME_REGISTER', ALICE, { amount: COST, data: { name: 'alice' } });
    const r = await w.apply(tx);
    expect(r.status).toBe('success');
    expect(r.events).toEqual([{ kind: 'name.register', name: 'alice', owner: ALICE, target: ALICE, height: w.height }]);
    expect(await getName(w.state, 'alice')).toEqual<NameRecord>({ name: 'alice', owner: ALICE, target: ALICE, registeredAt: w.height, registeredBy: tx.id });
    expect(await balance(TREASURY_ADDRESS)).toBe(treasuryBefore + NAME_REGISTRATION_COST);
    expect(await balance(ALICE)).toBe(aliceBefore - NAME_REGISTRATION_COST - BigInt(r.burned));
  });

  it('resolves to the target given in to', async () => {
    const height = await register('shop', ALICE, BOB);
    expect(await getName(w.state, 'shop')).toMatchObject({ owner: ALICE, target: BOB, registeredAt: height });
    expect(await balance(TREASURY_ADDRESS)).toBe(NAME_REGISTRATION_COST);
  });

  it('fails on a registered name, taking no payment and leaving state untouched', async () => {
    await register('alice');
    await w.fails('NAME_REGISTER', BOB, { amount: COST, data: { name: 'alice' } }, 'name already registered');
    await w.fails('NAME_REGISTER', ALICE, { amount: COST, to: BOB, data: { name: 'alice' } }, 'name already registered');
    expect(await balance(TREASURY_ADDRESS)).toBe(NAME_REGISTRATION_COST);
    expect((await getName(w.state, 'alice'))!.owner).toBe(ALICE);
  });
});

describe('NAME_UPDATE', () => {
  it('refuses at admission a missing target or a native amount', () => {
    expect(refusal('NAME_UPDATE', { data: { name: 'alice' } })).toBe('NAME_UPDATE needs the new target address in to');
    expect(refusal('NAME_UPDATE', { to: BOB, amount: COST, data: { name: 'alice' } })).toBe('NAME_UPDATE moves no native coins: amount must be "0"');
  });

  it('points the name at a new target and reports name.update', async () => {
    const registeredAt = await register('alice');
    expect(await w.ok('NAME_UPDATE', ALICE, { to: CAROL, data: { name: 'alice' } })).toEqual([{ kind: 'name.update', name: 'alice', owner: ALICE, target: CAROL, registeredAt }]);
    expect(await getName(w.state, 'alice')).toMatchObject({ owner: ALICE, target: CAROL, registeredAt });
  });

  it('fails for an unregistered name or a sender other than the owner (even the target)', async () => {
    await w.fails('NAME_UPDATE', ALICE, { to: BOB, data: { name: 'nobody' } }, 'name not registered');
    await register('alice', ALICE, BOB);
    await w.fails('NAME_UPDATE', BOB, { to: BOB, data: { name: 'alice' } }, 'only the owner of the name may do this');
    await w.fails('NAME_UPDATE', CAROL, { to: CAROL, data: { name: 'alice' } }, 'only the owner of the name may do this');
  });
});

describe('NAME_TRANSFER', () => {
  it('refuses at admission a missing new owner or a native amount', () => {
    expect(refusal('NAME_TRANSFER', { data: { name: 'alice' } })).toBe('NAME_TRANSFER needs the new owner address in to');
    expect(refusal('NAME_TRANSFER', { to: BOB, amount: '5', data: { name: 'alice' } })).toBe('NAME_TRANSFER moves no native coins: amount must be "0"');
  });

  it('hands the name to a new owner, keeps its target and reports name.update', async () => {
    const registeredAt = await register('alice');
    expect(await w.ok('NAME_TRANSFER', ALICE, { to: BOB, data: { name: 'alice' } })).toEqual([{ kind: 'name.update', name: 'alice', owner: BOB, target: ALICE, registeredAt }]);
    expect(await getName(w.state, 'alice')).toMatchObject({ owner: BOB, target: ALICE, registeredAt });
    // the new owner controls it; the old one no longer does
    await w.fails('NAME_UPDATE', ALICE, { to: CAROL, data: { name: 'alice' } }, 'only the owner of the name may do this');
    await w.ok('NAME_UPDATE', BOB, { to: BOB, data: { name: 'alice' } });
    expect(await getName(w.state, 'alice')).toMatchObject({ owner: BOB, target: BOB });
  });

  it('fails for an unregistered name or a sender other than the owner', async () => {
    await w.fails('NAME_TRANSFER', ALICE, { to: BOB, data: { name: 'nobody' } }, 'name not registered');
    await register('alice', ALICE, BOB);
    await w.fails('NAME_TRANSFER', BOB, { to: BOB, data: { name: 'alice' } }, 'only the owner of the name may do this');
  });
});

describe('NAME_RELEASE', () => {
  it('refuses at admission a destination or a native amount', () => {
    expect(refusal('NAME_RELEASE', { to: BOB, data: { name: 'alice' } })).toBe('NAME_RELEASE takes no to address (to must be null)');
    expect(refusal('NAME_RELEASE', { amount: COST, data: { name: 'alice' } })).toBe('NAME_RELEASE moves no native coins: amount must be "0"');
    expect(refusal('NAME_RELEASE', { data: { name: 'alice' } })).toBeUndefined();
  });

  it('deletes the record without refund, reports name.release, and the name can be registered again', async () => {
    const registeredAt = await register('alice');
    const [aliceBefore, treasuryBefore] = [await balance(ALICE), await balance(TREASURY_ADDRESS)];
    const tx = await w.tx('NAME_RELEASE', ALICE, { data: { name: 'alice' } });
    const r = await w.apply(tx);
    expect(r.status).toBe('success');
    expect(r.events).toEqual([{ kind: 'name.release', name: 'alice', registeredAt }]);
    expect(await w.state.getRecord(nameKey('alice'))).toBeUndefined();
    expect(await balance(ALICE)).toBe(aliceBefore - BigInt(r.burned));
    expect(await balance(TREASURY_ADDRESS)).toBe(treasuryBefore);
    await w.fails('NAME_UPDATE', ALICE, { to: BOB, data: { name: 'alice' } }, 'name not registered');
    await w.fails('NAME_RELEASE', ALICE, { data: { name: 'alice' } }, 'name not registered');

    const again = await register('alice', BOB, CAROL);
    expect(again).toBeGreaterThan(registeredAt);
    expect(await getName(w.state, 'alice')).toMatchObject({ owner: BOB, target: CAROL, registeredAt: again });
    expect(await balance(TREASURY_ADDRESS)).toBe(treasuryBefore + NAME_REGISTRATION_COST);
  });

  it('fails for an unregistered name or a sender other than the owner', async () => {
    await w.fails('NAME_RELEASE', ALICE, { data: { name: 'nobody' } }, 'name not registered');
    await register('alice', ALICE, BOB);
    await w.fails('NAME_RELEASE', BOB, { data: { name: 'alice' } }, 'only the owner of the name may do this');
    expect((await getName(w.state, 'alice'))!.owner).toBe(ALICE);
  });
});
