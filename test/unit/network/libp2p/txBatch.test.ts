import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BatchDecodeError,
  decodeTxBatch,
  encodeTxBatch,
  MAX_BATCH_BYTES,
  MAX_BATCH_TXS,
  TxBatcher,
} from '../../../../src/network/libp2p/txBatch';

const bytes = (n: number, fill = 7) => new Uint8Array(n).fill(fill);

describe('transaction batches on the wire', () => {
  it('round-trips any list of 1..64 envelopes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: MAX_BATCH_TXS }),
        (items) => {
          expect(decodeTxBatch(encodeTxBatch(items)).map((b) => [...b])).toEqual(items.map((b) => [...b]));
        },
      ),
    );
  });

  it('refuses anything but an exact batch, reading no length past the bytes it has', () => {
    const good = encodeTxBatch([bytes(10), bytes(20, 1)]);
    expect(() => decodeTxBatch(good.subarray(0, good.length - 1))).toThrow(BatchDecodeError);
    expect(() => decodeTxBatch(Uint8Array.from([...good, 0]))).toThrow(/after the last transaction/);
    expect(() => decodeTxBatch(Uint8Array.from([0, 0]))).toThrow(/batch of 0/);
    expect(() => decodeTxBatch(Uint8Array.from([0xff, 0xff]))).toThrow(/batch of 65535/);
    // A count of 2 and a first length of 4 GiB: refused at that length, nothing allocated.
    expect(() => decodeTxBatch(Uint8Array.from([0, 2, 0xff, 0xff, 0xff, 0xff, 1]))).toThrow(/4294967295 bytes, 1 left/);
    expect(() => decodeTxBatch(new Uint8Array(MAX_BATCH_BYTES + 1))).toThrow(BatchDecodeError);
    // Random corruptions of a good batch decode exactly or throw BatchDecodeError, never anything else.
    fc.assert(
      fc.property(fc.nat(good.length - 1), fc.integer({ min: 0, max: 255 }), (at, v) => {
        const bad = Uint8Array.from(good);
        bad[at] = v;
        try {
          decodeTxBatch(bad);
        } catch (e) {
          expect(e).toBeInstanceOf(BatchDecodeError);
        }
      }),
    );
  });
});

describe('TxBatcher', () => {
  afterEach(() => vi.useRealTimers());

  it('sends a full batch at once, and what it gathered after the delay', () => {
    vi.useFakeTimers();
    const sent: Uint8Array[][] = [];
    const b = new TxBatcher((batch) => sent.push(decodeTxBatch(batch)), { delayMs: 20, maxTxs: 3 });
    for (let i = 0; i < 4; i++) b.add(bytes(5, i));
    expect(sent.map((s) => s.length)).toEqual([3]);
    vi.advanceTimersByTime(19);
    expect(sent.length).toBe(1);
    vi.advanceTimersByTime(1);
    expect(sent.map((s) => s.length)).toEqual([3, 1]);
    expect([b.batches, b.txs]).toEqual([2, 4]);
  });

  it('sends the gathered batch first when the next envelope would overflow its bytes', () => {
    vi.useFakeTimers();
    const sent: number[] = [];
    const b = new TxBatcher((batch) => sent.push(decodeTxBatch(batch).length), { maxBytes: 1000 });
    for (let i = 0; i < 5; i++) b.add(bytes(300));
    expect(sent).toEqual([3]);
    b.flush();
    expect(sent).toEqual([3, 2]);
    expect(() => b.add(bytes(1000))).toThrow(RangeError);
  });
});
