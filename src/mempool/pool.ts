import { liquidCost } from '../protocol/cost';
import { MEMPOOL_GAPPED_LIFETIME_MS, MEMPOOL_SENDER_GAPPED, MEMPOOL_SENDER_PENDING } from '../protocol/params';
import type { Address, SignedTx } from '../protocol/types';
import type { Hex } from '../primitives/hex';

import type { Refusal } from '../protocol/refusal';
import { DROP, REFUSAL } from '../protocol/txRefusals';

/** What admission needs to know about the sender at the head state (undefined: never funded). */
export interface SenderView {
  nonce: number;
  balance: bigint;
  mldsaKeyHash: Hex | null;
}

export interface PoolOptions {
  cap: number;
  lifetimeMs: number;
  maxNonceGap: number;
  /** Pending transactions one sender may hold (default MEMPOOL_SENDER_PENDING). */
  perSender?: number;
  /** Transactions one sender may hold beyond its next nonce (default MEMPOOL_SENDER_GAPPED). */
  gappedPerSender?: number;
  /** How long a transaction may stay gapped (default MEMPOOL_GAPPED_LIFETIME_MS). */
  gappedLifetimeMs?: number;
}

interface Entry {
  tx: SignedTx;
  receivedAt: number;
  cost: bigint; // liquidCost: the amount it spends from the balance + the fee limit
  /** When it last became gapped (its nonce above the sender's ready run); null while it is not. */
  gappedSince: number | null;
  /** Which turn of being gapped this is (its place in the eviction queue). */
  gappedTurn: number;
}

/** A transaction that left the pool without a block, and why. */
export interface DroppedEntry {
  tx: SignedTx;
  receivedAt: number;
  reason: string;
  code: string;
}

interface SenderQueue {
  /** The account nonce as last learnt (admission reads the head; inclusions advance it). */
  base: number;
  /** The first nonce from `base` up that no pending transaction holds: entries above it are gapped. */
  readyEnd: number;
  byNonce: Map<number, Entry>;
  gapped: number;
  /** Sum of the entries' costs (the balance rule), kept so admission does not walk the queue. */
  committed: bigint;
}

/**
 * Pending transactions by id and by sender/nonce. Pure data structure: the mempool actor
 * owns one and feeds it the sender's head state and the clock.
 * Replacement policy: none. The first transaction on a nonce keeps it; a second one with
 * another id is refused with `nonce already used` (fee is not a bid, so nothing would rank it higher).
 *
 * Ready and gapped: a sender's transactions on base, base+1, … without a hole are ready (the
 * next block can run them); those above the first hole are gapped and may never run. Gapped
 * places cost nothing to hold (row 7 of issue 23: 80 accounts held all 5,000 places for 6 h
 * with nonces 1–64), so they are bounded per sender, expire after `gappedLifetimeMs`, and give
 * way when the pool is full: a ready transaction evicts the longest-gapped one of another sender.
 * A pool full of ready transactions still answers `mempool full`.
 */
export class TxPool {
  private byId = new Map<Hex, Entry>();
  private bySender = new Map<Address, SenderQueue>();
  /**
   * Gapped entries in the order they became gapped: the first live one of another sender is
   * the one to evict. Lazily cleaned: an item whose entry left or turned ready since is skipped
   * (a Map deleted from the front would walk its deleted slots on every eviction).
   */
  private gappedQueue: { e: Entry; turn: number }[] = [];
  private gappedHead = 0;
  private gappedTurns = 0;
  private gapped = 0;
  private evicted: DroppedEntry[] = [];
  readonly perSender: number;
  readonly gappedPerSender: number;
  readonly gappedLifetimeMs: number;
  /** Bumped on every admission: the producer skips re-trying an unchanged pool that yielded nothing. */
  version = 0;

