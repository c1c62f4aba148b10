import { liquidCost } from '../protocol/cost';
import type { Address, SignedTx } from '../protocol/types';
import type { Hex } from '../primitives/hex';

/** The spec's refusal reasons, exactly as the API shows them. */
export const REFUSAL = {
  nonceUsed: 'nonce already used',
  nonceAhead: 'nonce too far ahead',
  known: 'transaction already known',
  full: 'mempool full',
  signature: 'invalid signature',
  balance: 'insufficient balance',
} as const;
export type Refusal = (typeof REFUSAL)[keyof typeof REFUSAL];

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
}

interface Entry {
  tx: SignedTx;
  receivedAt: number;
  cost: bigint; // liquidCost: the amount it spends from the balance + the fee limit
}

/**
 * Pending transactions by id and by sender/nonce. Pure data structure: the mempool actor
 * owns one and feeds it the sender's head state and the clock.
 * Replacement policy: none. The first transaction on a nonce keeps it; a second one with
 * another id is refused with `nonce already used` (fee is not a bid, so nothing would rank it higher).
 */
export class TxPool {
  private byId = new Map<Hex, Entry>();
  private bySender = new Map<Address, Map<number, Entry>>();
  /** Bumped on every admission: the producer skips re-trying an unchanged pool that yielded nothing. */
  version = 0;

  constructor(readonly opts: PoolOptions) {}

  get size(): number {
    return this.byId.size;
  }

  has(id: Hex): boolean {
    return this.byId.has(id);
  }

  get(id: Hex): { tx: SignedTx; receivedAt: number } | undefined {
    return this.byId.get(id);
  }

  /** Account nonce plus the sender's contiguous pending transactions. */
  nextNonce(sender: Address, accountNonce: number): number {
    const q = this.bySender.get(sender);
    let n = accountNonce;
    while (q?.has(n)) n++;
    return n;
  }

  /** Applies the admission rules; on success the transaction is in the pool. */
  /** `keyHash`: the ML-DSA key a hybrid transaction would bind; null for Ethereum-born ones. */
  admit(tx: SignedTx, sender: SenderView | undefined, keyHash: Hex | null, now: number): Refusal | undefined {
    if (this.byId.has(tx.id)) return REFUSAL.known;
    const accountNonce = sender?.nonce ?? 0;
    const q = this.bySender.get(tx.from);
    if (tx.nonce < accountNonce || q?.has(tx.nonce)) return REFUSAL.nonceUsed;
    if (tx.nonce - this.nextNonce(tx.from, accountNonce) > this.opts.maxNonceGap) return REFUSAL.nonceAhead;
    if (keyHash && sender?.mldsaKeyHash && sender.mldsaKeyHash !== keyHash) return REFUSAL.signature;
    const cost = liquidCost(tx);
    let committed = cost;
    for (const e of q?.values() ?? []) committed += e.cost;
    if (!sender || committed > sender.balance) return REFUSAL.balance;
    if (this.byId.size >= this.opts.cap) return REFUSAL.full;
    const e: Entry = { tx, receivedAt: now, cost };
    this.version++;
    this.byId.set(tx.id, e);
    if (q) q.set(tx.nonce, e);
    else this.bySender.set(tx.from, new Map([[tx.nonce, e]]));
    return undefined;
  }

  remove(id: Hex): SignedTx | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    this.byId.delete(id);
    const q = this.bySender.get(e.tx.from);
    q?.delete(e.tx.nonce);
    if (q && q.size === 0) this.bySender.delete(e.tx.from);
    return e.tx;
  }

  /** Removes what outlived the lifetime (this also clears nonce gaps that never fill). */
  expire(now: number): SignedTx[] {
    const out: SignedTx[] = [];
    for (const [id, e] of this.byId) if (now - e.receivedAt >= this.opts.lifetimeMs) out.push(this.remove(id)!);
    return out;
  }

  /** Each sender's pending transactions sorted by nonce (input to block building). */
  bySenderSorted(): SignedTx[][] {
    const out: SignedTx[][] = [];
    for (const q of this.bySender.values()) out.push([...q.values()].map((e) => e.tx).sort((a, b) => a.nonce - b.nonce));
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
}
