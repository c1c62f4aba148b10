/** Amounts are bigint in code and integer strings (base units) on the wire. */
export type Amount = bigint;

const UINT_RE = /^(0|[1-9][0-9]*)$/;

/** Parses a non-negative integer string (no sign, no leading zeros, no exponent). */
export function parseAmount(s: unknown, maxDigits = 78): Amount | undefined {
  if (typeof s !== 'string' || s.length > maxDigits || !UINT_RE.test(s)) return undefined;
  return BigInt(s);
}

export const amountToString = (a: Amount): string => a.toString(10);

export const COIN = 1_000_000n;
