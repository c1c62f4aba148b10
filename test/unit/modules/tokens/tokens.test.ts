import { beforeEach, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../../../src/protocol/events';
import { MAX_TOKEN_AMOUNT } from '../../../../src/protocol/params';
import type { Address, SignedTx, TxType } from '../../../../src/protocol/types';
import { assetId } from '../../../../src/modules/assets/common';
import { ENTRIES } from '../../../../src/modules/registry';
import {
  allowanceKey,
  balanceKey,
  blacklistKey,
  freezeKey,
  getAllowance,
  getToken,
  getTokenBalance,
  symbolKey,
  type TokenRecord,
} from '../../../../src/modules/tokens/records';
import type { Hex } from '../../../../src/primitives/hex';
import { ALICE, AssetWorld, BOB, CAROL, DAVE, ENERGY_COST, envelope, validate } from '../../../helpers/assetHarness';

const NOBODY: Hex = `0x${'ab'.repeat(20)}`;
const MAX = MAX_TOKEN_AMOUNT.toString();
/** A well-formed token id for the admission tables (they are built before any token exists). */
const ANY: Hex = `0x${'1f'.repeat(20)}`;

type Data = Record<string, unknown> | null;

/** Creates a token and returns its id. */
async function create(
  from: Address,
  symbol: string,
  supply: string,
  mintable = false,
  extra: Record<string, unknown> = {},
): Promise<Hex> {
  const tx = await c.tx('TOKEN_CREATE', from, {
    data: { name: `${symbol} token`, symbol, decimals: 6, supply, mintable, ...extra },
  });
  const r = await c.apply(tx);
  expect(r.error).toBeUndefined();
  return assetId(tx.id);
}
const bal = (token: Hex, holder: Address): Promise<bigint> => getTokenBalance(c.state, token, holder);
const tokenOf = async (token: Hex): Promise<TokenRecord> => (await getToken(c.state, token))!;
const transfer = (token: Hex, from: Address | null, to: Address | null, amount: string | bigint): ChainEvent => ({
  kind: 'token.transfer',
  token,
  from,
  to,
  amount: amount.toString(),
});
const balance = (token: Hex, holder: Address, previous: string | bigint, after: string | bigint): ChainEvent => ({
  kind: 'token.balance',
  token,
  holder,
  previous: previous.toString(),
  balance: after.toString(),
});

/** Every transaction runs at c.height, which only the tests move. */
let c: AssetWorld;
let T: Hex; // mintable, supply 1000, owned by ALICE
let F: Hex; // fixed supply 500, owned by ALICE
beforeEach(async () => {
  c = await AssetWorld.create({ autoHeight: false, height: 1 });
  T = await create(ALICE, 'TOK', '1000', true);
  F = await create(ALICE, 'FIX', '500');
});

/** The registry's FT20 entries. */
const TOKEN_ENTRIES = ENTRIES.filter((e) => e.module === 'tokens');

describe('FT20 entries', () => {
  it('has the 11 types, each with its own energy cost', () => {
    const types = [
      'TOKEN_CREATE',
      'TOKEN_TRANSFER',
      'TOKEN_APPROVE',
      'TOKEN_TRANSFER_FROM',
      'TOKEN_MINT',
      'TOKEN_BURN',
      'TOKEN_PAUSE',
      'TOKEN_UNPAUSE',
      'TOKEN_BLACKLIST',
      'TOKEN_FREEZE',
      'TOKEN_UNFREEZE',
    ];
    expect(TOKEN_ENTRIES.map((e) => e.type).sort()).toEqual([...types].sort());
    for (const { type: k, handler: h } of TOKEN_ENTRIES) {
      expect(h.type).toBe(k);
      expect(h.maxEnergy(envelope(h.type, ALICE))).toBe(ENERGY_COST[k]);
    }
  });

  it('every type refuses the Ethereum envelope, a native amount and a non-object data', () => {
    const noTo = new Set([
      'TOKEN_CREATE',
      'TOKEN_BURN',
      'TOKEN_PAUSE',
      'TOKEN_UNPAUSE',
      'TOKEN_FREEZE',
      'TOKEN_UNFREEZE',
    ]);
    for (const { type } of TOKEN_ENTRIES) {
      const base = envelope(type, ALICE, { to: noTo.has(type) ? null : BOB, data: { token: T } });
      expect(validate({ ...base, envelope: 'eth' } as SignedTx)).toBe(`${type} is a hybrid-envelope type`);
      expect(validate({ ...base, amount: '1' })).toBe(`${type} moves no native coins: amount must be "0"`);
      for (const data of [null, [], 'x', 3])
        expect(validate({ ...base, data } as SignedTx)).toMatch(new RegExp(`^${type} needs a data object with `));
    }
  });
});

describe('TOKEN_CREATE', () => {
  it('creates the token, credits the supply to the sender and reports create, transfer and balance', async () => {
    c.height = 7;
    const tx = await c.tx('TOKEN_CREATE', BOB, {
      data: { name: 'Bob Coin', symbol: 'BOB1', decimals: 18, supply: '12345' },
    });
    const r = await c.apply(tx);
    expect(r.status).toBe('success');
    const id = assetId(tx.id);
    expect(await tokenOf(id)).toEqual({
      id,
      name: 'Bob Coin',
      symbol: 'BOB1',
      decimals: 18,
      owner: BOB,
      mintable: false,
      paused: false,
      supply: '12345',
      holders: 1,
      createdAt: 7,
      createdBy: tx.id,
    });
    expect(await c.state.getRecord(symbolKey('BOB1'))).toEqual({ id });
    expect(await bal(id, BOB)).toBe(12345n);
    expect(r.events).toEqual([
      { kind: 'token.create', token: id, symbol: 'BOB1', name: 'Bob Coin', height: 7 },
      transfer(id, null, BOB, '12345'),
      balance(id, BOB, '0', '12345'),
    ]);
  });

  it('allows supply "0" for a mintable token (only a create event) and the maximum supply', async () => {
    const tx = await c.tx('TOKEN_CREATE', BOB, {
      data: { name: 'Zero', symbol: 'ZERO', decimals: 0, supply: '0', mintable: true },
    });
    const r = await c.apply(tx);
    const id = assetId(tx.id);
    expect(r.events).toEqual([{ kind: 'token.create', token: id, symbol: 'ZERO', name: 'Zero', height: 1 }]);
    expect(await c.state.getRecord(balanceKey(id, BOB))).toBeUndefined();
    const big = await create(CAROL, 'BIG', MAX);
    expect(await bal(big, CAROL)).toBe(MAX_TOKEN_AMOUNT);
    expect((await tokenOf(big)).supply).toBe(MAX);
    // names may use any script up to 64 bytes
    await create(DAVE, 'UNI', '1', false, { name: 'é'.repeat(32) });
  });

  it('fails on a symbol already taken, leaving state untouched', async () => {
    await c.fails(
      'TOKEN_CREATE',
      BOB,
      { data: { name: 'Other', symbol: 'TOK', decimals: 0, supply: '1' } },
      'symbol already taken',
    );
  });

  const good = { name: 'N', symbol: 'SYM', decimals: 2, supply: '10' };
  const refusals: [string, Data, string, (Address | null)?][] = [
    ['to set', good, 'TOKEN_CREATE takes no to address (to must be null)', BOB],
    ['missing supply', { name: 'N', symbol: 'SYM', decimals: 2 }, 'TOKEN_CREATE data.supply is required'],
    ['unknown field', { ...good, owner: BOB }, 'TOKEN_CREATE data has unknown field "owner"'],
    [
      'empty name',
      { ...good, name: '' },
      'TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters',
    ],
    [
      '65-byte name',
      { ...good, name: 'é'.repeat(32) + 'x' },
      'TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters',
    ],
    [
      'newline in name',
      { ...good, name: 'a\nb' },
      'TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters',
    ],
    [
      'C1 control in name',
      { ...good, name: 'a\u0085b' },
      'TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters',
    ],
    [
      'lone surrogate in name',
      { ...good, name: 'a\ud800' },
      'TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters',
    ],
    [
      'name not a string',
      { ...good, name: 5 },
      'TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters',
    ],
    [
      'lower-case symbol',
      { ...good, symbol: 'sym' },
      'TOKEN_CREATE data.symbol must be an upper-case letter followed by up to 11 upper-case letters or digits',
    ],
    [
      'symbol starting with a digit',
      { ...good, symbol: '1SYM' },
      'TOKEN_CREATE data.symbol must be an upper-case letter followed by up to 11 upper-case letters or digits',
    ],
    [
      '13-character symbol',
      { ...good, symbol: 'ABCDEFGHIJKLM' },
      'TOKEN_CREATE data.symbol must be an upper-case letter followed by up to 11 upper-case letters or digits',
    ],
    ['decimals 19', { ...good, decimals: 19 }, 'TOKEN_CREATE data.decimals must be an integer from 0 to 18'],
    ['negative decimals', { ...good, decimals: -1 }, 'TOKEN_CREATE data.decimals must be an integer from 0 to 18'],
    ['fractional decimals', { ...good, decimals: 1.5 }, 'TOKEN_CREATE data.decimals must be an integer from 0 to 18'],
    ['decimals as a string', { ...good, decimals: '2' }, 'TOKEN_CREATE data.decimals must be an integer from 0 to 18'],
    [
      'negative supply',
      { ...good, supply: '-1' },
      'TOKEN_CREATE data.supply must be an integer string from 0 to 2^256 − 1',
    ],
    [
      'leading zero supply',
      { ...good, supply: '010' },
      'TOKEN_CREATE data.supply must be an integer string from 0 to 2^256 − 1',
    ],
    [
      'supply 2^256',
      { ...good, supply: (MAX_TOKEN_AMOUNT + 1n).toString() },
      'TOKEN_CREATE data.supply must be an integer string from 0 to 2^256 − 1',
    ],
    [
      'supply as a number',
      { ...good, supply: 10 },
      'TOKEN_CREATE data.supply must be an integer string from 0 to 2^256 − 1',
    ],
    [
      'zero supply, not mintable',
      { ...good, supply: '0' },
      'TOKEN_CREATE data.supply may be "0" only for a mintable token',
    ],
    [
      'zero supply, mintable false',
      { ...good, supply: '0', mintable: false },
      'TOKEN_CREATE data.supply may be "0" only for a mintable token',
    ],
    ['mintable not a boolean', { ...good, mintable: 'yes' }, 'TOKEN_CREATE data.mintable must be a boolean'],
    ['mintable null', { ...good, mintable: null }, 'TOKEN_CREATE data.mintable must be a boolean'],
  ];
  it.each(refusals)(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, data, reason, to = null) => {
      await c.refused('TOKEN_CREATE', BOB, { to, data }, reason);
    },
  );
});