  constructor(readonly opts: PoolOptions) {
    this.perSender = opts.perSender ?? MEMPOOL_SENDER_PENDING;
    this.gappedPerSender = opts.gappedPerSender ?? MEMPOOL_SENDER_GAPPED;
    this.gappedLifetimeMs = opts.gappedLifetimeMs ?? MEMPOOL_GAPPED_LIFETIME_MS;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Transactions that cannot run until a lower nonce of their sender arrives. */
  /**
   * Full of transactions no newcomer can evict (none is gapped): every transaction would be refused `mempool full`,
   * so admission answers it before paying for its signatures (most of admission's cost).
   */
  get fullOfReady(): boolean {
    return this.byId.size >= this.opts.cap && this.gapped === 0;
  }

  get gappedCount(): number {
    return this.gapped;
  }

  has(id: Hex): boolean {
    return this.byId.has(id);
  }

  get(id: Hex): { tx: SignedTx; receivedAt: number } | undefined {
    return this.byId.get(id);
  }

  /** Whether a pending transaction sits above a nonce gap of its sender. */
  isGapped(id: Hex): boolean {
    return (this.byId.get(id)?.gappedSince ?? null) !== null;
  }

  /** Pending and gapped transactions of one sender. */
  senderLoad(sender: Address): { pending: number; gapped: number } {
    const q = this.bySender.get(sender);
    return { pending: q?.byNonce.size ?? 0, gapped: q?.gapped ?? 0 };
  }

  /** Account nonce plus the sender's contiguous pending transactions. */
  nextNonce(sender: Address, accountNonce: number): number {
    const q = this.bySender.get(sender)?.byNonce;
    let n = accountNonce;
    while (q?.has(n)) n++;
    return n;
  }

  /**
   * Applies the admission rules; on success the transaction is in the pool (and it may have
   * evicted a gapped one: `takeEvicted`). `keyHash`: the ML-DSA key a hybrid transaction would
   * bind; null for Ethereum-born ones. `readmitted`: a transaction of a block a reorganization
   * undid, accepted once already: it is exempt from the per-sender caps and from the pool's cap
   * (which it may exceed by what the undone blocks held), so that nothing accepted is lost to a
   * reorganization; the validity rules (nonce, balance, key) still apply.
   */
  admit(
    tx: SignedTx,
    sender: SenderView | undefined,
    keyHash: Hex | null,
    now: number,
    readmitted = false,
  ): Refusal | undefined {
    if (this.byId.has(tx.id)) return REFUSAL.known;
    const accountNonce = sender?.nonce ?? 0;
    const q = this.bySender.get(tx.from);
    if (tx.nonce < accountNonce || q?.byNonce.has(tx.nonce)) return REFUSAL.nonceUsed;
    // The head is the truth about the account nonce: what counts as gapped follows it.
    if (q && q.base !== accountNonce) this.rebase(tx.from, accountNonce, now, true);
    const next = this.nextNonce(tx.from, accountNonce);
    if (tx.nonce - next > this.opts.maxNonceGap) return REFUSAL.nonceAhead;
    // Same word as the gap rule, same remedy: send the intermediate transactions first.
    const gapped = tx.nonce > next;
    if (gapped && !readmitted && (q?.gapped ?? 0) >= this.gappedPerSender) return REFUSAL.nonceAhead;
    if (keyHash && sender?.mldsaKeyHash && sender.mldsaKeyHash !== keyHash) return REFUSAL.signature;
    const cost = liquidCost(tx);
    if (!sender || (q?.committed ?? 0n) + cost > sender.balance) return REFUSAL.balance;
    if (!readmitted && (q?.byNonce.size ?? 0) >= this.perSender) return REFUSAL.full;
    if (this.byId.size >= this.opts.cap) {
      const victim = gapped ? undefined : this.oldestGappedNotOf(tx.from);
      if (victim) this.evicted.push(this.drop(victim, DROP.evicted, now));
      else if (!readmitted) return REFUSAL.full;
    }
    this.version++;
    this.insert(
      q ?? this.newQueue(tx.from, accountNonce),
      { tx, receivedAt: now, cost, gappedSince: null, gappedTurn: 0 },
      now,
    );
    return undefined;
  }

  /** What admissions evicted since the last call (the actor records them as dropped). */
  takeEvicted(): DroppedEntry[] {
    const out = this.evicted;
    this.evicted = [];
    return out;
  }

  /**
   * Removes a pending transaction. `included`: it is in a block, so its sender's account nonce
   * is past it now (a transaction dropped as invalid leaves its nonce unused, and the sender's
   * higher nonces gapped).
   */
  remove(id: Hex, now: number, included = false): SignedTx | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    const wasGapped = e.gappedSince !== null;
    this.unlink(e);
    const q = this.bySender.get(e.tx.from);
    const n = e.tx.nonce;
    if (!q) return e.tx;
    if (included && n >= q.base) {
      // The usual inclusion, the lowest ready nonce, only moves `base` (the run keeps its end);
      // one further up means this pool's view of the account was behind: walk the run again.
      const usual = n === q.base;
      q.base = n + 1;
      if (!usual) this.classify(q, now);
    } else if (!wasGapped && n >= q.base) this.classify(q, now); // a hole in the run: the rest is gapped now
    return e.tx;
  }

  /**
   * The sender's account nonce is at least `nonce` (a block used its lower nonces, perhaps with
   * transactions this pool never held). `exact`: it is exactly `nonce` (read from the head).
   */
  rebase(sender: Address, nonce: number, now: number, exact = false): void {
    const q = this.bySender.get(sender);
    if (!q || q.base === nonce || (!exact && q.base > nonce)) return;
    q.base = nonce;
    this.classify(q, now);
  }

