import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../../src/chain/envelope';
import { NAME_REGISTRATION_COST } from '../../../src/protocol/params';
import { toNative } from '../../../src/crypto/address';
import { deriveKeys } from '../../../src/crypto/keys';
import { assetId } from '../../../src/modules/assets/common';
import { fromHex } from '../../../src/primitives/hex';
import { useStubNode } from '../../helpers/stubNode';
import { runCliCaptured } from '../../helpers/cliRun';
import { DEV_NETWORK } from '../../../src/chain/devnet';

const SECRET = '11'.repeat(32);
const FROM = deriveKeys(fromHex(SECRET)).address;
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const TOKEN = '0x1111111111111111111111111111111111111111';
const COLL = '0x2222222222222222222222222222222222222222';

const run = runCliCaptured;

const OFFLINE = [
  '--secret',
  SECRET,
  '--nonce',
  '3',
  '--timestamp',
  '1700000000000',
  '--sign-only',
  '--genesis-hash',
  DEV_NETWORK.genesisHash,
];

/** Each write command (offline: ids, --nonce, --sign-only) → the fields it must sign. */
const SIGNED: [string[], { type: string; to: string | null; amount: string; data: unknown }][] = [
  [
    ['token', 'create', '--name', 'Cairn Dollar', '--symbol', 'CUSD', '--decimals', '6', '--supply', '1000000000000'],
    {
      type: 'TOKEN_CREATE',
      to: null,
      amount: '0',
      data: { name: 'Cairn Dollar', symbol: 'CUSD', decimals: 6, supply: '1000000000000' },
    },
  ],
  [
    ['token', 'create', '--name', 'M', '--symbol', 'M', '--supply', '0', '--mintable'],
    {
      type: 'TOKEN_CREATE',
      to: null,
      amount: '0',
      data: { name: 'M', symbol: 'M', decimals: 0, supply: '0', mintable: true },
    },
  ],
  [
    ['token', 'transfer', '--token', TOKEN, '--to', toNative(A), '--amount', '25'],
    { type: 'TOKEN_TRANSFER', to: A, amount: '0', data: { token: TOKEN, amount: '25' } },
  ],
  [
    ['token', 'approve', '--token', TOKEN, '--spender', A, '--amount', '0'],
    { type: 'TOKEN_APPROVE', to: A, amount: '0', data: { token: TOKEN, amount: '0' } },
  ],
  [
    ['token', 'transfer-from', '--token', TOKEN, '--from', toNative(B), '--to', A, '--amount', '2'],
    { type: 'TOKEN_TRANSFER_FROM', to: A, amount: '0', data: { token: TOKEN, from: B, amount: '2' } },
  ],
  [
    ['token', 'mint', '--token', TOKEN, '--to', A, '--amount', '9'],
    { type: 'TOKEN_MINT', to: A, amount: '0', data: { token: TOKEN, amount: '9' } },
  ],
  [
    ['token', 'burn', '--token', TOKEN, '--amount', '1'],
    { type: 'TOKEN_BURN', to: null, amount: '0', data: { token: TOKEN, amount: '1' } },
  ],
  [['token', 'pause', '--token', TOKEN], { type: 'TOKEN_PAUSE', to: null, amount: '0', data: { token: TOKEN } }],
  [
    ['token', 'unpause', '--token', TOKEN.toUpperCase().replace('0X', '0x')],
    { type: 'TOKEN_UNPAUSE', to: null, amount: '0', data: { token: TOKEN } },
  ],
  [
    ['token', 'blacklist', '--token', TOKEN, '--address', B],
    { type: 'TOKEN_BLACKLIST', to: B, amount: '0', data: { token: TOKEN, blacklisted: true } },
  ],
  [
    ['token', 'blacklist', '--token', TOKEN, '--address', B, '--remove'],
    { type: 'TOKEN_BLACKLIST', to: B, amount: '0', data: { token: TOKEN, blacklisted: false } },
  ],
  [
    ['token', 'freeze', '--token', TOKEN, '--until', '500'],
    { type: 'TOKEN_FREEZE', to: null, amount: '0', data: { token: TOKEN, until: 500 } },
  ],
  [['token', 'unfreeze', '--token', TOKEN], { type: 'TOKEN_UNFREEZE', to: null, amount: '0', data: { token: TOKEN } }],
  [
    ['nft', 'create', '--name', 'Stones', '--symbol', 'STONE'],
    { type: 'NFT_CREATE', to: null, amount: '0', data: { name: 'Stones', symbol: 'STONE' } },
  ],
  [
    ['nft', 'mint', '--collection', COLL, '--to', A],
    { type: 'NFT_MINT', to: A, amount: '0', data: { collection: COLL } },
  ],
  [
    ['nft', 'mint', '--collection', COLL, '--to', A, '--uri', 'ipfs://q'],
    { type: 'NFT_MINT', to: A, amount: '0', data: { collection: COLL, uri: 'ipfs://q' } },
  ],
  [
    ['nft', 'transfer', '--collection', COLL, '--item', '4', '--to', B],
    { type: 'NFT_TRANSFER', to: B, amount: '0', data: { collection: COLL, item: 4 } },
  ],
  [
    ['nft', 'approve', '--collection', COLL, '--item', '4', '--to', B],
    { type: 'NFT_APPROVE', to: B, amount: '0', data: { collection: COLL, item: 4 } },
  ],
  [
    ['nft', 'approve', '--collection', COLL, '--item', '4', '--clear'],
    { type: 'NFT_APPROVE', to: null, amount: '0', data: { collection: COLL, item: 4 } },
  ],
  [
    ['nft', 'burn', '--collection', COLL, '--item', '4'],
    { type: 'NFT_BURN', to: null, amount: '0', data: { collection: COLL, item: 4 } },
  ],
  [
    ['name', 'register', 'alice'],
    { type: 'NAME_REGISTER', to: null, amount: NAME_REGISTRATION_COST.toString(), data: { name: 'alice' } },
  ],
  [
    ['name', 'register', 'bob-2', '--target', toNative(B)],
    { type: 'NAME_REGISTER', to: B, amount: NAME_REGISTRATION_COST.toString(), data: { name: 'bob-2' } },
  ],
  [['name', 'update', 'alice', '--target', A], { type: 'NAME_UPDATE', to: A, amount: '0', data: { name: 'alice' } }],
  [['name', 'transfer', 'alice', '--to', B], { type: 'NAME_TRANSFER', to: B, amount: '0', data: { name: 'alice' } }],
  [['name', 'release', 'alice'], { type: 'NAME_RELEASE', to: null, amount: '0', data: { name: 'alice' } }],
];

