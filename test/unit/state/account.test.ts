import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountState } from '../../../src/protocol/types';
import {
  decodeAccount,
  decodeAccountReference,
  encodeAccount,
  encodeAccountReference,
} from '../../../src/state/account';

const hex32 = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((u) => `0x${Buffer.from(u).toString('hex')}` as const);
const account: fc.Arbitrary<AccountState> = fc.record({
  balance: fc.bigInt({ min: 0n, max: 10n ** 40n }),
  staked: fc.bigInt({ min: 0n, max: 10n ** 30n }),
  nonce: fc.nat(),
  energy: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  energyHeight: fc.nat(),
  feeExempt: fc.boolean(),
  isValidator: fc.boolean(),
  mldsaKeyHash: fc.option(hex32),
  codeHash: fc.option(hex32),
  weiRemainder: fc.bigInt({ min: 0n, max: 10n ** 12n - 1n }),
  delegatedOut: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 24n })),
  delegatedIn: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 24n })),
  permissioned: fc.boolean(),
});

describe('account encoding', () => {
  it('the direct encoder is byte-identical to RFC 8785 canonicalization and round-trips', () => {
    fc.assert(
      fc.property(account, (a) => {
        const fast = Buffer.from(encodeAccount(a));
        expect(fast.equals(Buffer.from(encodeAccountReference(a)))).toBe(true);
        expect(decodeAccount(fast)).toEqual(a);
      }),
      { numRuns: 500 },
    );
  });

  /** Both decoders' verdict on some bytes: the account, or that it was refused. */
  const verdict = (decode: (b: Uint8Array) => AccountState, b: Uint8Array) => {
    try {
      return decode(b);
    } catch (e) {
      expect((e as { code?: string }).code).toBe('BAD_ACCOUNT');
      return 'refused';
    }
  };

  it('the layout match accepts and refuses exactly what parse-and-re-encode does', () => {
    // Edits that keep the text close to canonical: a character replaced, inserted or removed, a field's value swapped.
    const nearMiss = fc.tuple(
      account,
      fc.nat(),
      fc.constantFrom(...'0123456789abcdefxAF"{}:,-+. e\u00e9nul'.split('')),
      fc.nat(2),
    );
    fc.assert(
      fc.property(nearMiss, ([a, at, ch, how]) => {
        const text = Buffer.from(encodeAccount(a)).toString('utf8');
        const i = at % (text.length + 1);
        const edited =
          how === 0
            ? text.slice(0, i) + ch + text.slice(i + 1)
            : how === 1
              ? text.slice(0, i) + ch + text.slice(i)
              : text.slice(0, i) + text.slice(i + 1);
        const b = Buffer.from(edited, 'utf8');
        expect(verdict(decodeAccount, b)).toEqual(verdict(decodeAccountReference, b));
      }),
      { numRuns: 3_000 },
    );
  });
});