describe('TOKEN_TRANSFER', () => {
  it('moves tokens and reports transfer and both balances; an emptied balance record is deleted', async () => {
    expect(await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: T, amount: '300' } })).toEqual([
      transfer(T, ALICE, BOB, 300n),
      balance(T, ALICE, 1000n, 700n),
      balance(T, BOB, 0n, 300n),
    ]);
    expect(await c.ok('TOKEN_TRANSFER', BOB, { to: CAROL, data: { token: T, amount: '300' } })).toEqual([
      transfer(T, BOB, CAROL, 300n),
      balance(T, BOB, 300n, 0n),
      balance(T, CAROL, 0n, 300n),
    ]);
    expect(await c.state.getRecord(balanceKey(T, BOB))).toBeUndefined();
    expect(await bal(T, ALICE)).toBe(700n);
    expect((await tokenOf(T)).supply).toBe('1000');
  });

  it.each([
    ['no recipient', null, { token: ANY, amount: '1' }, 'TOKEN_TRANSFER needs the recipient address in to'],
    ['the sender as recipient', ALICE, { token: ANY, amount: '1' }, 'TOKEN_TRANSFER cannot send to the sender itself'],
    [
      'an upper-case token id',
      BOB,
      { token: ANY.toUpperCase().replace('0X', '0x'), amount: '1' },
      'TOKEN_TRANSFER data.token must be a token id (0x + 40 lower-case hex digits)',
    ],
    [
      'a short token id',
      BOB,
      { token: '0x1234', amount: '1' },
      'TOKEN_TRANSFER data.token must be a token id (0x + 40 lower-case hex digits)',
    ],
    [
      'amount 0',
      BOB,
      { token: ANY, amount: '0' },
      'TOKEN_TRANSFER data.amount must be an integer string from 1 to 2^256 − 1',
    ],
    [
      'amount 2^256',
      BOB,
      { token: ANY, amount: (MAX_TOKEN_AMOUNT + 1n).toString() },
      'TOKEN_TRANSFER data.amount must be an integer string from 1 to 2^256 − 1',
    ],
    [
      'a numeric amount',
      BOB,
      { token: ANY, amount: 1 },
      'TOKEN_TRANSFER data.amount must be an integer string from 1 to 2^256 − 1',
    ],
    ['no amount', BOB, { token: ANY }, 'TOKEN_TRANSFER data.amount is required'],
    ['an extra field', BOB, { token: ANY, amount: '1', memo: 'x' }, 'TOKEN_TRANSFER data has unknown field "memo"'],
  ] as [string, Address | null, Data, string][])(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, to, data, reason) => {
      await c.refused('TOKEN_TRANSFER', ALICE, { to, data }, reason);
    },
  );

  it(
    'fails on an unknown token, a short balance, ' + 'a paused token, blacklisted parties and a frozen sender',
    async () => {
      await c.fails('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: NOBODY, amount: '1' } }, 'unknown token');
      await c.fails(
        'TOKEN_TRANSFER',
        ALICE,
        { to: BOB, data: { token: T, amount: '1001' } },
        'insufficient token balance',
      );
      await c.fails(
        'TOKEN_TRANSFER',
        BOB,
        { to: CAROL, data: { token: T, amount: '1' } },
        'insufficient token balance',
      );
      await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: T, amount: '100' } });

      await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } });
      await c.fails('TOKEN_TRANSFER', BOB, { to: CAROL, data: { token: T, amount: '1' } }, 'token is paused');
      await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: F, amount: '1' } }); // the pause is per token
      await c.ok('TOKEN_UNPAUSE', ALICE, { data: { token: T } });

      await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: true } });
      await c.fails('TOKEN_TRANSFER', BOB, { to: CAROL, data: { token: T, amount: '1' } }, 'sender is blacklisted');
      await c.fails('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: T, amount: '1' } }, 'recipient is blacklisted');
      await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: F, amount: '1' } }); // the blacklist is per token
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: false } });

      await c.ok('TOKEN_FREEZE', BOB, { data: { token: T, until: 5 } });
      await c.fails(
        'TOKEN_TRANSFER',
        BOB,
        { to: CAROL, data: { token: T, amount: '1' } },
        'sender is frozen until height 5',
      );
      await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: T, amount: '1' } }); // receiving still works
      c.height = 5;
      await c.ok('TOKEN_TRANSFER', BOB, { to: CAROL, data: { token: T, amount: '101' } });
      expect(await bal(T, CAROL)).toBe(101n);
    },
  );
});

