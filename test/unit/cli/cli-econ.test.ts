import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memberOf } from '../../../src/modules/bridge';
import { decodeEnvelope } from '../../../src/chain/envelope';
import { toNative } from '../../../src/crypto/address';
import { deriveKeys } from '../../../src/crypto/keys';
import { fromHex } from '../../../src/primitives/hex';
import { buildTx } from '../../../src/sdk/assets';
import { runCliCaptured as run } from '../../helpers/cliRun';
import { DEV_NETWORK } from '../../../src/chain/devnet';
import { scratchDirs } from '../../helpers/scratch';

const scratch = scratchDirs();

/** `cairn stake|gov|resource|vesting …`: offline envelopes, usage errors and help. */

const SECRET = '22'.repeat(32);
const FROM = deriveKeys(fromHex(SECRET)).address;
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const ID = `0x${'ab'.repeat(32)}`;
const OFFLINE = [
  '--secret',
  SECRET,
  '--nonce',
  '4',
  '--timestamp',
  '1700000000000',
  '--sign-only',
  '--genesis-hash',
  DEV_NETWORK.genesisHash,
];

const SIGNED: [string[], { type: string; to: string | null; amount: string; data: unknown }][] = [
  [['stake', 'add', '--amount', '5000000'], { type: 'STAKE', to: null, amount: '5000000', data: {} }],
  [
    ['stake', 'add', '--amount', '9000000', '--candidate', '--commission', '500'],
    { type: 'STAKE', to: null, amount: '9000000', data: { candidate: true, commission: 500 } },
  ],
  [['stake', 'remove', '--amount', '7'], { type: 'UNSTAKE', to: null, amount: '7', data: null }],
  [
    ['stake', 'vote', '--for', `${toNative(A)}=6`, '--for', `${B}=4`],
    { type: 'VOTE', to: null, amount: '0', data: { votes: { [A]: '6', [B]: '4' } } },
  ],
  [['stake', 'vote', '--none'], { type: 'VOTE', to: null, amount: '0', data: { votes: {} } }],
  [
    ['stake', 'commission', '--bps', '800'],
    { type: 'SET_COMMISSION', to: null, amount: '0', data: { commission: 800 } },
  ],
  [['stake', 'claim'], { type: 'CLAIM_VOTER_REWARD', to: null, amount: '0', data: null }],
  [
    ['gov', 'propose', '--param', 'MAX_VALIDATORS', '--value', '25', '--deposit', '100'],
    { type: 'GOV_PROPOSE', to: null, amount: '100', data: { param: 'MAX_VALIDATORS', value: '25' } },
  ],
  [
    ['gov', 'propose', '--spend-to', toNative(A), '--spend-amount', '300', '--deposit', '100'],
    { type: 'GOV_PROPOSE', to: null, amount: '100', data: { spend: { to: A, amount: '300' } } },
  ],
  [
    ['gov', 'vote', '--proposal', ID, '--vote', 'veto'],
    { type: 'GOV_VOTE', to: null, amount: '0', data: { proposalId: ID, vote: 'veto' } },
  ],
  [
    ['resource', 'delegate', '--to', toNative(A), '--amount', '50'],
    { type: 'DELEGATE_RESOURCE', to: A, amount: '0', data: { amount: '50' } },
  ],
  [
    ['resource', 'undelegate', '--to', A, '--amount', '20'],
    { type: 'UNDELEGATE_RESOURCE', to: A, amount: '0', data: { amount: '20' } },
  ],
  [
    ['vesting', 'create', '--to', B, '--amount', '1000', '--duration', '100'],
    { type: 'VESTING_CREATE', to: B, amount: '1000', data: { durationBlocks: 100 } },
  ],
  [
    ['vesting', 'create', '--to', B, '--amount', '1000', '--duration', '100', '--cliff', '10'],
    { type: 'VESTING_CREATE', to: B, amount: '1000', data: { durationBlocks: 100, cliffBlocks: 10 } },
  ],
  [['vesting', 'claim', '--id', ID], { type: 'VESTING_CLAIM', to: null, amount: '0', data: { vestingId: ID } }],
];

describe('gov propose --committee', () => {
  it('reads the members file and the threshold into data.committee', async () => {
    const keys = [1, 2, 3].map((i) => deriveKeys(new Uint8Array(32).fill(i)));
    const dir = scratch('cairn-committee-');
    const file = join(dir, 'members.json');
    writeFileSync(file, JSON.stringify(keys.map(memberOf)));
    const r = await run(['gov', 'propose', '--committee', file, '--threshold', '2', '--deposit', '100', ...OFFLINE]);
    expect(r.err).toBe('');
    const d = decodeEnvelope(JSON.parse(r.out), DEV_NETWORK);
    expect(d.ok && d.tx.data).toStrictEqual({ committee: { members: keys.map(memberOf), threshold: 2 } });
    const bad = await run(['gov', 'propose', '--committee', file, '--threshold', '1', '--deposit', '100', ...OFFLINE]);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/is not a committee/);
  });
});

