import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../../src/chain/envelope';
import { toNative } from '../../../src/crypto/address';
import { deriveKeys } from '../../../src/crypto/keys';
import {
  committeeDigest,
  inboundDigest,
  memberOf,
  quorumRefusal,
  type MemberSignature,
} from '../../../src/modules/bridge';
import { fromHex } from '../../../src/primitives/hex';
import type { CommitteeRecord } from '../../../src/protocol/bridge';
import { runCliCaptured as run } from '../../helpers/cliRun';
import { useStubNode } from '../../helpers/stubNode';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { scratchDirs } from '../../helpers/scratch';

const scratch = scratchDirs();

/**
 * `cairn bridge …`: the writes offline (out, in, settle, rotate from their registry entries),
 * the offline member tools (member, attest) whose signatures the node's own quorum check
 * accepts, the reads against a stand-in node, usage errors and help.
 */

const SECRETS = ['31', '32', '33'].map((b) => b.repeat(32));
const MEMBERS = SECRETS.map((s) => deriveKeys(fromHex(s)));
const [SECRET] = SECRETS;
const FROM = MEMBERS[0].address;
const A = '0x00000000000000000000000000000000000000aa';
const TOKEN = '0x1111111111111111111111111111111111111111';
const ID = `0x${'ab'.repeat(32)}`;
const OFFLINE = [
  '--secret',
  SECRET,
  '--nonce',
  '7',
  '--timestamp',
  '1700000000000',
  '--sign-only',
  '--genesis-hash',
  DEV_NETWORK.genesisHash,
];
const dir = scratch('cairn-cli-bridge-');
const file = (name: string, content: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};
/** The committee a proposal of MEMBERS with `threshold` would install (epoch 1). */
const committee = (threshold = 2): CommitteeRecord => ({
  epoch: 1,
  members: MEMBERS.map(memberOf).sort((a, b) => (a.address < b.address ? -1 : 1)),
  threshold,
  since: 1,
});
const DEPOSIT = [
  '--source-chain',
  'ethereum',
  '--source-tx',
  '0xd1',
  '--asset',
  'native',
  '--to',
  toNative(A),
  '--amount',
  '5000',
];
const depositMessage = { sourceChain: 'ethereum', sourceTx: '0xd1', asset: 'native', to: A, amount: '5000' } as const;

