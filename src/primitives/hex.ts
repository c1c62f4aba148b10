/** Hex helpers. All hex on the wire is lower-case with a `0x` prefix. */
export type Hex = `0x${string}`;

const HEX_RE = /^0x[0-9a-fA-F]*$/;

export function isHex(s: unknown, bytes?: number): s is Hex {
  if (typeof s !== 'string' || !HEX_RE.test(s) || s.length % 2 !== 0) return false;
  return bytes === undefined || s.length === 2 + bytes * 2;
}

export function toHex(b: Uint8Array): Hex {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

export function fromHex(s: string): Uint8Array {
  const h = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new Error(`invalid hex: ${s.slice(0, 20)}`);
  return new Uint8Array(Buffer.from(h, 'hex'));
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