describe('staking, governance, resource and vesting commands offline', () => {
  it.each(SIGNED.map(([argv, f]) => [`${argv.slice(0, 2).join(' ')} → ${f.type}`, argv, f] as const))(
    '%s',
    async (_label, argv, fields) => {
      const r = await run([...argv, ...OFFLINE]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const d = decodeEnvelope(JSON.parse(r.out), DEV_NETWORK);
      expect(d.ok).toBe(true);
      if (!d.ok) return;
      // An empty data object and an absent one sign the same fields.
      const data = d.tx.data ?? null;
      const want = fields.data ?? null;
      expect({ type: d.tx.type, to: d.tx.to, amount: d.tx.amount }).toStrictEqual({
        type: fields.type,
        to: fields.to,
        amount: fields.amount,
      });
      expect(data === null || Object.keys(data as object).length === 0 ? null : data).toStrictEqual(
        want === null || Object.keys(want as object).length === 0 ? null : want,
      );
      expect(d.tx).toMatchObject({ from: FROM, nonce: 4, timestamp: 1700000000000 });
    },
  );

  const usageCases: [string, string[], RegExp][] = [
    ['stake without amount', ['stake', 'add'], /--amount is required/],
    ['decimal coins', ['stake', 'add', '--amount', '1.5'], /--amount must be a positive integer of base units/],
    ['zero coins', ['stake', 'remove', '--amount', '0'], /--amount must be a positive integer of base units/],
    [
      'commission out of range',
      ['stake', 'add', '--amount', '1', '--candidate', '--commission', '10001'],
      /--commission/,
    ],
    ['vote neither', ['stake', 'vote'], /give --for <address>=<n> \(repeatable\) or --none/],
    ['vote both', ['stake', 'vote', '--for', `${A}=1`, '--none'], /give --for <address>=<n> \(repeatable\) or --none/],
    ['vote without =', ['stake', 'vote', '--for', A], /--for takes <address>=<amount>/],
    ['vote bad address', ['stake', 'vote', '--for', 'cairn1zz=5'], /--for is not a valid address/],
    [
      'vote bad amount',
      ['stake', 'vote', '--for', `${A}=0`],
      /--for must map candidate addresses to positive integer amounts/,
    ],
    [
      'vote twice for one',
      ['stake', 'vote', '--for', `${A}=1`, '--for', `${toNative(A)}=2`],
      /--for names 0x0+aa twice/,
    ],
    [
      'propose nothing',
      ['gov', 'propose', '--deposit', '5'],
      /--param give exactly one of param with value, spend or committee/,
    ],
    [
      'propose param without value',
      ['gov', 'propose', '--param', 'MAX_VALIDATORS', '--deposit', '5'],
      /--value goes with param/,
    ],
    [
      'propose out of bounds',
      ['gov', 'propose', '--param', 'MAX_VALIDATORS', '--value', '1000', '--deposit', '5'],
      /--value is outside the parameter's bounds/,
    ],
    ['propose unknown parameter', ['gov', 'propose', '--param', 'NOPE', '--value', '1', '--deposit', '5'], /--param/],
    [
      'propose without deposit',
      ['gov', 'propose', '--param', 'MAX_VALIDATORS', '--value', '25'],
      /--deposit is required/,
    ],
    ['gov vote bad choice', ['gov', 'vote', '--proposal', ID, '--vote', 'maybe'], /--vote/],
    ['gov vote bad id', ['gov', 'vote', '--proposal', '0x12', '--vote', 'yes'], /--proposal/],
    [
      'vesting cliff past duration',
      ['vesting', 'create', '--to', B, '--amount', '1', '--duration', '5', '--cliff', '6'],
      /--cliff must not exceed durationBlocks/,
    ],
    ['delegate to nobody', ['resource', 'delegate', '--amount', '5'], /--to is required/],
  ];

  it.each(usageCases)('usage error (exit 2): %s', async (_label, argv, message) => {
    const r = await run([...argv, ...OFFLINE]);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });
});

describe('SDK builder for the staking and governance types', () => {
  it('takes coins as bigint, number or string, and the deposit by its own name', () => {
    expect(buildTx({ type: 'STAKE', amount: 5n })).toEqual({ type: 'STAKE', to: null, amount: '5', data: {} });
    expect(buildTx({ type: 'GOV_PROPOSE', param: 'BANK_SIZE', value: '3', deposit: 100 })).toMatchObject({
      amount: '100',
      data: { param: 'BANK_SIZE', value: '3' },
    });
    expect(buildTx({ type: 'VOTE', votes: { [toNative(A)]: 3n } })).toMatchObject({ data: { votes: { [A]: '3' } } });
    expect(() => buildTx({ type: 'UNSTAKE', amount: -1 })).toThrow(/^amount must be a positive integer of base units/);
    expect(() => buildTx({ type: 'GOV_PROPOSE', param: 'BANK_SIZE', value: '3' })).toThrow(
      /^deposit must be a positive integer/,
    );
    expect(() => buildTx({ type: 'VM_CALL' } as never)).toThrow(/^type must be one of .*STAKE.*META_TX/);
  });
});

describe('help', () => {
  const subs: Record<string, string[]> = {
    stake: ['add', 'remove', 'vote', 'commission', 'claim', 'validators'],
    gov: ['propose', 'vote', 'list', 'show', 'params', 'treasury'],
    resource: ['delegate', 'undelegate'],
    vesting: ['create', 'claim'],
  };

  it('cairn --help lists the groups', async () => {
    const r = await run(['--help']);
    for (const g of Object.keys(subs)) expect(r.out).toMatch(new RegExp(`^  ${g} <sub>`, 'm'));
    expect(r.out).toMatch(/^ {2}resource <sub> +resource delegation: delegate, undelegate$/m);
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

  it('a flag longer than the column puts its help on the next line', async () => {
    const h = await run(['gov', 'propose', '--help']);
    expect(h.out).toMatch(/^ {2}--spend-to <address>\n {23}a treasury spend: the recipient/m);
    expect((await run(['stake', 'claim', '--help'])).out).toMatch(/^Usage: cairn stake claim\n\nPays you/);
  });
});
