/** Hex helpers. All hex on the wire is lower-case with a `0x` prefix. */
export type Hex = `0x${string}`;

/**
 * Node's hex decoder stops at the first non-hex pair, so "decoded length = half the digits"
 * is a complete validity check — and several times cheaper than a regex over the 2–5 KB
 * hex strings of ML-DSA keys and signatures, which every admission validates.
 */
const isHexDigits = (digits: string): boolean => Buffer.from(digits, 'hex').length * 2 === digits.length;

export function isHex(s: unknown, bytes?: number): s is Hex {
  // "0x"
  if (typeof s !== 'string' || s.length % 2 !== 0 || s.charCodeAt(0) !== 48 || s.charCodeAt(1) !== 120) return false;
  if (bytes !== undefined && s.length !== 2 + bytes * 2) return false;
  return isHexDigits(s.slice(2));
}

export function toHex(b: Uint8Array): Hex {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

export function fromHex(s: string): Uint8Array {
  const h = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  const b = Buffer.from(h, 'hex');
  if (h.length % 2 !== 0 || b.length * 2 !== h.length) throw new Error(`invalid hex: ${s.slice(0, 20)}`);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** An unsigned integer below 2^256 as 32 big-endian bytes (byte order = numeric order). */
export function word32(n: bigint): Buffer {
  const hex = n.toString(16);
  return Buffer.from(hex.length === 64 ? hex : hex.padStart(64, '0'), 'hex');
}
