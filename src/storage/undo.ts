import type { KvBatch } from '../state/kv';
import { kindOf } from './buckets';

/**
 * The generic undo of a block's index writes. The block's writes go through a
 * RecordingBatch, which notes every key of a bucket that undo covers; the undo record then
 * holds, per key, the value it had before the block (or that it had none). Undoing puts
 * those values back — one mechanism for every index, whatever wrote it.
 */
export class RecordingBatch implements KvBatch {
  /**
   * Keys written, first write first (history and undo buckets are not recorded). A key
   * written twice appears twice: its previous value is read from the store either way,
   * so restoring it twice restores the same value.
   */
  readonly keys: Uint8Array[] = [];

  constructor(readonly inner: KvBatch) {}

  put(key: Uint8Array, value: Uint8Array): void {
    this.note(key);
    this.inner.put(key, value);
  }

  del(key: Uint8Array): void {
    this.note(key);
    this.inner.del(key);
  }

  get size(): number {
    return this.inner.size;
  }

  private note(key: Uint8Array): void {
    const kind = kindOf(key);
    if (kind === undefined) throw new Error(`write to a key of no bucket: ${Buffer.from(key).toString('hex')}`);
    if (kind === 'block' || kind === 'mutable') this.keys.push(key);
  }
}

/** One key and what it held before the block (undefined: nothing). */
export type UndoEntry = [key: Uint8Array, previous: Uint8Array | undefined];

const ABSENT = 0xffffffff;

/** Binary: per entry u16 key length, key, u32 value length (0xffffffff = absent), value. */
export function encodeUndo(entries: readonly UndoEntry[]): Uint8Array {
  let size = 0;
  for (const [k, v] of entries) size += 2 + k.length + 4 + (v?.length ?? 0);
  const out = Buffer.alloc(size);
  let o = 0;
  for (const [k, v] of entries) {
    o = out.writeUInt16BE(k.length, o);
    out.set(k, o);
    o += k.length;
    o = out.writeUInt32BE(v ? v.length : ABSENT, o);
    if (v) {
      out.set(v, o);
      o += v.length;
    }
  }
  return out;
}

export function decodeUndo(bytes: Uint8Array): UndoEntry[] {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: UndoEntry[] = [];
  let o = 0;
  while (o < b.length) {
    const kl = b.readUInt16BE(o);
    o += 2;
    const key = b.subarray(o, o + kl);
    o += kl;
    const vl = b.readUInt32BE(o);
    o += 4;
    if (vl === ABSENT) out.push([key, undefined]);
    else {
      out.push([key, b.subarray(o, o + vl)]);
      o += vl;
    }
  }
  return out;
}
