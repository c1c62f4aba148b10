import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../../src/chain/envelope';
import { NAME_REGISTRATION_COST } from '../../../src/protocol/params';
import { TX_TYPES } from '../../../src/modules/registry';
import { toNative } from '../../../src/crypto/address';
import { deriveKeys } from '../../../src/crypto/keys';
import { isCairnError } from '../../../src/errors/CairnError';
import { assetId } from '../../../src/modules/assets/common';
import { fromHex } from '../../../src/primitives/hex';
import {
  ASSET_TX_TYPES,
  buildAssetTx,
  CairnClient,
  createdAssetId,
  signTx,
  type AssetTxInput,
  type UnsignedAssetTx,
} from '../../../src/sdk';
import { useStubNode } from '../../helpers/stubNode';
import { DEV_NETWORK } from '../../../src/chain/devnet';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const TOKEN = '0x1111111111111111111111111111111111111111';
const COLL = '0x2222222222222222222222222222222222222222';
const MAX = (2n ** 256n - 1n).toString();

/** Every type once, with the exact fields it must produce. */
const CASES: [AssetTxInput, UnsignedAssetTx][] = [
  [
    { type: 'TOKEN_CREATE', name: 'Cairn Dollar', symbol: 'CUSD', decimals: 6, supply: 1_000_000n },
    {
      type: 'TOKEN_CREATE',
      to: null,
      amount: '0',
      data: { name: 'Cairn Dollar', symbol: 'CUSD', decimals: 6, supply: '1000000' },
    },
  ],
  [
    { type: 'TOKEN_CREATE', name: 'M', symbol: 'M1', decimals: 0, supply: '0', mintable: true },
    {
      type: 'TOKEN_CREATE',
      to: null,
      amount: '0',
      data: { name: 'M', symbol: 'M1', decimals: 0, supply: '0', mintable: true },
    },
  ],
  [
    { type: 'TOKEN_TRANSFER', token: TOKEN.toUpperCase().replace('0X', '0x'), to: toNative(A), amount: MAX },
    { type: 'TOKEN_TRANSFER', to: A, amount: '0', data: { token: TOKEN, amount: MAX } },
  ],
  [
    { type: 'TOKEN_APPROVE', token: TOKEN, spender: A, amount: 0 },
    { type: 'TOKEN_APPROVE', to: A, amount: '0', data: { token: TOKEN, amount: '0' } },
  ],
  [
    { type: 'TOKEN_TRANSFER_FROM', token: TOKEN, from: toNative(B), to: A, amount: '5' },
    { type: 'TOKEN_TRANSFER_FROM', to: A, amount: '0', data: { token: TOKEN, from: B, amount: '5' } },
  ],
  [
    { type: 'TOKEN_MINT', token: TOKEN, to: A, amount: 7 },
    { type: 'TOKEN_MINT', to: A, amount: '0', data: { token: TOKEN, amount: '7' } },
  ],
  [
    { type: 'TOKEN_BURN', token: TOKEN, amount: '3' },
    { type: 'TOKEN_BURN', to: null, amount: '0', data: { token: TOKEN, amount: '3' } },
  ],
  [
    { type: 'TOKEN_PAUSE', token: TOKEN },
    { type: 'TOKEN_PAUSE', to: null, amount: '0', data: { token: TOKEN } },
  ],
  [
    { type: 'TOKEN_UNPAUSE', token: TOKEN },
    { type: 'TOKEN_UNPAUSE', to: null, amount: '0', data: { token: TOKEN } },
  ],
  [
    { type: 'TOKEN_BLACKLIST', token: TOKEN, target: B, blacklisted: true },
    { type: 'TOKEN_BLACKLIST', to: B, amount: '0', data: { token: TOKEN, blacklisted: true } },
  ],
  [
    { type: 'TOKEN_BLACKLIST', token: TOKEN, target: B, blacklisted: false },
    { type: 'TOKEN_BLACKLIST', to: B, amount: '0', data: { token: TOKEN, blacklisted: false } },
  ],
  [
    { type: 'TOKEN_FREEZE', token: TOKEN, until: 1234 },
    { type: 'TOKEN_FREEZE', to: null, amount: '0', data: { token: TOKEN, until: 1234 } },
  ],
  [
    { type: 'TOKEN_UNFREEZE', token: TOKEN },
    { type: 'TOKEN_UNFREEZE', to: null, amount: '0', data: { token: TOKEN } },
  ],

  [
    { type: 'NFT_CREATE', name: 'Stones', symbol: 'STONE' },
    { type: 'NFT_CREATE', to: null, amount: '0', data: { name: 'Stones', symbol: 'STONE' } },
  ],
  [
    { type: 'NFT_MINT', collection: COLL, to: A },
    { type: 'NFT_MINT', to: A, amount: '0', data: { collection: COLL } },
  ],
  [
    { type: 'NFT_MINT', collection: COLL, to: A, uri: 'ipfs://x' },
    { type: 'NFT_MINT', to: A, amount: '0', data: { collection: COLL, uri: 'ipfs://x' } },
  ],
  [
    { type: 'NFT_TRANSFER', collection: COLL, item: 2, to: B },
    { type: 'NFT_TRANSFER', to: B, amount: '0', data: { collection: COLL, item: 2 } },
  ],
  [
    { type: 'NFT_APPROVE', collection: COLL, item: 1, approved: B },
    { type: 'NFT_APPROVE', to: B, amount: '0', data: { collection: COLL, item: 1 } },
  ],
  [
    { type: 'NFT_APPROVE', collection: COLL, item: 1, approved: null },
    { type: 'NFT_APPROVE', to: null, amount: '0', data: { collection: COLL, item: 1 } },
  ],
  [
    { type: 'NFT_BURN', collection: COLL, item: 9 },
    { type: 'NFT_BURN', to: null, amount: '0', data: { collection: COLL, item: 9 } },
  ],

  [
    { type: 'NAME_REGISTER', name: 'alice' },
    { type: 'NAME_REGISTER', to: null, amount: NAME_REGISTRATION_COST.toString(), data: { name: 'alice' } },
  ],
  [
    { type: 'NAME_REGISTER', name: 'a-1', target: toNative(B) },
    { type: 'NAME_REGISTER', to: B, amount: NAME_REGISTRATION_COST.toString(), data: { name: 'a-1' } },
  ],
  [
    { type: 'NAME_UPDATE', name: 'alice', target: A },
    { type: 'NAME_UPDATE', to: A, amount: '0', data: { name: 'alice' } },
  ],
  [
    { type: 'NAME_TRANSFER', name: 'alice', owner: B },
    { type: 'NAME_TRANSFER', to: B, amount: '0', data: { name: 'alice' } },
  ],
  [
    { type: 'NAME_RELEASE', name: 'alice' },
    { type: 'NAME_RELEASE', to: null, amount: '0', data: { name: 'alice' } },
  ],
];