describe('TOKEN_APPROVE', () => {
  it('sets (not adds) the allowance, reports nothing, and "0" deletes the record', async () => {
    expect(await c.ok('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: T, amount: '50' } })).toEqual([]);
    await c.ok('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: T, amount: '30' } });
    expect(await getAllowance(c.state, T, ALICE, BOB)).toBe(30n);
    expect(await c.state.getRecord(allowanceKey(T, ALICE, BOB))).toBe('30');
    await c.ok('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: T, amount: '0' } });
    expect(await c.state.getRecord(allowanceKey(T, ALICE, BOB))).toBeUndefined();
    // approving more than the balance is allowed (checked when spent), and so is approving while paused
    await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } });
    await c.ok('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: T, amount: MAX } });
    expect(await getAllowance(c.state, T, ALICE, BOB)).toBe(MAX_TOKEN_AMOUNT);
  });

  it.each([
    ['no spender', null, { token: ANY, amount: '1' }, 'TOKEN_APPROVE needs the spender address in to'],
    ['the sender as spender', ALICE, { token: ANY, amount: '1' }, 'TOKEN_APPROVE cannot approve the sender itself'],
    [
      'a negative amount',
      BOB,
      { token: ANY, amount: '-1' },
      'TOKEN_APPROVE data.amount must be an integer string from 0 to 2^256 − 1',
    ],
    ['no token', BOB, { amount: '1' }, 'TOKEN_APPROVE data.token is required'],
  ] as [string, Address | null, Data, string][])(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, to, data, reason) => {
      await c.refused('TOKEN_APPROVE', ALICE, { to, data }, reason);
    },
  );

  it('fails on an unknown token', async () => {
    await c.fails('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: NOBODY, amount: '1' } }, 'unknown token');
  });
});

describe('TOKEN_TRANSFER_FROM', () => {
  it("lets the spender move the owner's tokens, spending the allowance down to a deleted record", async () => {
    await c.ok('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: T, amount: '100' } });
    expect(
      await c.ok('TOKEN_TRANSFER_FROM', BOB, { to: CAROL, data: { token: T, from: ALICE, amount: '60' } }),
    ).toEqual([transfer(T, ALICE, CAROL, 60n), balance(T, ALICE, 1000n, 940n), balance(T, CAROL, 0n, 60n)]);
    expect(await getAllowance(c.state, T, ALICE, BOB)).toBe(40n);
    // data.from may be written in any letter case; the spender may send to itself
    await c.ok('TOKEN_TRANSFER_FROM', BOB, {
      to: BOB,
      data: { token: T, from: ALICE.toUpperCase().replace('0X', '0x'), amount: '40' },
    });
    expect(await c.state.getRecord(allowanceKey(T, ALICE, BOB))).toBeUndefined();
    expect(await bal(T, BOB)).toBe(40n);
    await c.fails(
      'TOKEN_TRANSFER_FROM',
      BOB,
      { to: CAROL, data: { token: T, from: ALICE, amount: '1' } },
      'allowance too low',
    );
  });

  it.each([
    [
      'no recipient',
      null,
      { token: ANY, from: ALICE, amount: '1' },
      'TOKEN_TRANSFER_FROM needs the recipient address in to',
    ],
    [
      'a bad from',
      CAROL,
      { token: ANY, from: 'cairn1xyz', amount: '1' },
      'TOKEN_TRANSFER_FROM data.from must be a 0x address (40 hex digits)',
    ],
    [
      'from = the sender',
      CAROL,
      { token: ANY, from: BOB, amount: '1' },
      'TOKEN_TRANSFER_FROM data.from is the sender: use TOKEN_TRANSFER',
    ],
    [
      'to = from',
      ALICE,
      { token: ANY, from: ALICE, amount: '1' },
      'TOKEN_TRANSFER_FROM cannot send to the owner itself (to equals data.from)',
    ],
    [
      'amount 0',
      CAROL,
      { token: ANY, from: ALICE, amount: '0' },
      'TOKEN_TRANSFER_FROM data.amount must be an integer string from 1 to 2^256 − 1',
    ],
    ['no from', CAROL, { token: ANY, amount: '1' }, 'TOKEN_TRANSFER_FROM data.from is required'],
  ] as [string, Address | null, Data, string][])(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, to, data, reason) => {
      await c.refused('TOKEN_TRANSFER_FROM', BOB, { to, data }, reason);
    },
  );

  it(
    'fails on an unknown token, a paused token, ' + 'any blacklisted party, a frozen owner, allowance and balance',
    async () => {
      const move = { token: T, from: ALICE, amount: '10' };
      await c.fails('TOKEN_TRANSFER_FROM', BOB, { to: CAROL, data: { ...move, token: NOBODY } }, 'unknown token');
      await c.fails('TOKEN_TRANSFER_FROM', BOB, { to: CAROL, data: move }, 'allowance too low');
      await c.ok('TOKEN_APPROVE', ALICE, { to: BOB, data: { token: T, amount: '5000' } });
      await c.fails(
        'TOKEN_TRANSFER_FROM',
        BOB,
        { to: CAROL, data: { ...move, amount: '1001' } },
        'insufficient token balance',
      );

      await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } });
      await c.fails('TOKEN_TRANSFER_FROM', BOB, { to: CAROL, data: move }, 'token is paused');
      await c.ok('TOKEN_UNPAUSE', ALICE, { data: { token: T } });

      await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: true } });
      await c.fails('TOKEN_TRANSFER_FROM', BOB, { to: CAROL, data: move }, 'spender is blacklisted');
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: false } });
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: CAROL, data: { token: T, blacklisted: true } });
      await c.fails('TOKEN_TRANSFER_FROM', BOB, { to: CAROL, data: move }, 'recipient is blacklisted');

      // an owner other than the token owner: CAROL holds tokens and approves BOB, then is blacklisted
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: CAROL, data: { token: T, blacklisted: false } });
      await c.ok('TOKEN_TRANSFER', ALICE, { to: CAROL, data: { token: T, amount: '100' } });
      await c.ok('TOKEN_APPROVE', CAROL, { to: BOB, data: { token: T, amount: '100' } });
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: CAROL, data: { token: T, blacklisted: true } });
      await c.fails(
        'TOKEN_TRANSFER_FROM',
        BOB,
        { to: DAVE, data: { token: T, from: CAROL, amount: '1' } },
        'owner is blacklisted',
      );
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: CAROL, data: { token: T, blacklisted: false } });

      await c.ok('TOKEN_FREEZE', CAROL, { data: { token: T, until: 3 } });
      await c.fails(
        'TOKEN_TRANSFER_FROM',
        BOB,
        { to: DAVE, data: { token: T, from: CAROL, amount: '1' } },
        'owner is frozen until height 3',
      );
      c.height = 3;
      await c.ok('TOKEN_TRANSFER_FROM', BOB, { to: DAVE, data: { token: T, from: CAROL, amount: '100' } });
      expect(await bal(T, DAVE)).toBe(100n);
    },
  );
});

