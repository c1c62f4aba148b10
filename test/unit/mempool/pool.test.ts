import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HybridTx, SignedTx } from '../../../src/protocol/types';
import { TxPool, type SenderView } from '../../../src/mempool/pool';
import { DROP, REFUSAL } from '../../../src/protocol/txRefusals';
import { compareTx, SenderHeap } from '../../../src/mempool/senderHeap';
import {
  MAX_FUTURE_NONCE_GAP,
  MEMPOOL_CAP_DEFAULT,
  MEMPOOL_LIFETIME_MS,
  MEMPOOL_SENDER_GAPPED,
} from '../../../src/protocol/params';

const A = '0x00000000000000000000000000000000000000aa' as const;
const B = '0x00000000000000000000000000000000000000bb' as const;
const KEY = `0x${'11'.repeat(32)}` as const;

let seq = 0;
function tx(from: `0x${string}`, nonce: number, o: Partial<HybridTx> = {}): SignedTx {
  seq++;
  return {
    chainId: 72020,
    type: 'TRANSFER',
    from,
    to: B,
    amount: '10',
    nonce,
    timestamp: 1000 + seq,
    fee: '5',
    data: null,
    id: `0x${seq.toString(16).padStart(64, '0')}`,
    publicKeys: { secp256k1: '0x', mldsa44: '0x' },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
    ...o,
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
    expect(p.expire(1000).map((d) => [d.tx.nonce, d.reason])).toEqual([[0, DROP.lifetime.reason]]);
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
    expect(out.map((t) => [t.from, t.nonce])).toEqual([
      [B, 0],
      [A, 0],
      [B, 1],
      [A, 1],
    ]);
    expect(compareTx(out[0], out[1])).toBeLessThan(0);
  });
});

/** A pool with the bounds of row 7 made small: cap, per-sender pending and gapped, gapped lifetime. */
const bounded = (o: { cap?: number; perSender?: number; gapped?: number; gappedLifetimeMs?: number } = {}) =>
  new TxPool({
    cap: o.cap ?? 100,
    lifetimeMs: 1_000_000,
    maxNonceGap: 64,
    perSender: o.perSender ?? 50,
    gappedPerSender: o.gapped ?? 4,
    gappedLifetimeMs: o.gappedLifetimeMs ?? 1000,
  });
const addr = (i: number) => `0x${(0x1000 + i).toString(16).padStart(40, '0')}` as `0x${string}`;

describe('per-sender bounds: gapped and pending transactions', () => {
  it(
    'holds at most gappedPerSender transactions beyond the next nonce (`nonce too far ahead`), ' +
      'and none once the gap fills',
    () => {
      const p = bounded({ gapped: 4 });
      for (let n = 1; n <= 4; n++) expect(p.admit(tx(A, n), rich, KEY, 0)).toBeUndefined();
      expect(p.admit(tx(A, 5), rich, KEY, 0)).toBe(REFUSAL.nonceAhead);
      expect(p.senderLoad(A)).toEqual({ pending: 4, gapped: 4 });
      expect(p.admit(tx(A, 0), rich, KEY, 0)).toBeUndefined(); // fills the gap: 0..4 ready
      expect(p.senderLoad(A)).toEqual({ pending: 5, gapped: 0 });
      expect(p.admit(tx(A, 5), rich, KEY, 0)).toBeUndefined();
      for (let n = 7; n <= 10; n++) expect(p.admit(tx(A, n), rich, KEY, 0)).toBeUndefined();
      expect(p.admit(tx(A, 11), rich, KEY, 0)).toBe(REFUSAL.nonceAhead);
    },
  );
  it('holds at most perSender pending transactions of one sender (`mempool full`), ready ones included', () => {
    const p = bounded({ perSender: 3 });
    for (let n = 0; n < 3; n++) expect(p.admit(tx(A, n), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 3), rich, KEY, 0)).toBe(REFUSAL.full);
    expect(p.admit(tx(B, 0), rich, KEY, 0)).toBeUndefined(); // another sender is not held back
  });
  it(
    'counts from the account nonce at the head: ' + 'a block that used the lower nonces makes the gapped ones ready',
    () => {
      const p = bounded({ gapped: 2 });
      expect(p.admit(tx(A, 3), rich, KEY, 0)).toBeUndefined();
      expect(p.admit(tx(A, 4), rich, KEY, 0)).toBeUndefined();
      expect(p.admit(tx(A, 6), rich, KEY, 0)).toBe(REFUSAL.nonceAhead);
      p.rebase(A, 3, 10); // a peer's block used nonces 0..2
      expect(p.senderLoad(A)).toEqual({ pending: 2, gapped: 0 });
      // Admission reads the head itself, so a sender's own next submission corrects a stale view.
      const q = bounded({ gapped: 2 });
      expect(q.admit(tx(A, 3), rich, KEY, 0)).toBeUndefined();
      expect(q.admit(tx(A, 5), { ...rich, nonce: 3 }, KEY, 0)).toBeUndefined();
      expect(q.senderLoad(A)).toEqual({ pending: 2, gapped: 1 });
    },
  );
  it(
    'a block that includes a transaction this pool held as gapped ' +
      '(its view of the account behind) makes the next ones ready',
    () => {
      const p = bounded();
      const [t1, t2] = [tx(A, 1), tx(A, 2)];
      expect(p.admit(t1, rich, KEY, 0)).toBeUndefined();
      expect(p.admit(t2, rich, KEY, 0)).toBeUndefined();
      expect(p.isGapped(t2.id)).toBe(true);
      p.remove(t1.id, 5, true); // a peer's block used nonce 0 (sent elsewhere) and then nonce 1
      expect(p.isGapped(t2.id)).toBe(false);
      expect(p.senderLoad(A)).toEqual({ pending: 1, gapped: 0 });
    },
  );
  it('an included transaction advances its sender; a dropped one leaves the higher nonces gapped', () => {
    const p = bounded();
    const t = [0, 1, 2].map((n) => tx(A, n));
    for (const x of t) expect(p.admit(x, rich, KEY, 0)).toBeUndefined();
    p.remove(t[0].id, 5, true);
    expect(p.senderLoad(A).gapped).toBe(0);
    p.remove(t[1].id, 5); // dropped as invalid: nonce 1 stays unused
    expect(p.isGapped(t[2].id)).toBe(true);
  });
});

