import type { Candidate, Candidates } from '../protocol/candidates';
import type { SignedTx } from '../protocol/types';

/** Block order: (nonce, timestamp, id) ascending across senders. */
export function compareTx(a: SignedTx, b: SignedTx): number {
  if (a.nonce !== b.nonce) return a.nonce - b.nonce;
  if (a.timestamp !== b.timestamp) return a.timestamp - b.timestamp;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * A sender's place in its queue, as the heap holds it and block building receives it. `advance` is a method, not a
 * closure made per pop: under tsx every named closure also costs a defineProperty (esbuild's keepNames), and a pop
 * per included transaction made the merge ~3 ms of a 500-transaction block.
 */
class Cursor implements Candidate {
  readonly tx: SignedTx;
  constructor(
    private readonly heap: SenderHeap,
    private readonly queue: SignedTx[],
    private readonly pos: number,
  ) {
    this.tx = queue[pos];
  }

  advance(): void {
    this.heap.push(this.queue, this.pos + 1);
  }
}

/** A binary min-heap of each sender's next transaction; the merge keeps every sender's nonce order. */
export class SenderHeap {
  private readonly items: Cursor[] = [];

  push(queue: SignedTx[], pos = 0): void {
    if (pos >= queue.length) return;
    this.items.push(new Cursor(this, queue, pos));
    this.up(this.items.length - 1);
  }

  /** Removes the smallest head; `advance()` on it lets that sender's next transaction in. */
  pop(): Candidate | undefined {
    const it = this.items;
    const top = it[0];
    if (!top) return undefined;
    const last = it.pop()!;
    if (it.length > 0) {
      it[0] = last;
      this.down(0);
    }
    return top;
  }

  get size(): number {
    return this.items.length;
  }

  private up(i: number): void {
    const it = this.items;
    const x = it[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compareTx(x.tx, it[p].tx) >= 0) break;
      it[i] = it[p];
      i = p;
    }
    it[i] = x;
  }

  private down(i: number): void {
    const it = this.items;
    const n = it.length;
    const x = it[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && compareTx(it[r].tx, it[l].tx) < 0 ? r : l;
      if (compareTx(it[m].tx, x.tx) >= 0) break;
      it[i] = it[m];
      i = m;
    }
    it[i] = x;
  }
}

/**
 * The transactions a block will likely take: the candidates go by nonce across senders (orderedCandidates, below), so
 * every sender's first, then every sender's second, and so on. Taking each sender's first four in turn instead
 * prefetched a quarter of the senders of a block with one transaction from each, and the other three quarters' accounts
 * were read one trie node at a time while the block executed (bench/accounts.ts: recipients cold in a large state).
 */
export function likelyTxs<T>(pending: readonly (readonly T[])[], max: number): T[] {
  const out: T[] = [];
  for (let depth = 0; out.length < max; depth++) {
    let any = false;
    for (const q of pending) {
      if (depth >= q.length) continue;
      any = true;
      out.push(q[depth]);
      if (out.length === max) return out;
    }
    if (!any) break;
  }
  return out;
}

/** The block-building order over per-sender queues (each sorted by nonce), as block building pulls it. */
export function orderedCandidates(queues: Iterable<SignedTx[]>): Candidates {
  const heap = new SenderHeap();
  for (const q of queues) heap.push(q);
  return {
    next(): IteratorResult<Candidate, undefined> {
      const c = heap.pop();
      return c ? { done: false, value: c } : { done: true, value: undefined };
    },
  };
}