describe('TOKEN_MINT', () => {
  it('lets the owner mint to anyone, growing the supply up to 2^256 − 1', async () => {
    expect(await c.ok('TOKEN_MINT', ALICE, { to: BOB, data: { token: T, amount: '25' } })).toEqual([
      transfer(T, null, BOB, 25n),
      balance(T, BOB, 0n, 25n),
    ]);
    expect(await c.ok('TOKEN_MINT', ALICE, { to: ALICE, data: { token: T, amount: '5' } })).toEqual([
      transfer(T, null, ALICE, 5n),
      balance(T, ALICE, 1000n, 1005n),
    ]);
    expect((await tokenOf(T)).supply).toBe('1030');
    await c.ok('TOKEN_MINT', ALICE, { to: BOB, data: { token: T, amount: (MAX_TOKEN_AMOUNT - 1030n).toString() } });
    expect((await tokenOf(T)).supply).toBe(MAX);
    await c.fails(
      'TOKEN_MINT',
      ALICE,
      { to: BOB, data: { token: T, amount: '1' } },
      'mint would take the supply above 2^256 − 1',
    );
  });

  it.each([
    ['no recipient', null, { token: ANY, amount: '1' }, 'TOKEN_MINT needs the recipient address in to'],
    [
      'amount 0',
      BOB,
      { token: ANY, amount: '0' },
      'TOKEN_MINT data.amount must be an integer string from 1 to 2^256 − 1',
    ],
  ] as [string, Address | null, Data, string][])(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, to, data, reason) => {
      await c.refused('TOKEN_MINT', ALICE, { to, data }, reason);
    },
  );

  it(
    'fails on an unknown token, a non-owner, a fixed-supply token, ' + 'a paused token and a blacklisted recipient',
    async () => {
      await c.fails('TOKEN_MINT', ALICE, { to: BOB, data: { token: NOBODY, amount: '1' } }, 'unknown token');
      await c.fails(
        'TOKEN_MINT',
        BOB,
        { to: BOB, data: { token: T, amount: '1' } },
        'only the owner of this token may do this',
      );
      await c.fails('TOKEN_MINT', ALICE, { to: BOB, data: { token: F, amount: '1' } }, 'token is not mintable');
      await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } });
      await c.fails('TOKEN_MINT', ALICE, { to: BOB, data: { token: T, amount: '1' } }, 'token is paused');
      await c.ok('TOKEN_UNPAUSE', ALICE, { data: { token: T } });
      await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: true } });
      await c.fails('TOKEN_MINT', ALICE, { to: BOB, data: { token: T, amount: '1' } }, 'recipient is blacklisted');
    },
  );
});