async function signed(argv: string[]) {
  const r = await run([...argv, ...OFFLINE]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const d = decodeEnvelope(JSON.parse(r.out), DEV_NETWORK);
  if (!d.ok) throw new Error(`not an envelope: ${r.out}`);
  return d.tx;
}

async function attest(secret: string, argv: string[]) {
  const r = await run(['bridge', 'attest', ...argv], { CAIRN_SECRET: secret });
  return { ...r, json: r.code === 0 ? JSON.parse(r.out) : undefined };
}

describe('bridge writes offline (--sign-only)', () => {
  it('bridge out: coins as the envelope amount, or a token with its amount in data', async () => {
    const coins = await signed([
      'bridge',
      'out',
      '--chain',
      'ethereum',
      '--recipient',
      '0xAbC0000000000000000000000000000000000001',
      '--amount',
      '25000000',
    ]);
    expect({ type: coins.type, to: coins.to, amount: coins.amount, data: coins.data }).toStrictEqual({
      type: 'BRIDGE_OUT',
      to: null,
      amount: '25000000',
      data: { chain: 'ethereum', recipient: '0xAbC0000000000000000000000000000000000001' },
    });
    expect(coins).toMatchObject({ from: FROM, nonce: 7 });
    const token = await signed([
      'bridge',
      'out',
      '--chain',
      'solana',
      '--recipient',
      'So1ana1111',
      '--token',
      TOKEN,
      '--token-amount',
      '900',
    ]);
    expect({ amount: token.amount, data: token.data }).toStrictEqual({
      amount: '0',
      data: { chain: 'solana', recipient: 'So1ana1111', token: TOKEN, tokenAmount: '900' },
    });
  });

  it("bridge in: the signatures file goes into data as it is, and its quorum passes the node's check", async () => {
    const into = join(dir, 'deposit-sigs.json');
    for (const s of SECRETS.slice(1)) expect((await attest(s, [...DEPOSIT, '--into', into])).code).toBe(0);
    const tx = await signed(['bridge', 'in', ...DEPOSIT, '--signatures', into]);
    const data = tx.data as typeof depositMessage & { signatures: MemberSignature[] };
    expect(tx).toMatchObject({ type: 'BRIDGE_IN', to: null, amount: '0' });
    expect({ ...data, signatures: undefined }).toStrictEqual({ ...depositMessage, signatures: undefined });
    expect(data.signatures.map((s) => s.signer)).toEqual(MEMBERS.slice(1).map((k) => k.address));
    expect(quorumRefusal(committee(), inboundDigest(depositMessage), data.signatures, 'BRIDGE_IN')).toBeUndefined();
  });

  it('bridge settle and bridge rotate', async () => {
    const settle = await signed(['bridge', 'settle', '--transfer', ID, '--target-tx', '0x9f01']);
    expect({ type: settle.type, amount: settle.amount, data: settle.data }).toStrictEqual({
      type: 'BRIDGE_SETTLE',
      amount: '0',
      data: { transferId: ID, targetTx: '0x9f01' },
    });
    const members = file('rotate-members.json', MEMBERS.slice(0, 2).map(memberOf));
    const sigs = join(dir, 'rotate-sigs.json');
    for (const s of SECRETS.slice(0, 2))
      expect((await attest(s, ['--committee', members, '--threshold', '2', '--epoch', '2', '--into', sigs])).code).toBe(
        0,
      );
    const rotate = await signed(['bridge', 'rotate', '--members', members, '--threshold', '2', '--signatures', sigs]);
    const d = rotate.data as { members: unknown[]; threshold: number; signatures: MemberSignature[] };
    expect(rotate.type).toBe('BRIDGE_COMMITTEE_UPDATE');
    expect(d.members).toEqual(MEMBERS.slice(0, 2).map(memberOf));
    expect(d.threshold).toBe(2);
    // The current committee (epoch 1, 2 of 3) hands over: its members signed epoch 2's digest.
    expect(
      quorumRefusal(
        committee(),
        committeeDigest({ epoch: 2, members: MEMBERS.slice(0, 2).map(memberOf), threshold: 2 }),
        d.signatures,
        'BRIDGE_COMMITTEE_UPDATE',
      ),
    ).toBeUndefined();
  });

  it('refuses what the node would refuse, naming the flag', async () => {
    const both = await run(['bridge', 'out', '--chain', 'ethereum', '--recipient', 'x1', '--token', TOKEN, ...OFFLINE]);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/token-amount/);
    const chain = await run([
      'bridge',
      'out',
      '--chain',
      'Ethereum!',
      '--recipient',
      'x1',
      '--amount',
      '5',
      ...OFFLINE,
    ]);
    expect(chain.code).toBe(2);
    expect(chain.err).toMatch(/--chain must be a chain name/);
    const settle = await run(['bridge', 'settle', '--transfer', '0x12', '--target-tx', 't', ...OFFLINE]);
    expect(settle.code).toBe(2);
    expect(settle.err).toMatch(/--transfer/);
  });
});