  /** Senders with a gapped transaction due to expire at `now`: the actor refreshes their account nonce first. */
  dueGappedSenders(now: number): Address[] {
    const out = new Set<Address>();
    for (const e of this.byId.values())
      if (e.gappedSince !== null && now - e.gappedSince >= this.gappedLifetimeMs) out.add(e.tx.from);
    return [...out];
  }

  /**
   * Removes what outlived the lifetime (6 h), and what stayed gapped for the gapped lifetime
   * (this also clears nonce gaps that never fill).
   */
  expire(now: number): DroppedEntry[] {
    const out: DroppedEntry[] = [];
    for (const e of this.byId.values()) {
      if (now - e.receivedAt >= this.opts.lifetimeMs) out.push(this.drop(e, DROP.lifetime, now));
      else if (e.gappedSince !== null && now - e.gappedSince >= this.gappedLifetimeMs)
        out.push(this.drop(e, DROP.gappedLifetime, now));
    }
    return out;
  }

  /** Each sender's pending transactions sorted by nonce (input to block building). */
  bySenderSorted(): SignedTx[][] {
    const out: SignedTx[][] = [];
    for (const q of this.bySender.values())
      out.push([...q.byNonce.values()].map((e) => e.tx).sort((a, b) => a.nonce - b.nonce));
    return out;
  }

  /** Oldest first, for the /mempool view. */
  list(limit: number): { tx: SignedTx; receivedAt: number }[] {
    const out: { tx: SignedTx; receivedAt: number }[] = [];
    for (const e of this.byId.values()) {
      if (out.length >= limit) break;
      out.push(e);
    }
    return out;
  }

  private drop(e: Entry, why: Refusal, now: number): DroppedEntry {
    this.remove(e.tx.id, now);
    return { tx: e.tx, receivedAt: e.receivedAt, reason: why.reason, code: why.code };
  }

  private newQueue(sender: Address, base: number): SenderQueue {
    const q: SenderQueue = { base, readyEnd: base, byNonce: new Map(), gapped: 0, committed: 0n };
    this.bySender.set(sender, q);
    return q;
  }

  private insert(q: SenderQueue, e: Entry, now: number): void {
    this.byId.set(e.tx.id, e);
    q.byNonce.set(e.tx.nonce, e);
    q.committed += e.cost;
    if (e.tx.nonce > q.readyEnd) this.setGapped(q, e, now);
    else if (e.tx.nonce === q.readyEnd) {
      // It closes the hole: the run grows over the entries above it, which are ready now.
      let next = q.byNonce.get(++q.readyEnd);
      for (; next; next = q.byNonce.get(++q.readyEnd)) this.setReady(q, next);
    }
  }

  private unlink(e: Entry): void {
    this.byId.delete(e.tx.id);
    const q = this.bySender.get(e.tx.from);
    if (!q) return;
    if (e.gappedSince !== null) this.setReady(q, e);
    q.byNonce.delete(e.tx.nonce);
    q.committed -= e.cost;
    if (q.byNonce.size === 0) this.bySender.delete(e.tx.from);
  }

  /** Recomputes the ready run from `base`: entries above its first hole are gapped, the others not. */
  private classify(q: SenderQueue, now: number): void {
    q.readyEnd = q.base;
    while (q.byNonce.has(q.readyEnd)) q.readyEnd++;
    for (const e of q.byNonce.values()) {
      if (e.tx.nonce > q.readyEnd) this.setGapped(q, e, now);
      else this.setReady(q, e);
    }
  }

  private setGapped(q: SenderQueue, e: Entry, now: number): void {
    if (e.gappedSince !== null) return;
    e.gappedSince = now;
    e.gappedTurn = ++this.gappedTurns;
    this.gappedQueue.push({ e, turn: e.gappedTurn });
    this.gapped++;
    q.gapped++;
  }

  private setReady(q: SenderQueue, e: Entry): void {
    if (e.gappedSince === null) return;
    e.gappedSince = null;
    this.gapped--;
    q.gapped--;
    // Compact once dead items outnumber the live ones (amortized O(1) per transition).
    if (this.gappedQueue.length - this.gappedHead > 2 * this.gapped + 1024) {
      this.gappedQueue = this.gappedQueue.slice(this.gappedHead).filter((it) => this.live(it));
      this.gappedHead = 0;
    }
  }

  private live(it: { e: Entry; turn: number }): boolean {
    return it.e.gappedSince !== null && it.e.gappedTurn === it.turn; // a removed entry is never gapped
  }

  /**
   * The transaction gapped the longest, of a sender other than `sender` (only that sender's gapped ones are skipped).
   */
  private oldestGappedNotOf(sender: Address): Entry | undefined {
    const q = this.gappedQueue;
    while (this.gappedHead < q.length && !this.live(q[this.gappedHead])) this.gappedHead++;
    for (let i = this.gappedHead; i < q.length; i++) if (this.live(q[i]) && q[i].e.tx.from !== sender) return q[i].e;
    return undefined;
  }
}