describe('TOKEN_BURN', () => {
  it('lets any holder burn its own tokens, shrinking the supply', async () => {
    await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: F, amount: '100' } });
    expect(await c.ok('TOKEN_BURN', BOB, { data: { token: F, amount: '100' } })).toEqual([
      transfer(F, BOB, null, 100n),
      balance(F, BOB, 100n, 0n),
    ]);
    expect((await tokenOf(F)).supply).toBe('400');
    await c.ok('TOKEN_BURN', ALICE, { data: { token: F, amount: '400' } });
    expect((await tokenOf(F)).supply).toBe('0');
  });

  it.each([
    ['a to address', BOB, { token: ANY, amount: '1' }, 'TOKEN_BURN takes no to address (to must be null)'],
    [
      'amount 0',
      null,
      { token: ANY, amount: '0' },
      'TOKEN_BURN data.amount must be an integer string from 1 to 2^256 − 1',
    ],
  ] as [string, Address | null, Data, string][])(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, to, data, reason) => {
      await c.refused('TOKEN_BURN', ALICE, { to, data }, reason);
    },
  );

  it('fails on an unknown token, a short balance, a paused token, a blacklisted or frozen holder', async () => {
    await c.fails('TOKEN_BURN', ALICE, { data: { token: NOBODY, amount: '1' } }, 'unknown token');
    await c.fails('TOKEN_BURN', BOB, { data: { token: T, amount: '1' } }, 'insufficient token balance');
    await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: T, amount: '10' } });
    await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } });
    await c.fails('TOKEN_BURN', BOB, { data: { token: T, amount: '1' } }, 'token is paused');
    await c.ok('TOKEN_UNPAUSE', ALICE, { data: { token: T } });
    await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: true } });
    await c.fails('TOKEN_BURN', BOB, { data: { token: T, amount: '1' } }, 'sender is blacklisted');
    await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: false } });
    await c.ok('TOKEN_FREEZE', BOB, { data: { token: T, until: 2 } });
    await c.fails('TOKEN_BURN', BOB, { data: { token: T, amount: '1' } }, 'sender is frozen until height 2');
  });
});