describe('bridge member and bridge attest (offline)', () => {
  it('bridge member prints the entry a committee lists', async () => {
    const r = await run(['bridge', 'member', '--secret', SECRET]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toStrictEqual(memberOf(MEMBERS[0]));
  });

  it(
    'bridge attest signs the inbound digest with both halves: ' + '{signer, secp256k1, mldsa44}, two of them a quorum',
    async () => {
      const sigs: MemberSignature[] = [];
      for (const s of SECRETS.slice(0, 2)) {
        const r = await attest(s, DEPOSIT);
        expect(r.err).toBe('');
        expect(Object.keys(r.json).sort()).toEqual(['mldsa44', 'secp256k1', 'signer']);
        expect(r.json.secp256k1).toMatch(/^0x[0-9a-f]{128}$/);
        expect(r.json.mldsa44).toMatch(/^0x[0-9a-f]{4840}$/);
        sigs.push(r.json);
      }
      expect(sigs.map((s) => s.signer)).toEqual(MEMBERS.slice(0, 2).map((k) => k.address));
      expect(quorumRefusal(committee(), inboundDigest(depositMessage), sigs, 'BRIDGE_IN')).toBeUndefined();
      // The signature is for this deposit only: another amount needs its own.
      expect(
        quorumRefusal(committee(), inboundDigest({ ...depositMessage, amount: '5001' }), sigs, 'BRIDGE_IN')?.reason,
      ).toMatch(/0 valid member signatures of 2 needed/);
      // --secret works as $CAIRN_SECRET does; a token id in any case signs the lower-case one.
      const tok = await run([
        'bridge',
        'attest',
        '--secret',
        SECRETS[2],
        ...DEPOSIT.slice(0, 4),
        '--asset',
        TOKEN.toUpperCase().replace('0X', '0x'),
        ...DEPOSIT.slice(6),
      ]);
      expect(tok.code).toBe(0);
      const one = JSON.parse(tok.out) as MemberSignature;
      expect(
        quorumRefusal(
          { ...committee(), threshold: 1 },
          inboundDigest({ ...depositMessage, asset: TOKEN }),
          [one],
          'BRIDGE_IN',
        ),
      ).toBeUndefined();
    },
  );

  it('--chain-id signs for a chain with its own id: worthless on the development network, and back', async () => {
    const sigs: MemberSignature[] = [];
    for (const s of SECRETS.slice(0, 2)) sigs.push((await attest(s, [...DEPOSIT, '--chain-id', '4242'])).json);
    expect(quorumRefusal(committee(), inboundDigest(depositMessage, 4242), sigs, 'BRIDGE_IN')).toBeUndefined();
    expect(quorumRefusal(committee(), inboundDigest(depositMessage), sigs, 'BRIDGE_IN')?.reason).toMatch(
      /0 valid member signatures of 2 needed/,
    );
    expect((await attest(SECRETS[0], [...DEPOSIT, '--chain-id', '0'])).code).not.toBe(0);
  });

  it('--into collects one signature per member, a member signing again replaces its own', async () => {
    const into = join(dir, 'collect.json');
    expect(existsSync(into)).toBe(false);
    const first = await attest(SECRETS[0], [...DEPOSIT, '--into', into]);
    expect(first.json).toStrictEqual({ signer: MEMBERS[0].address, into, signatures: 1 });
    expect((await attest(SECRETS[1], [...DEPOSIT, '--into', into])).json.signatures).toBe(2);
    expect((await attest(SECRETS[0], [...DEPOSIT, '--into', into])).json.signatures).toBe(2);
    const list = JSON.parse(readFileSync(into, 'utf8')) as MemberSignature[];
    expect(list.map((s) => s.signer)).toEqual([MEMBERS[1].address, MEMBERS[0].address]);
    const notList = file('not-a-list.json', { signer: A });
    const bad = await attest(SECRETS[2], [...DEPOSIT, '--into', notList]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/does not hold a list of signatures/);
  });

  it(
    '--committee signs the digest a rotation is checked against, ' + 'whatever case the members file spells its hex in',
    async () => {
      const next = MEMBERS.slice(1).map(memberOf);
      const shouted = file(
        'members-upper.json',
        next.map((m) => ({
          address: `0x${m.address.slice(2).toUpperCase()}`,
          secp256k1: m.secp256k1.toUpperCase().replace('0X', '0x'),
          mldsa44: m.mldsa44,
        })),
      );
      const sigs: MemberSignature[] = [];
      for (const s of SECRETS.slice(0, 2)) {
        const r = await attest(s, ['--committee', shouted, '--threshold', '2', '--epoch', '2']);
        expect(r.err).toBe('');
        sigs.push(r.json);
      }
      // The node reads the members lower-cased (modules/bridge/fields.ts) and checks epoch 2's digest of them.
      expect(
        quorumRefusal(
          committee(),
          committeeDigest({ epoch: 2, members: next, threshold: 2 }),
          sigs,
          'BRIDGE_COMMITTEE_UPDATE',
        ),
      ).toBeUndefined();
    },
  );

  it.each([
    ['no --to', DEPOSIT.filter((_, i) => i !== 6 && i !== 7), /missing --to/],
    ['a bad --to', [...DEPOSIT.slice(0, 6), '--to', 'bob', ...DEPOSIT.slice(8)], /--to must be an address/],
    ['amount 0', [...DEPOSIT.slice(0, 8), '--amount', '0'], /--amount must be a positive integer/],
    ['amount 1.5', [...DEPOSIT.slice(0, 8), '--amount', '1.5'], /--amount must be a positive integer/],
    [
      'a bad --asset',
      [...DEPOSIT.slice(0, 4), '--asset', 'eth', ...DEPOSIT.slice(6)],
      /--asset must be native or a token id/,
    ],
    [
      'a chain BRIDGE_IN cannot name',
      ['--source-chain', 'Ethereum', ...DEPOSIT.slice(2)],
      /--source-chain must be a chain name.*got "Ethereum"/,
    ],
    [
      'a source tx BRIDGE_IN cannot carry',
      [...DEPOSIT.slice(0, 2), '--source-tx', 'a/b', ...DEPOSIT.slice(4)],
      /--source-tx must be 1 to 128 characters/,
    ],
  ])('a deposit with %s is a usage error (exit 2), nothing printed', async (_label, argv, message) => {
    const r = await attest(SECRET, argv as string[]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
  });

  it('a committee that is not one, or without --threshold or --epoch, is a usage error', async () => {
    const members = file('members.json', MEMBERS.map(memberOf));
    const cases: [string[], RegExp][] = [
      [['--committee', members, '--epoch', '2'], /--committee needs --threshold/],
      [['--committee', members, '--threshold', '2'], /--committee needs --epoch/],
      [
        ['--committee', members, '--threshold', '1', '--epoch', '2'],
        /the threshold must be more than half the 3 members/,
      ],
      [
        [
          '--committee',
          file('dup.json', [memberOf(MEMBERS[0]), memberOf(MEMBERS[0])]),
          '--threshold',
          '2',
          '--epoch',
          '2',
        ],
        /lists each member once/,
      ],
      [
        [
          '--committee',
          file('wrong-key.json', [{ ...memberOf(MEMBERS[0]), address: MEMBERS[1].address }]),
          '--threshold',
          '1',
          '--epoch',
          '2',
        ],
        /its secp256k1 key controls/,
      ],
      // As "cairn bridge status" prints them (with `native`): a rotation cannot carry that key, so nothing is signed.
      [
        [
          '--committee',
          file(
            'with-native.json',
            MEMBERS.map((k) => ({ ...memberOf(k), native: toNative(k.address) })),
          ),
          '--threshold',
          '2',
          '--epoch',
          '2',
        ],
        /--committee must be a list of 1 to 7 \{address/,
      ],
      [
        ['--committee', file('object.json', { members: [] }), '--threshold', '2', '--epoch', '2'],
        /--committee must be a list/,
      ],
      [['--committee', file('broken.json', '[{'), '--threshold', '2', '--epoch', '2'], /is not JSON/],
      [['--committee', join(dir, 'absent.json'), '--threshold', '2', '--epoch', '2'], /cannot read/],
    ];
    for (const [argv, message] of cases) {
      const r = await attest(SECRET, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(message);
    }
  });

  it('without a secret: a usage error naming --secret and $CAIRN_SECRET', async () => {
    const r = await run(['bridge', 'attest', ...DEPOSIT]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--secret.*CAIRN_SECRET/);
  });
});

describe('bridge reads against a node (stand-in)', () => {
  const stub = useStubNode();

  it('bridge list passes its filters and the feed parameters as GET /bridge/transfers does', async () => {
    stub.handler = () => ({
      status: 200,
      body: { transfers: [], transitions: [], cursor: 9, finalizedHeight: 7, height: 9 },
    });
    const r = await run([
      'bridge',
      'list',
      '--direction',
      'out',
      '--status',
      'LOCKED',
      '--since',
      '0',
      '--final',
      '--limit',
      '5',
      '--node',
      stub.url,
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ cursor: 9, finalizedHeight: 7 });
    const [q] = stub.seen;
    expect(q.split('?')[0]).toBe('GET /bridge/transfers');
    expect(Object.fromEntries(new URLSearchParams(q.split('?')[1]))).toEqual({
      direction: 'out',
      status: 'LOCKED',
      since: '0',
      final: 'true',
      limit: '5',
    });
    stub.seen = [];
    await run(['bridge', 'list', '--node', stub.url]);
    expect(stub.seen).toEqual(['GET /bridge/transfers']);
  });

  it("the node's 400 for a bad filter is shown; a bad --since or --limit never leaves the CLI", async () => {
    stub.handler = () => ({
      status: 400,
      body: { error: 'status must be one of LOCKED, PAID, ATTESTED, DELAYED, RELEASED, REFUSED' },
    });
    const bad = await run(['bridge', 'list', '--status', 'NOPE', '--node', stub.url]);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('status must be one of LOCKED, PAID, ATTESTED, DELAYED, RELEASED, REFUSED');
    stub.seen = [];
    for (const argv of [
      ['--since', '-1'],
      ['--since', 'x'],
      ['--limit', '0'],
    ]) {
      const r = await run(['bridge', 'list', ...argv, '--node', stub.url]);
      expect(r.code, argv.join(' ')).toBe(2);
    }
    expect(stub.seen).toEqual([]);
  });

  it(
    'bridge show <id> prints the transfer; ' + 'an unknown one is "not found" (exit 1); bridge status is GET /bridge',
    async () => {
      stub.handler = (req) =>
        req.url === `/bridge/transfers/${ID}`
          ? { status: 200, body: { id: ID, status: 'DELAYED', releaseAt: 40, releaseInBlocks: 3 } }
          : req.url === '/bridge'
            ? { status: 200, body: { committee: null, pools: [], params: { windowBlocks: 20, breakerBps: 1000 } } }
            : { status: 404, body: { error: 'transfer not found' } };
      const shown = await run(['bridge', 'show', ID, '--node', stub.url]);
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.out)).toMatchObject({ status: 'DELAYED', releaseInBlocks: 3 });
      const missing = await run(['bridge', 'show', `0x${'cd'.repeat(32)}`, '--node', stub.url]);
      expect(missing.code).toBe(1);
      expect(missing.err).toMatch(/transfer not found \(404\)/);
      const none = await run(['bridge', 'show', '--node', stub.url]);
      expect(none.code).toBe(2);
      expect(none.err).toMatch(/missing <id>: cairn bridge show <id>/);
      const status = await run(['bridge', 'status', '--node', stub.url]);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.out)).toMatchObject({ params: { windowBlocks: 20 } });
    },
  );
});

describe('bridge help', () => {
  const SUBS = ['out', 'in', 'settle', 'rotate', 'list', 'show', 'status', 'member', 'attest'];

  it('cairn bridge --help lists every sub-command, each has its own --help', async () => {
    const g = await run(['bridge', '--help']);
    expect(g.code).toBe(0);
    for (const s of SUBS) expect(g.out).toContain(`bridge ${s}`);
    for (const s of SUBS) {
      const h = await run(['bridge', s, '--help']);
      expect(h.code, s).toBe(0);
      expect(h.out).toMatch(new RegExp(`^Usage: cairn bridge ${s}`));
      expect(h.err).toBe('');
    }
    expect((await run(['--help'])).out).toMatch(/^ {2}bridge <sub>/m);
  });

  it("attest's help shows both forms and where the output goes", async () => {
    const h = (await run(['bridge', 'attest', '--help'])).out;
    for (const flag of [
      '--source-chain',
      '--source-tx',
      '--asset',
      '--to',
      '--amount',
      '--committee',
      '--threshold',
      '--epoch',
      '--into',
      '--secret',
    ])
      expect(h).toContain(flag);
    expect(h).toMatch(/\{signer, secp256k1,\s+mldsa44\}/);
  });
});
