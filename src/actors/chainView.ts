import type { Address } from '../chain/types';
import type { BlockSummary, Head } from '../storage/chainStore';

/**
 * The published read model of the chain: replaced as a whole by the chain actor after each
 * commit, read by HTTP handlers. Readers never see a half-committed block.
 */
export class ChainView {
  private listeners = new Set<(h: Head) => void>();

  constructor(
    public head: Head,
    public validators: Address[],
    /** Newest last; bounded window used for TPS, volume and time series. */
    public recent: BlockSummary[],
    public readonly maxRecent = 20_000,
  ) {}

  publish(head: Head, summary?: BlockSummary): void {
    this.head = head;
    if (summary) {
      this.recent.push(summary);
      if (this.recent.length > this.maxRecent) this.recent.splice(0, this.recent.length - this.maxRecent);
    }
    for (const l of this.listeners) l(head);
  }

  onHead(l: (h: Head) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
