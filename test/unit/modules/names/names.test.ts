import { beforeEach, describe, expect, it } from 'vitest';
import { NAME_REGISTRATION_COST, TREASURY_ADDRESS } from '../../../../src/protocol/params';
import type { Address, SignedTx, TxType } from '../../../../src/protocol/types';
import { getName, nameKey, type NameRecord } from '../../../../src/modules/names/records';
import { ENTRIES, REGISTRY } from '../../../../src/modules/registry';

const NAME_HANDLERS = Object.fromEntries(ENTRIES.filter((e) => e.module === 'names').map((e) => [e.type, e.handler]));
import {
  ALICE,
  AssetWorld,
  BOB,
  CAROL,
  ENERGY_COST,
  envelope,
  refusal,
  validate,
  type TxOpts,
} from '../../../helpers/assetHarness';

const COST = NAME_REGISTRATION_COST.toString();
const FEE_REFUSAL = `NAME_REGISTER amount must be exactly the registration cost, ${COST} base units`;
const SHAPE = (type: TxType) =>
  `${type} data.name must be 3 to 32 characters of a-z, 0-9 and "-", not starting or ending with "-"`;
const LOWER = (type: TxType) => `${type} data.name must be lower case (names are not case-folded)`;

let w: AssetWorld;
beforeEach(async () => {
  w = await AssetWorld.create();
});

const balance = async (a: Address): Promise<bigint> => (await w.state.getAccount(a))?.balance ?? 0n;

/** Registers `name` for `owner` (target `to`, or the owner); returns the registration height. */
async function register(name: string, owner = ALICE, to: Address | null = null): Promise<number> {
  await w.ok('NAME_REGISTER', owner, { to, amount: COST, data: { name } });
  return w.height;
}

describe('name-service handlers', () => {
  it('are registered for exactly the four types, with ENERGY_COST as their energy', () => {
    expect(Object.keys(NAME_HANDLERS).sort()).toEqual([
      'NAME_REGISTER',
      'NAME_RELEASE',
      'NAME_TRANSFER',
      'NAME_UPDATE',
    ]);
    for (const [type, h] of Object.entries(NAME_HANDLERS)) {
      expect(h.type).toBe(type);
      expect(REGISTRY[h.type as keyof typeof REGISTRY].handler).toBe(h);
      expect(h.maxEnergy(envelope(h.type, ALICE))).toBe(ENERGY_COST[type]);
    }
  });

  it('refuse the Ethereum envelope, a bad data object and a malformed name for every type', () => {
    for (const type of Object.keys(NAME_HANDLERS) as TxType[]) {
      const to = type === 'NAME_RELEASE' ? null : BOB;
      const amount = type === 'NAME_REGISTER' ? COST : '0';
      const eth = {
        ...envelope(type, ALICE, { to, amount, data: { name: 'abc' } }),
        envelope: 'eth',
      } as unknown as SignedTx;
      expect(validate(eth)).toBe(`${type} is a hybrid-envelope type`);
      const check = (data: unknown) => refusal(type, { to, amount, data });
      expect(check(null)).toBe(`${type} needs a data object with name`);
      expect(check(['abc'])).toBe(`${type} needs a data object with name`);
      expect(check({})).toBe(`${type} data.name is required`);
      expect(check({ name: 'abc', target: BOB })).toBe(`${type} data has unknown field "target"`);
      for (const name of [
        'ab',
        'a'.repeat(33),
        '-abc',
        'abc-',
        '-',
        '---',
        'a_b',
        'ab c',
        'a.b',
        'héllo',
        'abc\n',
        '',
        123,
        null,
      ])
        expect(check({ name }), String(name)).toBe(SHAPE(type));
      for (const name of ['Alice', 'ABC', 'my-Name']) expect(check({ name })).toBe(LOWER(type));
      for (const name of ['abc', 'a'.repeat(32), 'a-b', 'a--b', '0-9', '123', 'x1-y2'])
        expect(check({ name }), name).toBeUndefined();
    }
  });

  it(
    'never include what admission refuses: ' +
      'applyTx skips it permanently with the same reason, and a block carrying it is invalid',
    async () => {
      await register('alice');
      const cases: [TxType, Address, TxOpts, string][] = [
        ['NAME_REGISTER', BOB, { amount: '1', data: { name: 'bob' } }, FEE_REFUSAL],
        ['NAME_UPDATE', ALICE, { to: BOB, data: { name: 'Alice' } }, LOWER('NAME_UPDATE')],
        ['NAME_TRANSFER', ALICE, { data: { name: 'alice' } }, 'NAME_TRANSFER needs the new owner address in to'],
        ['NAME_RELEASE', ALICE, { data: { name: 'al' } }, SHAPE('NAME_RELEASE')],
      ];
      for (const [type, from, opts, reason] of cases) await w.refused(type, from, opts, reason);
      expect(await getName(w.state, 'bob')).toBeUndefined();
      expect(await getName(w.state, 'alice')).toMatchObject({ owner: ALICE, target: ALICE });
      expect(await balance(TREASURY_ADDRESS)).toBe(NAME_REGISTRATION_COST);
    },
  );
});

