import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadJson, payloadJsonReference } from '../../../src/crypto/txSigning';
import type { TxPayload } from '../../../src/protocol/types';

/** Strings of the usual kinds (hex addresses, digits, type names) and anything else JSON can hold. */
const text = fc.oneof(
  fc.constantFrom('TRANSFER', 'STAKE', 'META_TX', '0', '1000', `0x${'ab'.repeat(20)}`),
  fc.string(),
  fc.string({ unit: 'binary' }),
);
const count = fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(-0), fc.integer(), fc.double());
const payload = fc.record({
  chainId: count,
  type: text,
  from: text,
  to: fc.oneof(text, fc.constant(null), fc.constant(undefined)),
  amount: text,
  nonce: count,
  timestamp: count,
  fee: text,
  data: fc.option(fc.jsonValue(), { nil: null }),
}) as fc.Arbitrary<TxPayload>;

describe('payload JSON (what ids and signatures cover)', () => {
  it('the direct writer gives the generic canonicalizer’s text for every payload', () => {
    fc.assert(
      fc.property(payload, (p) => {
        let expected: string | Error;
        try {
          expected = payloadJsonReference(p);
        } catch (e) {
          expected = e as Error;
        }
        if (expected instanceof Error) expect(() => payloadJson(p)).toThrow();
        else expect(payloadJson(p)).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('a plain transfer is written directly, keys in JCS order', () => {
    const p = {
      chainId: 7,
      type: 'TRANSFER',
      from: `0x${'aa'.repeat(20)}`,
      to: null,
      amount: '5',
      nonce: 0,
      timestamp: 1,
      fee: '1000',
      data: { b: [1, 'x'], a: null },
    } as TxPayload;
    expect(payloadJson(p)).toBe(
      `{"amount":"5","chainId":7,"data":{"a":null,"b":[1,"x"]},"fee":"1000","from":"0x${'aa'.repeat(20)}",` +
        `"nonce":0,"timestamp":1,"to":null,"type":"TRANSFER"}`,
    );
  });
});