describe('buildAssetTx', () => {
  it('covers exactly the 20 asset types of TX_TYPES', () => {
    expect([...ASSET_TX_TYPES].sort()).toEqual(TX_TYPES.filter((t) => /^(TOKEN|NFT|NAME)_/.test(t)).sort());
    expect(ASSET_TX_TYPES).toHaveLength(20);
    expect(new Set(CASES.map(([i]) => i.type)).size).toBe(20);
  });

  it.each(
    CASES.map(
      ([input, expected]) =>
        [
          `${input.type} ${JSON.stringify(input, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
          input,
          expected,
        ] as const,
    ),
  )('%s', (_label, input, expected) => {
    const built = buildAssetTx(input);
    expect(built).toStrictEqual(expected);
    // The fields sign and decode unchanged.
    const keys = deriveKeys(fromHex('22'.repeat(32)));
    const tx = signTx(keys, { ...built, nonce: 0, timestamp: 1 }, DEV_NETWORK);
    const d = decodeEnvelope(JSON.parse(JSON.stringify(tx)), DEV_NETWORK);
    expect(d.ok).toBe(true);
    if (d.ok) expect({ type: d.tx.type, to: d.tx.to, amount: d.tx.amount, data: d.tx.data }).toStrictEqual(expected);
  });

  const bad: [string, AssetTxInput | unknown, string, RegExp][] = [
    [
      'lower-case symbol',
      { type: 'TOKEN_CREATE', name: 'x', symbol: 'usd', decimals: 0, supply: '1' },
      'symbol',
      /^symbol must be an upper-case letter/,
    ],
    ['symbol too long', { type: 'NFT_CREATE', name: 'x', symbol: 'ABCDEFGHIJKLM' }, 'symbol', /symbol/],
    ['symbol starting with a digit', { type: 'NFT_CREATE', name: 'x', symbol: '1AB' }, 'symbol', /symbol/],
    [
      'empty name',
      { type: 'TOKEN_CREATE', name: '', symbol: 'A', decimals: 0, supply: '1' },
      'name',
      /^name must be a non-empty string/,
    ],
    ['name over 64 bytes', { type: 'NFT_CREATE', name: 'é'.repeat(33), symbol: 'A' }, 'name', /at most 64 bytes/],
    ['control character in name', { type: 'NFT_CREATE', name: 'a\nb', symbol: 'A' }, 'name', /control characters/],
    [
      'decimals 19',
      { type: 'TOKEN_CREATE', name: 'x', symbol: 'A', decimals: 19, supply: '1' },
      'decimals',
      /^decimals must be an integer from 0 to 18/,
    ],
    [
      'fractional decimals',
      { type: 'TOKEN_CREATE', name: 'x', symbol: 'A', decimals: 1.5, supply: '1' },
      'decimals',
      /decimals/,
    ],
    [
      'supply 0, fixed',
      { type: 'TOKEN_CREATE', name: 'x', symbol: 'A', decimals: 0, supply: '0' },
      'supply',
      /only for a mintable token/,
    ],
    [
      'supply over 2^256-1',
      { type: 'TOKEN_CREATE', name: 'x', symbol: 'A', decimals: 0, supply: (2n ** 256n).toString() },
      'supply',
      /2\^256/,
    ],
    [
      'mintable not boolean',
      { type: 'TOKEN_CREATE', name: 'x', symbol: 'A', decimals: 0, supply: '1', mintable: 'yes' },
      'mintable',
      /true or false/,
    ],
    [
      'decimal amount',
      { type: 'TOKEN_TRANSFER', token: TOKEN, to: A, amount: '1.5' },
      'amount',
      /^amount must be an integer amount/,
    ],
    ['leading zero amount', { type: 'TOKEN_TRANSFER', token: TOKEN, to: A, amount: '01' }, 'amount', /amount/],
    ['negative amount', { type: 'TOKEN_MINT', token: TOKEN, to: A, amount: -1n }, 'amount', /amount/],
    ['zero transfer', { type: 'TOKEN_TRANSFER', token: TOKEN, to: A, amount: '0' }, 'amount', /from 1 to/],
    ['zero burn', { type: 'TOKEN_BURN', token: TOKEN, amount: 0n }, 'amount', /from 1 to/],
    ['unsafe number amount', { type: 'TOKEN_BURN', token: TOKEN, amount: 2 ** 60 }, 'amount', /amount/],
    ['token by symbol', { type: 'TOKEN_PAUSE', token: 'CUSD' }, 'token', /^token must be an asset id/],
    ['short token id', { type: 'TOKEN_PAUSE', token: '0x1234' }, 'token', /token/],
    [
      'bad recipient',
      { type: 'TOKEN_TRANSFER', token: TOKEN, to: 'cairn1nope', amount: '1' },
      'to',
      /^to must be an address/,
    ],
    [
      'missing from',
      { type: 'TOKEN_TRANSFER_FROM', token: TOKEN, to: A, amount: '1' },
      'from',
      /^from must be an address/,
    ],
    [
      'blacklisted not boolean',
      { type: 'TOKEN_BLACKLIST', token: TOKEN, target: A, blacklisted: 1 },
      'blacklisted',
      /true or false/,
    ],
    ['freeze until 0', { type: 'TOKEN_FREEZE', token: TOKEN, until: 0 }, 'until', /^until must be an integer from 1/],
    ['item 0', { type: 'NFT_BURN', collection: COLL, item: 0 }, 'item', /^item must be an integer from 1/],
    ['item as string', { type: 'NFT_TRANSFER', collection: COLL, item: '2', to: A }, 'item', /item/],
    [
      'bad collection',
      { type: 'NFT_MINT', collection: 'STONE', to: A },
      'collection',
      /^collection must be an asset id/,
    ],
    [
      'uri over 256 bytes',
      { type: 'NFT_MINT', collection: COLL, to: A, uri: 'u'.repeat(257) },
      'uri',
      /at most 256 bytes/,
    ],
    [
      'approve nobody implicitly',
      { type: 'NFT_APPROVE', collection: COLL, item: 1 },
      'approved',
      /approved must be an address/,
    ],
    ['upper-case name', { type: 'NAME_REGISTER', name: 'Alice' }, 'name', /^name must be 3 to 32 characters/],
    ['name too short', { type: 'NAME_RELEASE', name: 'ab' }, 'name', /name/],
    ['name ending with -', { type: 'NAME_UPDATE', name: 'abc-', target: A }, 'name', /name/],
    ['name with underscore', { type: 'NAME_TRANSFER', name: 'a_b_c', owner: A }, 'name', /name/],
    ['name update without target', { type: 'NAME_UPDATE', name: 'alice' }, 'target', /^target must be an address/],
    [
      'name transfer to garbage',
      { type: 'NAME_TRANSFER', name: 'alice', owner: '0x12' },
      'owner',
      /^owner must be an address/,
    ],
    ['not an asset type', { type: 'TRANSFER', to: A }, 'type', /^type must be one of TOKEN_CREATE/],
    ['not an object', null, 'type', /input must be an object/],
  ];

  it.each(bad)('refuses %s with a field-named error', (_label, input, field, message) => {
    let err: unknown;
    try {
      buildAssetTx(input as AssetTxInput);
    } catch (e) {
      err = e;
    }
    expect(isCairnError(err)).toBe(true);
    if (!isCairnError(err)) return;
    expect(err.code).toBe('INVALID_ASSET_TX');
    expect(err.meta.field).toBe(field);
    expect(err.message).toMatch(message);
  });

  it('createdAssetId gives assetId(tx id) for the two creating types only', () => {
    const keys = deriveKeys(fromHex('22'.repeat(32)));
    const create = signTx(keys, { ...buildAssetTx(CASES[0][0]), nonce: 0 }, DEV_NETWORK);
    expect(createdAssetId(create)).toBe(assetId(create.id));
    expect(createdAssetId(create)).toMatch(/^0x[0-9a-f]{40}$/);
    const nft = signTx(
      keys,
      { ...buildAssetTx({ type: 'NFT_CREATE', name: 'n', symbol: 'N' }), nonce: 1 },
      DEV_NETWORK,
    );
    expect(createdAssetId(nft)).toBe(assetId(nft.id));
    const mint = signTx(
      keys,
      { ...buildAssetTx({ type: 'NFT_MINT', collection: COLL, to: A }), nonce: 2 },
      DEV_NETWORK,
    );
    expect(createdAssetId(mint)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------

describe('CairnClient asset reads and sendAsset (local node:http server)', () => {
  const stub = useStubNode();
  let client: CairnClient;
  beforeAll(() => {
    client = new CairnClient(`${stub.url}/`);
  });
  beforeEach(() => {
    stub.handler = () => ({ status: 200, body: { ok: true } });
  });

  it('reads hit the documented paths with limit/before, and 404 reads give null', async () => {
    await client.tokens();
    await client.tokens({ limit: 5, before: 'abc/+=' });
    await client.token('CUSD');
    await client.tokenHolders(TOKEN, { limit: 2 });
    await client.tokenTransfers('CUSD', { before: 'c1' });
    await client.nfts({ limit: 1 });
    await client.nftCollection(COLL, { limit: 3 });
    await client.nftItem(COLL, 4);
    await client.names({ limit: 10, before: 'x' });
    await client.resolveName('alice');
    expect(stub.seen).toEqual([
      'GET /tokens',
      'GET /tokens?limit=5&before=abc%2F%2B%3D',
      'GET /tokens/CUSD',
      `GET /tokens/${TOKEN}/holders?limit=2`,
      'GET /tokens/CUSD/transfers?before=c1',
      'GET /nfts?limit=1',
      `GET /nfts/${COLL}?limit=3`,
      `GET /nfts/${COLL}:4`,
      'GET /names?limit=10&before=x',
      'GET /name/alice',
    ]);

    stub.handler = () => ({ status: 404, body: { error: 'not found' } });
    expect(await client.token('NOPE')).toBeNull();
    expect(await client.nftCollection(COLL)).toBeNull();
    expect(await client.nftItem(COLL, 1)).toBeNull();
    expect(await client.resolveName('nobody')).toBeNull();
    await expect(client.tokenHolders(TOKEN)).rejects.toMatchObject({ code: 'HTTP_404' });
  });

  it('sendAsset: nonce from the node, signed envelope posted, asset id returned, optional wait', async () => {
    const keys = deriveKeys(fromHex('33'.repeat(32)));
    let posted: Record<string, unknown> | undefined;
    stub.handler = (req, body) => {
      if (req.url === `/address/${keys.address}`) return { status: 200, body: { address: keys.address, nextNonce: 4 } };
      if (req.method === 'POST' && req.url === '/tx') {
        posted = JSON.parse(body);
        return { status: 200, body: { accepted: true, id: posted!.id } };
      }
      if (req.url?.startsWith('/tx/'))
        return {
          status: 200,
          body: { id: posted!.id, status: 'included', blockHeight: 3, result: { status: 'success' } },
        };
      return { status: 404, body: { error: 'not found' } };
    };
    const r = await client.sendAsset(
      keys,
      { type: 'TOKEN_CREATE', name: 'T', symbol: 'T', decimals: 2, supply: '100' },
      { wait: 'included', pollMs: 5 },
    );
    expect(r.verdict).toEqual({ accepted: true, id: r.tx.id });
    expect(r.assetId).toBe(assetId(r.tx.id));
    expect(r.wait?.outcome).toBe('included');
    expect(posted?.nonce).toBe(4);
    const d = decodeEnvelope(posted, DEV_NETWORK);
    expect(d.ok && d.tx).toMatchObject({
      type: 'TOKEN_CREATE',
      from: keys.address,
      to: null,
      amount: '0',
      data: { name: 'T', symbol: 'T', decimals: 2, supply: '100' },
    });

    // An explicit nonce skips the account read; a refusal is a verdict, not an error.
    stub.seen = [];
    stub.handler = (req) =>
      req.method === 'POST' ? { status: 400, body: { error: 'TOKEN_BURN data.amount …' } } : { status: 500 };
    const refused = await client.sendAsset(
      keys,
      { type: 'TOKEN_BURN', token: TOKEN, amount: '1' },
      { nonce: 9, fee: 5n, wait: 'included' },
    );
    expect(refused.verdict).toMatchObject({ accepted: false, reason: 'TOKEN_BURN data.amount …' });
    expect(refused.wait).toBeUndefined();
    expect(refused.assetId).toBeUndefined();
    expect(refused.tx).toMatchObject({ nonce: 9, fee: '5' });
    expect(stub.seen).toEqual(['POST /tx']);

    // Bad input throws before anything is sent.
    stub.seen = [];
    await expect(client.sendAsset(keys, { type: 'NAME_REGISTER', name: 'X' }, { nonce: 0 })).rejects.toMatchObject({
      code: 'INVALID_ASSET_TX',
    });
    expect(stub.seen).toEqual([]);
  });
});