describe('NAME_REGISTER', () => {
  it('refuses at admission an amount other than the registration cost', () => {
    for (const amount of [
      '0',
      '1',
      (NAME_REGISTRATION_COST - 1n).toString(),
      (NAME_REGISTRATION_COST + 1n).toString(),
      (NAME_REGISTRATION_COST * 2n).toString(),
    ]) {
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
    expect(await getName(w.state, 'alice')).toEqual<NameRecord>({
      name: 'alice',
      owner: ALICE,
      target: ALICE,
      registeredAt: w.height,
      registeredBy: tx.id,
    });
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
    await w.fails(
      'NAME_REGISTER',
      ALICE,
      { amount: COST, to: BOB, data: { name: 'alice' } },
      'name already registered',
    );
    expect(await balance(TREASURY_ADDRESS)).toBe(NAME_REGISTRATION_COST);
    expect((await getName(w.state, 'alice'))!.owner).toBe(ALICE);
  });
});

describe('NAME_UPDATE', () => {
  it('refuses at admission a missing target or a native amount', () => {
    expect(refusal('NAME_UPDATE', { data: { name: 'alice' } })).toBe('NAME_UPDATE needs the new target address in to');
    expect(refusal('NAME_UPDATE', { to: BOB, amount: COST, data: { name: 'alice' } })).toBe(
      'NAME_UPDATE moves no native coins: amount must be "0"',
    );
  });

  it('points the name at a new target and reports name.update', async () => {
    const registeredAt = await register('alice');
    expect(await w.ok('NAME_UPDATE', ALICE, { to: CAROL, data: { name: 'alice' } })).toEqual([
      {
        kind: 'name.update',
        name: 'alice',
        owner: ALICE,
        target: CAROL,
        registeredAt,
        previous: { owner: ALICE, target: ALICE },
      },
    ]);
    expect(await getName(w.state, 'alice')).toMatchObject({ owner: ALICE, target: CAROL, registeredAt });
  });

  it('fails for an unregistered name or a sender other than the owner (even the target)', async () => {
    await w.fails('NAME_UPDATE', ALICE, { to: BOB, data: { name: 'nobody' } }, 'name not registered');
    await register('alice', ALICE, BOB);
    await w.fails('NAME_UPDATE', BOB, { to: BOB, data: { name: 'alice' } }, 'only the owner of the name may do this');
    await w.fails(
      'NAME_UPDATE',
      CAROL,
      { to: CAROL, data: { name: 'alice' } },
      'only the owner of the name may do this',
    );
  });
});

describe('NAME_TRANSFER', () => {
  it('refuses at admission a missing new owner or a native amount', () => {
    expect(refusal('NAME_TRANSFER', { data: { name: 'alice' } })).toBe(
      'NAME_TRANSFER needs the new owner address in to',
    );
    expect(refusal('NAME_TRANSFER', { to: BOB, amount: '5', data: { name: 'alice' } })).toBe(
      'NAME_TRANSFER moves no native coins: amount must be "0"',
    );
  });

  it('hands the name to a new owner, keeps its target and reports name.update', async () => {
    const registeredAt = await register('alice');
    expect(await w.ok('NAME_TRANSFER', ALICE, { to: BOB, data: { name: 'alice' } })).toEqual([
      {
        kind: 'name.update',
        name: 'alice',
        owner: BOB,
        target: ALICE,
        registeredAt,
        previous: { owner: ALICE, target: ALICE },
      },
    ]);
    expect(await getName(w.state, 'alice')).toMatchObject({ owner: BOB, target: ALICE, registeredAt });
    // the new owner controls it; the old one no longer does
    await w.fails(
      'NAME_UPDATE',
      ALICE,
      { to: CAROL, data: { name: 'alice' } },
      'only the owner of the name may do this',
    );
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
    expect(refusal('NAME_RELEASE', { to: BOB, data: { name: 'alice' } })).toBe(
      'NAME_RELEASE takes no to address (to must be null)',
    );
    expect(refusal('NAME_RELEASE', { amount: COST, data: { name: 'alice' } })).toBe(
      'NAME_RELEASE moves no native coins: amount must be "0"',
    );
    expect(refusal('NAME_RELEASE', { data: { name: 'alice' } })).toBeUndefined();
  });

  it('deletes the record without refund, reports name.release, and the name can be registered again', async () => {
    const registeredAt = await register('alice');
    const [aliceBefore, treasuryBefore] = [await balance(ALICE), await balance(TREASURY_ADDRESS)];
    const tx = await w.tx('NAME_RELEASE', ALICE, { data: { name: 'alice' } });
    const r = await w.apply(tx);
    expect(r.status).toBe('success');
    expect(r.events).toEqual([{ kind: 'name.release', name: 'alice', registeredAt, owner: ALICE, target: ALICE }]);
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
