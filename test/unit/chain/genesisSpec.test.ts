import { describe, expect, it } from 'vitest';
import { devGenesis } from '../../../src/chain/devnet';
import { parseGenesisSpec } from '../../../src/chain/genesisSpec';
import { toNative } from '../../../src/crypto/address';
import { deriveKeys } from '../../../src/crypto/keys';
import { keccakHex } from '../../../src/crypto/hash';
import { COIN } from '../../../src/primitives/amount';
import { fromHex, toHex } from '../../../src/primitives/hex';
import { CHAIN_ID } from '../../../src/protocol/params';
import { runCliCaptured as run } from '../../helpers/cliRun';
import { scratchDirs } from '../../helpers/scratch';
import { join } from 'node:path';

const scratch = scratchDirs();

/** The chain specification of `cairn node --genesis`: what it accepts, normalises and refuses. */

const V = deriveKeys(fromHex('33'.repeat(32)));
const A = '0x00000000000000000000000000000000000000aa';
const validator = (over: Record<string, unknown> = {}) => ({
  address: V.address,
  balance: '0',
  staked: String(1_000n * COIN),
  isValidator: true,
  signingKeys: { secp256k1: toHex(V.secp256k1.publicKey), mldsa44: toHex(V.mldsa44.publicKey) },
  ...over,
});
const spec = (over: Record<string, unknown> = {}) => ({
  chainId: CHAIN_ID,
  timestamp: 1_800_000_000_000,
  accounts: [validator(), { address: A, balance: '5' }],
  ...over,
});

describe('parseGenesisSpec', () => {
  it(
    'normalises: cairn1 addresses to 0x, upper-case keys to lower, ' +
      'zero stake dropped, the ML-DSA key hash derived',
    () => {
      const s = parseGenesisSpec(
        spec({
          accounts: [
            validator({
              address: toNative(V.address),
              signingKeys: {
                secp256k1: toHex(V.secp256k1.publicKey).toUpperCase().replace('0X', '0x'),
                mldsa44: toHex(V.mldsa44.publicKey),
              },
            }),
            { address: A.toUpperCase().replace('0X', '0x'), balance: '5', staked: '0', feeExempt: false },
          ],
          params: { MAX_VALIDATORS: '5' },
        }),
      );
      expect(s.accounts[0]).toEqual({ ...validator(), mldsaKeyHash: keccakHex(V.mldsa44.publicKey) });
      expect(s.accounts[1]).toEqual({ address: A, balance: '5' });
      expect(s.params).toEqual({ MAX_VALIDATORS: '5' });
    },
  );

  it('the development genesis is a valid specification', () => {
    const { spec: dev } = devGenesis(2);
    // as `cairn genesis template` writes it
    const file = { ...dev, accounts: dev.accounts.map(({ mldsaKeyHash: _, ...a }) => a) };
    expect(parseGenesisSpec(JSON.parse(JSON.stringify(file)))).toEqual(dev);
  });

  const refusals: [string, unknown, RegExp][] = [
    ['not an object', [], /^\$: must be a JSON object/],
    ['unknown top-level key', spec({ extra: 1 }), /^\$\.extra: unknown key/],
    ['chain id 0', spec({ chainId: 0 }), /^\$\.chainId: must be an integer from 1 to 4294967295/],
    ['chain id above 2^32 - 1', spec({ chainId: 2 ** 32 }), /^\$\.chainId: must be an integer from 1/],
    ['chain id as a string', spec({ chainId: '72020' }), /^\$\.chainId: must be an integer from 1/],
    ['bad timestamp', spec({ timestamp: -5 }), /^\$\.timestamp: must be a positive integer/],
    ['no accounts', spec({ accounts: [] }), /^\$\.accounts: must be an array of 1 to/],
    [
      'bad address',
      spec({ accounts: [validator(), { address: '0x12', balance: '1' }] }),
      /^\$\.accounts\[1\]\.address: must be an address/,
    ],
    [
      'decimal balance',
      spec({ accounts: [validator(), { address: A, balance: '1.5' }] }),
      /^\$\.accounts\[1\]\.balance: must be an integer string/,
    ],
    [
      'number balance',
      spec({ accounts: [validator(), { address: A, balance: 5 }] }),
      /^\$\.accounts\[1\]\.balance: must be an integer string/,
    ],
    ['leading zero', spec({ accounts: [validator(), { address: A, balance: '05' }] }), /^\$\.accounts\[1\]\.balance/],
    [
      'misspelt key',
      spec({ accounts: [validator(), { address: A, balance: '5', stakd: '1' }] }),
      /^\$\.accounts\[1\]\.stakd: unknown key/,
    ],
    [
      'duplicate',
      spec({ accounts: [validator(), { address: A, balance: '5' }, { address: toNative(A), balance: '1' }] }),
      /^\$\.accounts\[2\]\.address: 0x0+aa is already \$\.accounts\[1\]/,
    ],
    ['no validator', spec({ accounts: [{ address: A, balance: '5' }] }), /^\$\.accounts: needs at least one validator/],
    [
      'validator without keys',
      spec({ accounts: [validator({ signingKeys: undefined })] }),
      /^\$\.accounts\[0\]\.signingKeys: a validator needs \{secp256k1, mldsa44\}/,
    ],
    [
      'short ML-DSA key',
      spec({ accounts: [validator({ signingKeys: { secp256k1: toHex(V.secp256k1.publicKey), mldsa44: '0x1234' } })] }),
      /^\$\.accounts\[0\]\.signingKeys\.mldsa44: must be 0x \+ 2624 hex/,
    ],
    [
      'understaked validator',
      spec({ accounts: [validator({ staked: '5' })] }),
      /^\$\.accounts\[0\]\.staked: a validator needs at least 1000000000 base units staked/,
    ],
    [
      'understaked under its own parameter',
      spec({ params: { MIN_CANDIDATE_STAKE: String(2_000n * COIN) } }),
      /^\$\.accounts\[0\]\.staked: a validator needs at least 2000000000/,
    ],
    [
      'keys of a non-validator',
      spec({ accounts: [validator(), { address: A, balance: '5', signingKeys: {} }] }),
      /^\$\.accounts\[1\]\.signingKeys: applies to validators only/,
    ],
    [
      'commission out of range',
      spec({ accounts: [validator({ commissionBps: 10_001 })] }),
      /^\$\.accounts\[0\]\.commissionBps: must be an integer from 0 to 10000/,
    ],
    [
      'more validators than MAX_VALIDATORS',
      spec({ params: { MAX_VALIDATORS: '1' }, accounts: [validator(), { ...validator(), address: A }] }),
      /^\$\.accounts: has 2 validators but MAX_VALIDATORS is 1/,
    ],
    ['unknown parameter', spec({ params: { NOPE: '1' } }), /^\$\.params\.NOPE: unknown parameter "NOPE"/],
    [
      'parameter out of bounds',
      spec({ params: { MAX_VALIDATORS: '500' } }),
      /^\$\.params\.MAX_VALIDATORS: MAX_VALIDATORS must be from 1 to 101/,
    ],
    [
      'parameter as a number',
      spec({ params: { MAX_VALIDATORS: 5 } }),
      /^\$\.params\.MAX_VALIDATORS: must be an integer string/,
    ],
  ];
  it.each(refusals)('refuses %s, naming the path', (_label, input, message) => {
    expect(() => parseGenesisSpec(input)).toThrow(message);
  });
});

