import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountState } from '../../../src/protocol/types';
import { decodeAccount, encodeAccount, encodeAccountReference } from '../../../src/state/account';

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
});
