import type { Candidate, Candidates } from '../protocol/candidates';
import type { SignedTx } from '../protocol/types';

/** Block order: (nonce, timestamp, id) ascending across senders. */
export function compareTx(a: SignedTx, b: SignedTx): number {
  if (a.nonce !== b.nonce) return a.nonce - b.nonce;
  if (a.timestamp !== b.timestamp) return a.timestamp - b.timestamp;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A binary min-heap of each sender's next transaction; the merge keeps every sender's nonce order. */
export class SenderHeap {
  private items: { tx: SignedTx; queue: SignedTx[]; pos: number }[] = [];

  push(queue: SignedTx[], pos = 0): void {
    if (pos >= queue.length) return;
    this.items.push({ tx: queue[pos], queue, pos });
    this.up(this.items.length - 1);
  }

  /** Removes the smallest head; returns it with a function to advance that sender. */
  pop(): { tx: SignedTx; advance: () => void } | undefined {
    const top = this.items[0];
    if (!top) return undefined;
    const last = this.items.pop()!;
    if (this.items.length > 0) {
      this.items[0] = last;
      this.down(0);
    }
    return { tx: top.tx, advance: () => this.push(top.queue, top.pos + 1) };
  }

  get size(): number {
    return this.items.length;
  }

  private up(i: number): void {
    const it = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compareTx(it[i].tx, it[p].tx) >= 0) break;
      [it[i], it[p]] = [it[p], it[i]];
      i = p;
    }
  }

  private down(i: number): void {
    const it = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < it.length && compareTx(it[l].tx, it[m].tx) < 0) m = l;
      if (r < it.length && compareTx(it[r].tx, it[m].tx) < 0) m = r;
      if (m === i) return;
      [it[i], it[m]] = [it[m], it[i]];
      i = m;
    }
  }
}

/** The block-building order over per-sender queues (each sorted by nonce), as block building pulls it. */
export function orderedCandidates(queues: Iterable<SignedTx[]>): Candidates {
  const heap = new SenderHeap();
  for (const q of queues) heap.push(q);
  return {
    next: (): IteratorResult<Candidate, undefined> => {
      const c = heap.pop();
      return c ? { done: false, value: c } : { done: true, value: undefined };
    },
  };
}
