import { describe, expect, it } from 'vitest';
import type { HybridTx, SignedTx } from '../../src/protocol/types';
import { REFUSAL, TxPool, type SenderView } from '../../src/mempool/pool';
import { compareTx, SenderHeap } from '../../src/mempool/senderHeap';

const A = '0x00000000000000000000000000000000000000aa' as const;
const B = '0x00000000000000000000000000000000000000bb' as const;
const KEY = `0x${'11'.repeat(32)}` as const;

let seq = 0;
function tx(from: `0x${string}`, nonce: number, o: Partial<HybridTx> = {}): SignedTx {
  seq++;
  return {
    chainId: 72020, type: 'TRANSFER', from, to: B, amount: '10', nonce, timestamp: 1000 + seq, fee: '5', data: null,
    id: `0x${seq.toString(16).padStart(64, '0')}`, publicKeys: { secp256k1: '0x', mldsa44: '0x' }, signatures: { secp256k1: '0x', mldsa44: '0x' }, ...o,
  };
}
const rich: SenderView = { nonce: 0, balance: 1_000_000n, mldsaKeyHash: null };
const pool = (cap = 100) => new TxPool({ cap, lifetimeMs: 1000, maxNonceGap: 64 });

describe('TxPool admission', () => {
  it('admits a valid transaction and refuses the same id as already known', () => {
    const p = pool();
    const t = tx(A, 0);
    expect(p.admit(t, rich, KEY, 0)).toBeUndefined();
    expect(p.admit(t, rich, KEY, 0)).toBe(REFUSAL.known);
  });
  it('refuses a nonce below the account nonce, and a second transaction on a pending nonce', () => {
    const p = pool();
    expect(p.admit(tx(A, 3), { ...rich, nonce: 5 }, KEY, 0)).toBe(REFUSAL.nonceUsed);
    expect(p.admit(tx(A, 0), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 0), rich, KEY, 0)).toBe(REFUSAL.nonceUsed);
  });
  it('refuses a nonce more than 64 beyond the next nonce; exactly 64 is fine', () => {
    const p = pool();
    expect(p.admit(tx(A, 65), rich, KEY, 0)).toBe(REFUSAL.nonceAhead);
    expect(p.admit(tx(A, 64), rich, KEY, 0)).toBeUndefined();
  });
  it('measures the gap from the next nonce, counting contiguous pending transactions', () => {
    const p = pool();
    for (let n = 0; n < 10; n++) expect(p.admit(tx(A, n), rich, KEY, 0)).toBeUndefined();
    expect(p.nextNonce(A, 0)).toBe(10);
    expect(p.admit(tx(A, 74), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 75), rich, KEY, 0)).toBe(REFUSAL.nonceAhead);
  });
  it('refuses amount plus fee over the liquid balance, counting what is already pending', () => {
    const p = pool();
    const poor: SenderView = { nonce: 0, balance: 30n, mldsaKeyHash: null };
    expect(p.admit(tx(A, 0), poor, KEY, 0)).toBeUndefined(); // 15
    expect(p.admit(tx(A, 1), poor, KEY, 0)).toBeUndefined(); // 30
    expect(p.admit(tx(A, 2), poor, KEY, 0)).toBe(REFUSAL.balance);
    expect(p.admit(tx(B, 0), undefined, KEY, 0)).toBe(REFUSAL.balance);
  });
  it('refuses an ML-DSA key other than the one bound to the account', () => {
    expect(pool().admit(tx(A, 0), { ...rich, mldsaKeyHash: `0x${'22'.repeat(32)}` }, KEY, 0)).toBe(REFUSAL.signature);
  });
  it('refuses when full and expires after the lifetime', () => {
    const p = pool(2);
    expect(p.admit(tx(A, 0), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 1), rich, KEY, 500)).toBeUndefined();
    expect(p.admit(tx(A, 2), rich, KEY, 0)).toBe(REFUSAL.full);
    expect(p.expire(1000).map((t) => t.nonce)).toEqual([0]);
    expect(p.size).toBe(1);
  });
});

describe('block ordering', () => {
  it('orders by (nonce, timestamp) across senders and keeps each sender in nonce order', () => {
    const a = [tx(A, 0, { timestamp: 50 }), tx(A, 1, { timestamp: 10 })];
    const b = [tx(B, 0, { timestamp: 20 }), tx(B, 1, { timestamp: 5 })];
    const h = new SenderHeap();
    h.push(a);
    h.push(b);
    const out: SignedTx[] = [];
    for (let n = h.pop(); n; n = h.pop()) {
      out.push(n.tx);
      n.advance();
    }
    expect(out.map((t) => [t.from, t.nonce])).toEqual([[B, 0], [A, 0], [B, 1], [A, 1]]);
    expect(compareTx(out[0], out[1])).toBeLessThan(0);
  });
});