describe('a full pool: ready transactions evict gapped ones of other senders', () => {
  it('evicts the transaction gapped the longest, of another sender, and reports it as evicted', () => {
    const p = bounded({ cap: 3 });
    const a1 = tx(A, 1);
    expect(p.admit(a1, rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 2), rich, KEY, 10)).toBeUndefined();
    expect(p.admit(tx(B, 5), rich, KEY, 20)).toBeUndefined();
    const c = addr(1);
    expect(p.admit(tx(c, 0), rich, KEY, 30)).toBeUndefined();
    expect(p.size).toBe(3);
    expect(p.takeEvicted().map((d) => [d.tx.id, d.reason])).toEqual([[a1.id, DROP.evicted.reason]]);
    expect(p.takeEvicted()).toEqual([]);
  });
  it("never evicts for a gapped transaction, nor for a ready one when every gapped one is its own sender's", () => {
    const p = bounded({ cap: 2 });
    expect(p.admit(tx(A, 1), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 2), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(B, 1), rich, KEY, 0)).toBe(REFUSAL.full); // gapped itself
    expect(p.admit(tx(A, 0), rich, KEY, 0)).toBe(REFUSAL.full); // only its own gapped ones
    expect(p.takeEvicted()).toEqual([]);
  });
  it('answers `mempool full` when the pool is full of ready transactions', () => {
    const p = bounded({ cap: 2 });
    expect(p.admit(tx(A, 0), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(B, 0), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(addr(1), 0), rich, KEY, 0)).toBe(REFUSAL.full);
  });
});

describe('transactions of undone blocks (readmitted): accepted once, never lost to a cap', () => {
  it('pass the per-sender gapped and pending caps and the pool cap; the validity rules still apply', () => {
    const p = new TxPool({ cap: 10, lifetimeMs: 1000, maxNonceGap: 64, perSender: 5, gappedPerSender: 2 });
    // Three gapped and five pending were the caps' limits for a fresh admission.
    for (const n of [2, 3]) expect(p.admit(tx(A, n), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 4), rich, KEY, 0)).toBe(REFUSAL.nonceAhead);
    expect(p.admit(tx(A, 4), rich, KEY, 0, true)).toBeUndefined();
    expect(p.admit(tx(A, 0), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 1), rich, KEY, 0)).toBeUndefined();
    expect(p.admit(tx(A, 5), rich, KEY, 0)).toBe(REFUSAL.full);
    for (let n = 5; n < 12; n++) expect(p.admit(tx(A, n), rich, KEY, 0, true)).toBeUndefined();
    expect(p.size).toBe(12); // above the cap of 10 by what the undone blocks held
    expect(p.admit(tx(B, 0), rich, KEY, 0)).toBe(REFUSAL.full);
    // Still refused: a used nonce, a nonce beyond the protocol's gap, more than the balance.
    expect(p.admit(tx(A, 3), rich, KEY, 0, true)).toBe(REFUSAL.nonceUsed);
    expect(p.admit(tx(A, 12 + 65), rich, KEY, 0, true)).toBe(REFUSAL.nonceAhead);
    expect(p.admit(tx(B, 0), { ...rich, balance: 1n }, KEY, 0, true)).toBe(REFUSAL.balance);
  });
});

