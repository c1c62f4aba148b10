import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTx } from '../../src/chain/applyTx';
import { NAME_REGISTRATION_COST } from '../../src/protocol/params';
import type { Address, TxType } from '../../src/protocol/types';
import { assetId } from '../../src/modules/assets/common';
import { ALICE, AssetWorld, BOB, CAROL, envelope, PRODUCER, validate } from '../helpers/assetHarness';
import { DEV_NETWORK } from '../../src/chain/devnet';

/**
 * Robustness of the 20 asset types against arbitrary input: whatever the envelope's `to`,
 * `amount` and `data`, `validate` answers a reason or nothing and never throws (it runs on
 * every POST /tx), and a transaction it lets through executes to `success` or `failed` with a
 * reason — never an exception (which applyTx would pass on as a node bug) — against a state
 * holding a real token, collection, item and name.
 */

const TYPES: TxType[] = [
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
  'NFT_CREATE',
  'NFT_MINT',
  'NFT_TRANSFER',
  'NFT_APPROVE',
  'NFT_BURN',
  'NAME_REGISTER',
  'NAME_UPDATE',
  'NAME_TRANSFER',
  'NAME_RELEASE',
];

/** A world with one token (TOK), one collection (ART) with item 1, and the name "alice". */
async function seeded(): Promise<{ w: AssetWorld; token: string; collection: string }> {
  const w = await AssetWorld.create();
  const create = await w.tx('TOKEN_CREATE', ALICE, {
    data: { name: 'Token', symbol: 'TOK', decimals: 6, supply: '1000000', mintable: true },
  });
  await w.apply(create);
  const nft = await w.tx('NFT_CREATE', ALICE, { data: { name: 'Art', symbol: 'ART' } });
  await w.apply(nft);
  const collection = assetId(nft.id);
  await w.apply(await w.tx('NFT_MINT', ALICE, { to: BOB, data: { collection, uri: 'ipfs://x' } }));
  await w.apply(
    await w.tx('NAME_REGISTER', ALICE, { amount: String(NAME_REGISTRATION_COST), data: { name: 'alice' } }),
  );
  return { w, token: assetId(create.id), collection };
}