describe('TOKEN_PAUSE and TOKEN_UNPAUSE', () => {
  it('toggle the paused flag; the same state twice fails', async () => {
    expect(await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } })).toEqual([]);
    expect((await tokenOf(T)).paused).toBe(true);
    await c.fails('TOKEN_PAUSE', ALICE, { data: { token: T } }, 'token is already paused');
    await c.ok('TOKEN_UNPAUSE', ALICE, { data: { token: T } });
    expect((await tokenOf(T)).paused).toBe(false);
    await c.fails('TOKEN_UNPAUSE', ALICE, { data: { token: T } }, 'token is not paused');
  });

  it('fail for a non-owner or an unknown token', async () => {
    await c.fails('TOKEN_PAUSE', BOB, { data: { token: T } }, 'only the owner of this token may do this');
    await c.fails('TOKEN_PAUSE', ALICE, { data: { token: NOBODY } }, 'unknown token');
    await c.ok('TOKEN_PAUSE', ALICE, { data: { token: T } });
    await c.fails('TOKEN_UNPAUSE', BOB, { data: { token: T } }, 'only the owner of this token may do this');
    await c.fails('TOKEN_UNPAUSE', ALICE, { data: { token: NOBODY } }, 'unknown token');
  });

  it.each(['TOKEN_PAUSE', 'TOKEN_UNPAUSE'] as const)(
    '%s refuses a to address, a bad token id and extra fields at admission, ' +
      'and a block carrying it is skipped permanently with the same reason',
    async (type) => {
      const cases: [Address | null, Data, string][] = [
        [BOB, { token: ANY }, `${type} takes no to address (to must be null)`],
        [null, { token: 'TOK' }, `${type} data.token must be a token id (0x + 40 lower-case hex digits)`],
        [null, { token: ANY, amount: '1' }, `${type} data has unknown field "amount"`],
      ];
      for (const [to, data, reason] of cases) {
        await c.refused(type, ALICE, { to, data }, reason);
      }
    },
  );
});