describe('gapped transactions expire far sooner than ready ones', () => {
  it('drops a transaction gapped for gappedLifetimeMs, keeps ready ones until the lifetime', () => {
    const p = bounded({ gappedLifetimeMs: 100 });
    const ready = tx(A, 0);
    const gapped = tx(B, 1);
    expect(p.admit(ready, rich, KEY, 0)).toBeUndefined();
    expect(p.admit(gapped, rich, KEY, 0)).toBeUndefined();
    expect(p.dueGappedSenders(99)).toEqual([]);
    expect(p.expire(99)).toEqual([]);
    expect(p.dueGappedSenders(100)).toEqual([B]);
    expect(p.expire(100).map((d) => [d.tx.id, d.reason])).toEqual([[gapped.id, DROP.gappedLifetime.reason]]);
    expect(p.has(ready.id)).toBe(true);
  });
  it('times the gapped lifetime from when a transaction became gapped, not from its arrival', () => {
    const p = bounded({ gappedLifetimeMs: 100 });
    const t0 = tx(A, 0);
    const t1 = tx(A, 1);
    expect(p.admit(t0, rich, KEY, 0)).toBeUndefined();
    expect(p.admit(t1, rich, KEY, 0)).toBeUndefined();
    p.remove(t0.id, 500); // dropped: 1 waits on a gap from now on
    expect(p.expire(599)).toEqual([]);
    expect(p.expire(600).map((d) => d.tx.id)).toEqual([t1.id]);
  });
});

describe('row 7 of issue 23 at the default sizes (cap 5,000, 16 gapped and 500 pending per sender)', () => {
  const defaults = () =>
    new TxPool({ cap: MEMPOOL_CAP_DEFAULT, lifetimeMs: MEMPOOL_LIFETIME_MS, maxNonceGap: MAX_FUTURE_NONCE_GAP });
  const funded: SenderView = { nonce: 0, balance: 100n, mldsaKeyHash: null };
  const squat = (p: TxPool, accounts: number) => {
    for (let i = 0; i < accounts; i++)
      for (let n = 1; n <= 64; n++) p.admit(tx(addr(i), n, { amount: '1', fee: '0' }), funded, KEY, i);
  };
  it('80 accounts sending nonces 1-64 with fee 0 hold 16 places each, not the pool', () => {
    const p = defaults();
    squat(p, 80);
    expect(p.size).toBe(80 * MEMPOOL_SENDER_GAPPED);
    expect(p.gappedCount).toBe(p.size);
    expect(p.admit(tx(A, 0), rich, KEY, 1000)).toBeUndefined();
  });
  it('enough accounts to fill all 5,000 places with gapped transactions still leave room for every ready one', () => {
    const p = defaults();
    squat(p, Math.ceil(MEMPOOL_CAP_DEFAULT / MEMPOOL_SENDER_GAPPED) + 10);
    expect(p.size).toBe(MEMPOOL_CAP_DEFAULT);
    for (let i = 0; i < 600; i++) expect(p.admit(tx(addr(100_000 + i), 0), rich, KEY, 2000)).toBeUndefined();
    expect(p.size).toBe(MEMPOOL_CAP_DEFAULT);
    const evicted = p.takeEvicted();
    expect(evicted).toHaveLength(600);
    expect(new Set(evicted.map((d) => d.reason))).toEqual(new Set([DROP.evicted.reason]));
  });
});