describe('asset commands offline (--sign-only --nonce, ids)', () => {
  it('covers every asset type', () => {
    expect(new Set(SIGNED.map(([, f]) => f.type)).size).toBe(20);
  });

  it.each(SIGNED.map(([argv, f]) => [argv.slice(0, 2).join(' ') + ' → ' + f.type, argv, f] as const))(
    '%s',
    async (_label, argv, fields) => {
      const r = await run([...argv, ...OFFLINE]);
      expect(r.err.replace(/^(token|collection) id: 0x[0-9a-f]{40}$/, '')).toBe('');
      expect(r.code).toBe(0);
      const body = JSON.parse(r.out);
      const d = decodeEnvelope(body, DEV_NETWORK);
      expect(d.ok).toBe(true);
      if (!d.ok) return;
      expect(d.tx.id).toBe(body.id);
      expect({ type: d.tx.type, to: d.tx.to, amount: d.tx.amount, data: d.tx.data }).toStrictEqual(fields);
      expect(d.tx).toMatchObject({ from: FROM, nonce: 3, timestamp: 1700000000000, fee: '1000' });
      if (fields.type === 'TOKEN_CREATE') expect(r.err).toBe(`token id: ${assetId(d.tx.id)}`);
      if (fields.type === 'NFT_CREATE') expect(r.err).toBe(`collection id: ${assetId(d.tx.id)}`);
    },
  );

  it('--fee, $CAIRN_SECRET and the envelope stay one line of JSON', async () => {
    const r = await run(
      [
        'token',
        'burn',
        '--token',
        TOKEN,
        '--amount',
        '1',
        '--nonce',
        '0',
        '--fee',
        '77',
        '--sign-only',
        '--genesis-hash',
        DEV_NETWORK.genesisHash,
      ],
      { CAIRN_SECRET: SECRET },
    );
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toHaveLength(1);
    expect(JSON.parse(r.out)).toMatchObject({ fee: '77', nonce: 0, from: FROM });
  });

  const usageCases: [string, string[], RegExp][] = [
    ['missing --token', ['token', 'pause'], /--token is required/],
    ['missing --supply', ['token', 'create', '--name', 'x', '--symbol', 'X'], /--supply is required/],
    [
      'bad symbol',
      ['token', 'create', '--name', 'x', '--symbol', 'x-y', '--supply', '1'],
      /--symbol must be an upper-case letter/,
    ],
    [
      'decimals 19',
      ['token', 'create', '--name', 'x', '--symbol', 'X', '--supply', '1', '--decimals', '19'],
      /--decimals must be an integer from 0 to 18/,
    ],
    [
      'fixed supply 0',
      ['token', 'create', '--name', 'x', '--symbol', 'X', '--supply', '0'],
      /--supply may be 0 only for a mintable token/,
    ],
    [
      'decimal amount',
      ['token', 'transfer', '--token', TOKEN, '--to', A, '--amount', '1.5'],
      /--amount must be an integer amount in the token's base units/,
    ],
    [
      'bad --token',
      ['token', 'burn', '--token', 'not a token!', '--amount', '1'],
      /--token must be a token id \(0x \+ 40 hex\) or a token symbol/,
    ],
    [
      'bad --to',
      ['token', 'transfer', '--token', TOKEN, '--to', 'cairn1nope', '--amount', '1'],
      /--to is not a valid address/,
    ],
    ['blacklist target', ['token', 'blacklist', '--token', TOKEN], /--address is required/],
    ['freeze until 0', ['token', 'freeze', '--token', TOKEN, '--until', '0'], /--until must be an integer from 1/],
    ['item 0', ['nft', 'burn', '--collection', COLL, '--item', '0'], /--item must be an integer from 1/],
    [
      'item not a number',
      ['nft', 'burn', '--collection', COLL, '--item', 'x'],
      /--item must be a non-negative integer/,
    ],
    [
      'approve --to and --clear',
      ['nft', 'approve', '--collection', COLL, '--item', '1', '--to', A, '--clear'],
      /exactly one of --to/,
    ],
    ['approve neither', ['nft', 'approve', '--collection', COLL, '--item', '1'], /exactly one of --to/],
    [
      'long uri',
      ['nft', 'mint', '--collection', COLL, '--to', A, '--uri', 'u'.repeat(257)],
      /--uri must be at most 256 bytes/,
    ],
    ['upper-case name', ['name', 'register', 'Alice'], /<name> must be 3 to 32 characters/],
    ['missing name', ['name', 'release'], /missing name: cairn name release <name>/],
    ['two names', ['name', 'release', 'a', 'b'], /unexpected argument "b"/],
    ['name update target', ['name', 'update', 'alice'], /--target is required/],
    ['unknown flag', ['token', 'pause', '--token', TOKEN, '--bogus'], /--bogus/],
    [
      '--wait with --sign-only',
      ['token', 'pause', '--token', TOKEN, '--wait', 'included'],
      /do not apply with --sign-only/,
    ],
    ['bad --fee', ['token', 'pause', '--token', TOKEN, '--fee', '1.5'], /--fee must be a non-negative integer/],
  ];

  it.each(usageCases)('usage error (exit 2): %s', async (_label, argv, message) => {
    const r = await run([...argv, ...OFFLINE]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });

  it('a secret is required; unknown sub-commands list the valid ones', async () => {
    const r = await run([
      'token',
      'pause',
      '--token',
      TOKEN,
      '--nonce',
      '0',
      '--sign-only',
      '--genesis-hash',
      DEV_NETWORK.genesisHash,
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/a secret is required/);
    const u = await run(['nft', 'frobnicate']);
    expect(u.code).toBe(2);
    expect(u.err).toMatch(/unknown command "nft frobnicate"; expected nft create, nft mint, .* nft list or nft info/);
    expect((await run(['name'])).code).toBe(2);
  });
});

describe('help texts', () => {
  const subs: Record<string, string[]> = {
    token: [
      'create',
      'transfer',
      'approve',
      'transfer-from',
      'mint',
      'burn',
      'pause',
      'unpause',
      'blacklist',
      'freeze',
      'unfreeze',
      'info',
      'holders',
      'transfers',
      'list',
    ],
    nft: ['create', 'mint', 'transfer', 'approve', 'burn', 'info', 'list'],
    name: ['register', 'update', 'transfer', 'release', 'resolve', 'list'],
  };

  it('cairn --help lists the asset groups', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const g of Object.keys(subs)) expect(r.out).toMatch(new RegExp(`^  ${g} <sub>`, 'm'));
  });

  it.each(Object.entries(subs))(
    'cairn %s --help lists every sub-command, and each has its own --help',
    async (group, list) => {
      const g = await run([group, '--help']);
      expect(g.code).toBe(0);
      for (const s of list) expect(g.out).toContain(`${group} ${s}`);
      for (const s of list) {
        const h = await run([group, s, '--help']);
        expect(h.code).toBe(0);
        expect(h.out).toMatch(new RegExp(`^Usage: cairn ${group} ${s}`));
        expect(h.err).toBe('');
      }
    },
  );

  it('write helps explain sending, --sign-only and the exit codes', async () => {
    const h = await run(['token', 'create', '--help']);
    for (const flag of [
      '--name',
      '--symbol',
      '--supply',
      '--decimals',
      '--mintable',
      '--secret',
      '--node',
      '--wait',
      '--sign-only',
      '--nonce',
    ])
      expect(h.out).toContain(flag);
    expect(h.out).toMatch(/3 unknown/);
    const t = await run(['token', 'transfer', '-h']);
    expect(t.out).toMatch(/--token <id\|SYMBOL>/);
    const n = await run(['name', 'register', '--help']);
    expect(n.out).toContain(`${NAME_REGISTRATION_COST} base units`);
  });
});

