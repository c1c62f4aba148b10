/**
 * Transactions cross the network in batches: one gossip message carries up to MAX_BATCH_TXS envelopes gathered for
 * at most BATCH_DELAY_MS, so a link pays its framing, encryption and the peers' duplicate checks once per batch
 * rather than once per transaction (one HTTP POST of ~5 KB per transaction per peer cost a validator ~4 ms of CPU per
 * transaction at 60 tx/s).
 *
 * The encoding: a u16 count, then each envelope as a u32 length and its bytes (big-endian). Decoding checks every
 * length against the bytes left before it reads, so a crafted batch costs its length and no more.
 */

export const MAX_BATCH_TXS = 64;
/** A batch's bytes at most: 64 envelopes of the largest hybrid transaction a node admits would not fit; fewer do. */
export const MAX_BATCH_BYTES = 1 << 20;
export const BATCH_DELAY_MS = 50;

export class BatchDecodeError extends Error {
  override readonly name = 'BatchDecodeError';
}

export function encodeTxBatch(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0 || items.length > MAX_BATCH_TXS)
    throw new RangeError(`a batch holds 1..${MAX_BATCH_TXS} transactions, not ${items.length}`);
  const size = 2 + items.reduce((n, b) => n + 4 + b.length, 0);
  if (size > MAX_BATCH_BYTES) throw new RangeError(`a batch of ${size} bytes is over ${MAX_BATCH_BYTES}`);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint16(0, items.length);
  let at = 2;
  for (const b of items) {
    view.setUint32(at, b.length);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

/** The envelopes of a batch (views into `data`); throws BatchDecodeError for anything but an exact batch. */
export function decodeTxBatch(data: Uint8Array): Uint8Array[] {
  if (data.length > MAX_BATCH_BYTES) throw new BatchDecodeError(`batch of ${data.length} bytes`);
  if (data.length < 2) throw new BatchDecodeError('batch shorter than its count');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint16(0);
  if (count === 0 || count > MAX_BATCH_TXS) throw new BatchDecodeError(`batch of ${count} transactions`);
  const out: Uint8Array[] = [];
  let at = 2;
  for (let i = 0; i < count; i++) {
    if (data.length - at < 4) throw new BatchDecodeError(`transaction ${i}: length cut off`);
    const len = view.getUint32(at);
    at += 4;
    if (len === 0 || len > data.length - at)
      throw new BatchDecodeError(`transaction ${i}: ${len} bytes, ${data.length - at} left`);
    out.push(data.subarray(at, at + len));
    at += len;
  }
  if (at !== data.length) throw new BatchDecodeError(`${data.length - at} bytes after the last transaction`);
  return out;
}

export interface TxBatcherOptions {
  delayMs?: number;
  maxTxs?: number;
  maxBytes?: number;
}

/**
 * Gathers envelopes and hands each full batch (or the batch of the last `delayMs`) to `publish`. One batch waits at a
 * time; an envelope that would overflow it sends it first. Nothing queues behind a slow `publish`: it is called and
 * not awaited (gossipsub's own outbound buffers are bounded and drop, which is what gossip under overload should do).
 */
export class TxBatcher {
  private items: Uint8Array[] = [];
  private bytes = 2;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly delayMs: number;
  private readonly maxTxs: number;
  private readonly maxBytes: number;
  /** Batches handed to `publish`, and envelopes in them (for the metrics). */
  batches = 0;
  txs = 0;

  constructor(
    private readonly publish: (batch: Uint8Array) => void,
    opts: TxBatcherOptions = {},
  ) {
    this.delayMs = opts.delayMs ?? BATCH_DELAY_MS;
    this.maxTxs = Math.min(opts.maxTxs ?? MAX_BATCH_TXS, MAX_BATCH_TXS);
    this.maxBytes = Math.min(opts.maxBytes ?? MAX_BATCH_BYTES, MAX_BATCH_BYTES);
  }

  add(envelope: Uint8Array): void {
    if (2 + 4 + envelope.length > this.maxBytes) throw new RangeError(`an envelope of ${envelope.length} bytes`);
    if (this.bytes + 4 + envelope.length > this.maxBytes) this.flush();
    this.items.push(envelope);
    this.bytes += 4 + envelope.length;
    // A delay of 0 sends each at once (the simulator: no timer of the machine's clock in a seeded run).
    if (this.items.length >= this.maxTxs || this.delayMs <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  /** Sends what is gathered now (also on stop). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.items.length === 0) return;
    const batch = encodeTxBatch(this.items);
    this.batches++;
    this.txs += this.items.length;
    this.items = [];
    this.bytes = 2;
    this.publish(batch);
  }
}