describe('TOKEN_BLACKLIST', () => {
  it('sets and clears the blacklist record; the same state twice fails', async () => {
    expect(await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: true } })).toEqual([]);
    expect(await c.state.getRecord(blacklistKey(T, BOB))).toBe(true);
    await c.fails(
      'TOKEN_BLACKLIST',
      ALICE,
      { to: BOB, data: { token: T, blacklisted: true } },
      'address is already blacklisted',
    );
    await c.ok('TOKEN_BLACKLIST', ALICE, { to: BOB, data: { token: T, blacklisted: false } });
    expect(await c.state.getRecord(blacklistKey(T, BOB))).toBeUndefined();
    await c.fails(
      'TOKEN_BLACKLIST',
      ALICE,
      { to: BOB, data: { token: T, blacklisted: false } },
      'address is not blacklisted',
    );
  });

  it('fails for a non-owner or an unknown token', async () => {
    await c.fails(
      'TOKEN_BLACKLIST',
      BOB,
      { to: CAROL, data: { token: T, blacklisted: true } },
      'only the owner of this token may do this',
    );
    await c.fails('TOKEN_BLACKLIST', ALICE, { to: CAROL, data: { token: NOBODY, blacklisted: true } }, 'unknown token');
  });

  it.each([
    ['no target', null, { token: ANY, blacklisted: true }, 'TOKEN_BLACKLIST needs the target address in to'],
    [
      'the sender as target',
      ALICE,
      { token: ANY, blacklisted: true },
      'TOKEN_BLACKLIST cannot target the sender itself',
    ],
    [
      'a non-boolean flag',
      BOB,
      { token: ANY, blacklisted: 'true' },
      'TOKEN_BLACKLIST data.blacklisted must be a boolean',
    ],
    ['no flag', BOB, { token: ANY }, 'TOKEN_BLACKLIST data.blacklisted is required'],
  ] as [string, Address | null, Data, string][])(
    'refuses at admission (%s), and a block carrying it is skipped permanently with the same reason',
    async (_, to, data, reason) => {
      await c.refused('TOKEN_BLACKLIST', ALICE, { to, data }, reason);
    },
  );
});