describe('cairn genesis', () => {
  it(
    'template: a fresh chain id and no validators; ' + 'with one validator entry added, check lists every parameter',
    async () => {
      const t = await run(['genesis', 'template', '--dev-accounts', '2']);
      expect(t.code).toBe(0);
      const template = JSON.parse(t.out);
      expect(template.chainId).not.toBe(CHAIN_ID);
      expect(Number.isSafeInteger(template.chainId) && template.chainId >= 1).toBe(true);
      expect(template.accounts.filter((a: { isValidator?: boolean }) => a.isValidator)).toEqual([]);
      expect(() => parseGenesisSpec(template)).toThrow(/needs at least one validator/);
      const again = JSON.parse((await run(['genesis', 'template'])).out);
      expect(again.chainId).not.toBe(template.chainId); // fresh each time (2^31 − 10^6 choices)
      expect(JSON.parse((await run(['genesis', 'template', '--chain-id', '31337'])).out).chainId).toBe(31337);
      expect((await run(['genesis', 'template', '--chain-id', '0'])).code).toBe(2);

      template.accounts.push(validator());
      const file = join(scratch('cairn-genesis-'), 'genesis.json');
      await import('node:fs/promises').then((fs) => fs.writeFile(file, JSON.stringify(template)));
      const c = await run(['genesis', 'check', file]);
      expect(c.err).toBe('');
      expect(c.code).toBe(0);
      const summary = JSON.parse(c.out);
      expect(summary).toMatchObject({
        chainId: template.chainId,
        accounts: 3,
        validators: [V.address],
        params: { EPOCH_BLOCKS: '10', MAX_VALIDATORS: '21' },
      });
    },
  );

  it('validator prints an entry the specification accepts; check names the path of a problem', async () => {
    const v = await run(['genesis', 'validator', '--stake', String(2_000n * COIN), '--commission', '700'], {
      CAIRN_SECRET: '33'.repeat(32),
    });
    expect(v.code).toBe(0);
    const entry = JSON.parse(v.out);
    expect(entry).toEqual(validator({ staked: String(2_000n * COIN), commissionBps: 700 }));
    expect(parseGenesisSpec(spec({ accounts: [entry] })).accounts[0].address).toBe(V.address);
    const file = join(scratch('cairn-genesis-bad-'), 'genesis.json');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(file, JSON.stringify(spec({ params: { GOV_VOTING_BLOCKS: '0' } }))),
    );
    const c = await run(['genesis', 'check', file]);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/\$\.params\.GOV_VOTING_BLOCKS: GOV_VOTING_BLOCKS must be from 1 to 10000000/);
    expect((await run(['genesis', 'check', '/nonexistent/genesis.json'])).err).toMatch(/cannot read/);
  });

  it('--help documents the file and each sub-command', async () => {
    const h = await run(['genesis', '--help']);
    for (const k of [
      'chainId',
      'timestamp',
      'accounts',
      'signingKeys',
      'params',
      'GOV_VOTING_BLOCKS',
      'BRIDGE_BREAKER_BPS',
    ])
      expect(h.out).toContain(k);
    for (const s of ['template', 'validator', 'check'])
      expect((await run(['genesis', s, '--help'])).out).toMatch(new RegExp(`^Usage: cairn genesis ${s}`));
    expect((await run(['node', '--help'])).out).toMatch(/--genesis/);
  });
});