describe('asset transaction inputs (fast-check)', () => {
  it('validate never throws, and what it admits executes to success or a failure reason', async () => {
    const { w, token, collection } = await seeded();
    const addresses: Address[] = [ALICE, BOB, CAROL, PRODUCER];
    const address = fc.constantFrom(...addresses);
    const scalar = fc.oneof(
      fc.constantFrom(
        token,
        collection,
        token.toUpperCase(),
        'TOK',
        'alice',
        'Alice',
        'a--b',
        '',
        '0',
        '1',
        '-1',
        '1.5',
        '1e3',
        `${2n ** 256n}`,
        `${2n ** 256n - 1n}`,
        'x'.repeat(300),
      ),
      address,
      fc.string({ maxLength: 40 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.bigInt({ min: 0n, max: 2n ** 260n }).map(String),
    );
    /** Plausible values per data field (what a client would send), mixed with junk below. */
    const good: Record<string, fc.Arbitrary<unknown>> = {
      token: fc.constant(token),
      amount: fc.oneof(fc.integer({ min: 1, max: 2_000_000 }).map(String), fc.constantFrom('0', `${2n ** 256n - 1n}`)),
      from: address,
      name: fc.constantFrom('alice', 'bob-2', 'carol', 'New Token', 'Art II'),
      symbol: fc.constantFrom('NEW', 'TOK', 'ART', 'ZZ9'),
      decimals: fc.integer({ min: 0, max: 19 }),
      supply: fc.constantFrom('0', '1000', `${2n ** 256n - 1n}`),
      mintable: fc.boolean(),
      blacklisted: fc.boolean(),
      until: fc.integer({ min: 0, max: 400 }),
      collection: fc.constant(collection),
      item: fc.integer({ min: 0, max: 3 }),
      uri: fc.oneof(fc.constant(null), fc.constantFrom('ipfs://y', 'x'.repeat(257))),
    };
    const FIELDS: Record<string, [string[], string[]]> = {
      TOKEN_CREATE: [['name', 'symbol', 'decimals', 'supply'], ['mintable']],
      TOKEN_TRANSFER: [['token', 'amount'], []],
      TOKEN_APPROVE: [['token', 'amount'], []],
      TOKEN_TRANSFER_FROM: [['token', 'from', 'amount'], []],
      TOKEN_MINT: [['token', 'amount'], []],
      TOKEN_BURN: [['token', 'amount'], []],
      TOKEN_PAUSE: [['token'], []],
      TOKEN_UNPAUSE: [['token'], []],
      TOKEN_BLACKLIST: [['token', 'blacklisted'], []],
      TOKEN_FREEZE: [['token', 'until'], []],
      TOKEN_UNFREEZE: [['token'], []],
      NFT_CREATE: [['name', 'symbol'], []],
      NFT_MINT: [['collection'], ['uri']],
      NFT_TRANSFER: [['collection', 'item'], []],
      NFT_APPROVE: [['collection', 'item'], []],
      NFT_BURN: [['collection', 'item'], []],
      NAME_REGISTER: [['name'], []],
      NAME_UPDATE: [['name'], []],
      NAME_TRANSFER: [['name'], []],
      NAME_RELEASE: [['name'], []],
    };
    const value = (field: string) => fc.oneof({ weight: 5, arbitrary: good[field]! }, { weight: 1, arbitrary: scalar });
    const shaped = (type: TxType) => {
      const [required, optional] = FIELDS[type]!;
      return fc.record(Object.fromEntries([...required, ...optional].map((f) => [f, value(f)])), {
        requiredKeys: required as never,
      });
    };
    const junk = fc.oneof(
      fc.dictionary(fc.constantFrom(...Object.keys(good)), fc.oneof(scalar, fc.array(scalar, { maxLength: 2 })), {
        maxKeys: 5,
      }),
      fc.anything({ maxDepth: 2 }),
    );
    const input = fc.constantFrom(...TYPES).chain((type) =>
      fc.record({
        type: fc.constant(type),
        from: address,
        to: fc.oneof(fc.constant(null), address),
        amount: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('0', String(NAME_REGISTRATION_COST)) },
          { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 13n }).map(String) },
        ),
        data: fc.oneof({ weight: 6, arbitrary: shaped(type) }, { weight: 1, arbitrary: junk }),
      }),
    );
    let admitted = 0;
    let succeeded = 0;
    await fc.assert(
      fc.asyncProperty(input, async ({ type, from, to, amount, data: d }) => {
        const probe = envelope(type, from, { to, amount, data: d });
        const reason = validate(probe);
        expect(reason === undefined || (typeof reason === 'string' && reason.length > 0)).toBe(true);
        if (reason !== undefined) return;
        admitted++;
        const tx = await w.tx(type, from, { to, amount, data: d });
        w.height += 1;
        const v = await applyTx(w.state, tx, {
          height: w.height,
          timestamp: w.height * 1000,
          producer: PRODUCER,
          network: DEV_NETWORK,
        });
        if (v.kind === 'skip') {
          expect(v.permanent).toBe(false); // only balance/fee shortfalls may skip what validate admitted
          return;
        }
        if (v.result.status === 'failed') {
          expect(v.result.error).toMatch(/\S/);
          expect(v.result.code).toMatch(/^[A-Z][A-Z0-9_]+$/); // every failure carries its code (protocol/refusal.ts)
        } else succeeded++;
      }),
      { numRuns: 4_000 },
    );
    expect(admitted).toBeGreaterThan(300);
    // The generator must reach successful executions too (measured 50–76 of 4,000 runs over
    // random seeds; a bar at 50 failed one CI run on an unlucky seed).
    expect(succeeded).toBeGreaterThan(25);
  });
});