describe('TOKEN_FREEZE and TOKEN_UNFREEZE', () => {
  it('freeze writes the record and can only be extended; unfreeze removes it once expired', async () => {
    c.height = 10;
    expect(await c.ok('TOKEN_FREEZE', BOB, { data: { token: T, until: 20 } })).toEqual([]); // no balance needed
    expect(await c.state.getRecord(freezeKey(T, BOB))).toEqual({ until: 20 });
    await c.fails(
      'TOKEN_FREEZE',
      BOB,
      { data: { token: T, until: 20 } },
      'a freeze can only be extended: frozen until height 20',
    );
    await c.fails(
      'TOKEN_FREEZE',
      BOB,
      { data: { token: T, until: 15 } },
      'a freeze can only be extended: frozen until height 20',
    );
    await c.ok('TOKEN_FREEZE', BOB, { data: { token: T, until: 30 } });
    await c.fails('TOKEN_UNFREEZE', BOB, { data: { token: T } }, 'frozen until height 30');
    c.height = 29;
    await c.fails('TOKEN_UNFREEZE', BOB, { data: { token: T } }, 'frozen until height 30');
    c.height = 30;
    await c.ok('TOKEN_UNFREEZE', BOB, { data: { token: T } });
    expect(await c.state.getRecord(freezeKey(T, BOB))).toBeUndefined();
    await c.fails('TOKEN_UNFREEZE', BOB, { data: { token: T } }, 'not frozen');
  });

  it('freeze needs an until above the current height; an expired freeze may be renewed', async () => {
    c.height = 10;
    await c.fails(
      'TOKEN_FREEZE',
      BOB,
      { data: { token: T, until: 10 } },
      'data.until must be above the current height 10',
    );
    await c.fails(
      'TOKEN_FREEZE',
      BOB,
      { data: { token: T, until: 3 } },
      'data.until must be above the current height 10',
    );
    await c.ok('TOKEN_FREEZE', BOB, { data: { token: T, until: 12 } });
    c.height = 13;
    await c.ok('TOKEN_FREEZE', BOB, { data: { token: T, until: 14 } }); // 14 < nothing: the old freeze expired
    expect(await c.state.getRecord(freezeKey(T, BOB))).toEqual({ until: 14 });
    await c.fails('TOKEN_FREEZE', BOB, { data: { token: NOBODY, until: 100 } }, 'unknown token');
    await c.fails('TOKEN_UNFREEZE', BOB, { data: { token: NOBODY } }, 'unknown token');
    await c.fails('TOKEN_UNFREEZE', BOB, { data: { token: F } }, 'not frozen');
  });

  it('a freeze is per token and per holder', async () => {
    await c.ok('TOKEN_FREEZE', ALICE, { data: { token: T, until: 100 } });
    await c.ok('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: F, amount: '1' } });
    await c.fails(
      'TOKEN_TRANSFER',
      ALICE,
      { to: BOB, data: { token: T, amount: '1' } },
      'sender is frozen until height 100',
    );
    // the frozen owner still administers its token
    await c.ok('TOKEN_MINT', ALICE, { to: BOB, data: { token: T, amount: '1' } });
    await c.ok('TOKEN_TRANSFER', BOB, { to: CAROL, data: { token: T, amount: '1' } });
  });

  it.each([
    ['TOKEN_FREEZE', BOB, { token: ANY, until: 5 }, 'TOKEN_FREEZE takes no to address (to must be null)'],
    ['TOKEN_FREEZE', null, { token: ANY, until: 0 }, 'TOKEN_FREEZE data.until must be a positive integer height'],
    ['TOKEN_FREEZE', null, { token: ANY, until: 2.5 }, 'TOKEN_FREEZE data.until must be a positive integer height'],
    ['TOKEN_FREEZE', null, { token: ANY, until: '5' }, 'TOKEN_FREEZE data.until must be a positive integer height'],
    ['TOKEN_FREEZE', null, { token: ANY, until: 2 ** 53 }, 'TOKEN_FREEZE data.until must be a positive integer height'],
    ['TOKEN_FREEZE', null, { token: ANY }, 'TOKEN_FREEZE data.until is required'],
    ['TOKEN_UNFREEZE', BOB, { token: ANY }, 'TOKEN_UNFREEZE takes no to address (to must be null)'],
    ['TOKEN_UNFREEZE', null, { token: ANY, until: 5 }, 'TOKEN_UNFREEZE data has unknown field "until"'],
  ] as [TxType, Address | null, Data, string][])(
    '%s refuses at admission (%#), and a block carrying it is skipped permanently with the same reason',
    async (type, to, data, reason) => {
      await c.refused(type, ALICE, { to, data }, reason);
    },
  );
});