describe('pool invariants under random operations (model test)', () => {
  const SENDERS = [addr(0), addr(1), addr(2)];
  const CAP = 10;
  const PER = 5;
  const GAP = 2;
  const GAPPED_MS = 50;
  type Op =
    | { kind: 'submit'; s: number; ahead: number }
    | { kind: 'block'; take: number }
    | { kind: 'drop'; s: number }
    | { kind: 'peer'; s: number; k: number; mine: boolean; reverse: boolean }
    | { kind: 'tick'; ms: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      arbitrary: fc.record({ kind: fc.constant('submit' as const), s: fc.nat(SENDERS.length - 1), ahead: fc.nat(6) }),
      weight: 6,
    },
    { arbitrary: fc.record({ kind: fc.constant('block' as const), take: fc.integer({ min: 1, max: 6 }) }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('drop' as const), s: fc.nat(SENDERS.length - 1) }), weight: 1 },
    {
      arbitrary: fc.record({
        kind: fc.constant('peer' as const),
        s: fc.nat(SENDERS.length - 1),
        k: fc.integer({ min: 1, max: 4 }),
        mine: fc.boolean(),
        reverse: fc.boolean(),
      }),
      weight: 1,
    },
    { arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 40 }) }), weight: 2 },
  );

  it(
    'keeps the bounds, classifies gapped exactly, ' +
      'and lets a ready transaction in whenever another sender holds a gapped one',
    () => {
      fc.assert(
        fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
          const p = new TxPool({
            cap: CAP,
            lifetimeMs: 1e12,
            maxNonceGap: 8,
            perSender: PER,
            gappedPerSender: GAP,
            gappedLifetimeMs: GAPPED_MS,
          });
          const chainNonce = SENDERS.map(() => 0); // the head's account nonces
          const ids = new Map<string, SignedTx>(); // what the pool should hold
          let now = 0;
          const held = (s: number) => [...ids.values()].filter((t) => t.from === SENDERS[s]);
          const readyEnd = (s: number) => {
            const nonces = new Set(held(s).map((t) => t.nonce));
            let n = chainNonce[s];
            while (nonces.has(n)) n++;
            return n;
          };
          const forget = (out: { tx: SignedTx }[]) => {
            for (const d of out) ids.delete(d.tx.id);
          };
          for (const o of ops) {
            if (o.kind === 'tick') {
              now += o.ms;
              for (const a of p.dueGappedSenders(now)) p.rebase(a, chainNonce[SENDERS.indexOf(a)], now, true);
              const out = p.expire(now);
              for (const d of out) expect(d.reason).toBe(DROP.gappedLifetime.reason); // ready ones live 1e12 ms
              forget(out);
            } else if (o.kind === 'block') {
              // The producer takes ready transactions (lowest nonce first) and the chain advances.
              let left = o.take;
              for (let s = 0; s < SENDERS.length && left > 0; s++) {
                for (const t of held(s).sort((a, b) => a.nonce - b.nonce)) {
                  if (t.nonce !== chainNonce[s] || left === 0) break;
                  p.remove(t.id, now, true);
                  ids.delete(t.id);
                  chainNonce[s]++;
                  left--;
                }
              }
            } else if (o.kind === 'peer') {
              // A peer's block uses the sender's next k nonces: with the transactions this pool
              // holds (told in any order), or with others sent elsewhere (ours on them go stale).
              const from = SENDERS[o.s];
              const used = held(o.s).filter((t) => t.nonce >= chainNonce[o.s] && t.nonce < chainNonce[o.s] + o.k);
              chainNonce[o.s] += o.k;
              if (o.mine) {
                for (const t of o.reverse ? used.reverse() : used) {
                  p.remove(t.id, now, true);
                  ids.delete(t.id);
                }
              }
              p.rebase(from, chainNonce[o.s], now);
            } else if (o.kind === 'drop') {
              // The producer drops a sender's lowest transaction as invalid (its nonce stays unused).
              const low = held(o.s).sort((a, b) => a.nonce - b.nonce)[0];
              if (low) {
                p.remove(low.id, now);
                ids.delete(low.id);
              }
            } else {
              const from = SENDERS[o.s];
              const t = tx(from, chainNonce[o.s] + o.ahead);
              const next = readyEnd(o.s);
              const ready = t.nonce === next;
              const othersGapped = [...ids.values()].some(
                (x) => x.from !== from && x.nonce > readyEnd(SENDERS.indexOf(x.from)),
              );
              const before = p.size;
              const mine = held(o.s);
              const verdict = p.admit(t, { nonce: chainNonce[o.s], balance: 10n ** 12n, mldsaKeyHash: null }, KEY, now);
              const evicted = p.takeEvicted();
              if (verdict === undefined) ids.set(t.id, t);
              forget(evicted);
              if (mine.some((x) => x.nonce === t.nonce)) expect(verdict).toBe(REFUSAL.nonceUsed);
              else if (ready && mine.length < PER && (before < CAP || othersGapped)) expect(verdict).toBeUndefined();
              if (!ready && before >= CAP) expect(verdict).toBe(REFUSAL.full);
              if (evicted.length > 0) {
                expect(ready).toBe(true);
                expect(evicted).toHaveLength(1);
                expect(evicted[0].tx.from).not.toBe(from);
              }
            }
            // Invariants: the bounds, and gapped exactly = above the first hole after the head's nonce.
            expect(p.size).toBe(ids.size);
            expect(p.size).toBeLessThanOrEqual(CAP);
            for (let s = 0; s < SENDERS.length; s++) {
              const end = readyEnd(s);
              const load = p.senderLoad(SENDERS[s]);
              expect(load.pending).toBeLessThanOrEqual(PER);
              for (const t of held(s)) expect(p.isGapped(t.id)).toBe(t.nonce > end);
              expect(load.gapped).toBe(held(s).filter((t) => t.nonce > end).length);
            }
          }
        }),
        { numRuns: 600 },
      );
    },
  );
});