// ---------------------------------------------------------------------------------------

describe('asset commands against a node (local node:http server)', () => {
  const stub = useStubNode();

  /** A node that knows token CUSD and collection STONE, accepts everything and includes it at once. */
  function fakeNode(events: unknown[] = []): { posted: () => Record<string, unknown> | undefined } {
    let posted: Record<string, unknown> | undefined;
    stub.handler = (req, body) => {
      if (req.url === `/address/${FROM}`) return { status: 200, body: { address: FROM, nextNonce: 5 } };
      if (req.url === '/tokens/CUSD') return { status: 200, body: { id: TOKEN, symbol: 'CUSD' } };
      if (req.url?.startsWith('/nfts/STONE'))
        return { status: 200, body: { id: COLL, symbol: 'STONE', items: [], nextBefore: null } };
      if (req.method === 'POST' && req.url === '/tx') {
        posted = JSON.parse(body);
        return { status: 200, body: { accepted: true, id: posted!.id } };
      }
      if (req.url === `/tx/${posted?.id}`)
        return {
          status: 200,
          body: {
            id: posted!.id,
            status: 'included',
            blockHeight: 8,
            blockHash: '0x08',
            result: { status: 'success', events },
          },
        };
      return { status: 404, body: { error: 'not found' } };
    };
    return { posted: () => posted };
  }

  it('token transfer by symbol: resolves the id, reads the nonce, sends, waits', async () => {
    const node = fakeNode();
    const r = await run(
      [
        'token',
        'transfer',
        '--token',
        'cusd',
        '--to',
        A,
        '--amount',
        '10',
        '--node',
        stub.url,
        '--wait',
        'included',
        '--poll',
        '10',
      ],
      { CAIRN_SECRET: SECRET },
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const sent = node.posted()!;
    expect(decodeEnvelope(sent, DEV_NETWORK).ok).toBe(true);
    expect(sent).toMatchObject({ type: 'TOKEN_TRANSFER', nonce: 5, to: A, data: { token: TOKEN, amount: '10' } });
    expect(JSON.parse(r.out)).toEqual({
      accepted: true,
      id: sent.id,
      outcome: 'included',
      blockHeight: 8,
      blockHash: '0x08',
    });
    expect(stub.seen.slice(0, 3).sort()).toEqual(['GET /address/' + FROM, 'GET /tokens/CUSD', 'POST /tx'].sort());
  });

  it('token create prints the token id with the verdict; --sign-only without --nonce asks the node', async () => {
    const node = fakeNode();
    const r = await run([
      'token',
      'create',
      '--name',
      'X',
      '--symbol',
      'XX',
      '--supply',
      '5',
      '--node',
      stub.url,
      '--secret',
      SECRET,
    ]);
    expect(r.code).toBe(0);
    const id = node.posted()!.id as `0x${string}`;
    expect(JSON.parse(r.out)).toEqual({ accepted: true, id, token: assetId(id) });

    stub.seen = [];
    const s = await run([
      'nft',
      'mint',
      '--collection',
      'stone',
      '--to',
      A,
      '--sign-only',
      '--node',
      stub.url,
      '--secret',
      SECRET,
    ]);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out)).toMatchObject({ type: 'NFT_MINT', nonce: 5, data: { collection: COLL } });
    expect(stub.seen).toEqual(['GET /nfts/STONE?limit=1', `GET /address/${FROM}`]); // nothing posted
  });

  it('nft mint --wait reports the minted item; a refusal exits 1; an unknown symbol exits 1', async () => {
    fakeNode([{ kind: 'nft.transfer', collection: COLL, item: 7, from: null, to: A }]);
    const r = await run([
      'nft',
      'mint',
      '--collection',
      COLL,
      '--to',
      A,
      '--node',
      stub.url,
      '--secret',
      SECRET,
      '--wait',
      'included',
      '--poll',
      '10',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ accepted: true, outcome: 'included', item: 7 });

    stub.handler = (req) =>
      req.method === 'POST'
        ? { status: 400, body: { error: 'NAME_REGISTER amount must be 10000000' } }
        : { status: 404, body: { error: 'nf' } };
    const refused = await run(['name', 'register', 'alice', '--node', stub.url, '--secret', SECRET]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toMatchObject({ accepted: false, reason: 'NAME_REGISTER amount must be 10000000' });

    stub.handler = () => ({ status: 404, body: { error: 'token not found: NOPE' } });
    const missing = await run([
      'token',
      'burn',
      '--token',
      'NOPE',
      '--amount',
      '1',
      '--node',
      stub.url,
      '--secret',
      SECRET,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no token with symbol NOPE/);
  });

  it('reads: token info/holders/transfers/list, nft info/list, name resolve/list', async () => {
    stub.handler = (req) => {
      const u = req.url!;
      if (u === '/tokens/cusd' || u === `/tokens/${TOKEN}`)
        return { status: 200, body: { id: TOKEN, symbol: 'CUSD', supply: '1' } };
      if (u === '/tokens/CUSD/holders?limit=2')
        return {
          status: 200,
          body: { token: TOKEN, holders: [{ address: A, native: toNative(A), balance: '1' }], nextBefore: 'n1' },
        };
      if (u === `/tokens/${TOKEN}/transfers?limit=1&before=n1`)
        return { status: 200, body: { token: TOKEN, transfers: [], nextBefore: null } };
      if (u === '/tokens' || u === '/nfts' || u === '/names?limit=3') return { status: 200, body: { list: u } };
      if (u === `/nfts/${COLL}:3`) return { status: 200, body: { id: `${COLL}:3`, item: 3 } };
      if (u === '/nfts/stone?limit=2') return { status: 200, body: { id: COLL, items: [] } };
      if (u === '/name/alice') return { status: 200, body: { name: 'alice', address: A } };
      return { status: 404, body: { error: `not found: ${u}` } };
    };
    const info = await run(['token', 'info', 'cusd', '--node', stub.url]);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.out)).toEqual({ id: TOKEN, symbol: 'CUSD', supply: '1' });
    expect(JSON.parse((await run(['token', 'info', TOKEN, '--node', stub.url])).out).id).toBe(TOKEN);
    const holders = await run(['token', 'holders', 'CUSD', '--limit', '2', '--node', stub.url]);
    expect(JSON.parse(holders.out)).toMatchObject({ token: TOKEN, nextBefore: 'n1' });
    const transfers = await run(['token', 'transfers', TOKEN, '--limit', '1', '--before', 'n1', '--node', stub.url]);
    expect(transfers.code).toBe(0);
    expect(JSON.parse(transfers.out)).toEqual({ token: TOKEN, transfers: [], nextBefore: null });
    expect(JSON.parse((await run(['token', 'list', '--node', stub.url])).out)).toEqual({ list: '/tokens' });
    expect(JSON.parse((await run(['nft', 'list', '--node', stub.url])).out)).toEqual({ list: '/nfts' });
    expect(JSON.parse((await run(['name', 'list', '--limit', '3', '--node', stub.url])).out)).toEqual({
      list: '/names?limit=3',
    });
    expect(JSON.parse((await run(['nft', 'info', `${COLL}:3`, '--node', stub.url])).out)).toMatchObject({ item: 3 });
    expect(JSON.parse((await run(['nft', 'info', 'stone', '--limit', '2', '--node', stub.url])).out)).toMatchObject({
      id: COLL,
    });
    expect(JSON.parse((await run(['name', 'resolve', 'alice', '--node', stub.url])).out)).toEqual({
      name: 'alice',
      address: A,
    });

    const none = await run(['name', 'resolve', 'nobody', '--node', stub.url]);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/not found: \/name\/nobody \(404\)/);
    const noToken = await run(['token', 'info', 'ZZZ', '--node', stub.url]);
    expect(noToken.code).toBe(1);
    expect(noToken.err).toMatch(/not found: \/tokens\/ZZZ \(404\)/);
    expect((await run(['nft', 'info', `${COLL}:9`, '--node', stub.url])).code).toBe(1);
    expect((await run(['token', 'holders', 'x!', '--node', stub.url])).code).toBe(2);
    // A name the node cannot hold is "not registered" (404) there too: the node decides.
    expect((await run(['name', 'resolve', 'A', '--node', stub.url])).code).toBe(1);
    expect((await run(['nft', 'info', `${COLL}:0`, '--node', stub.url])).code).toBe(2);
    expect((await run(['nft', 'info', COLL, '--item', '1', '--node', stub.url])).code).toBe(2);
  });
});
