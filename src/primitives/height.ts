/** Fixed-width big-endian encodings used in storage keys so that byte order = numeric order. */
export function u64be(n: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

export function readU64be(b: Uint8Array, offset = 0): number {
  return Number(Buffer.from(b.buffer, b.byteOffset, b.byteLength).readBigUInt64BE(offset));
}

export function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
