import type { Address } from '../../protocol/types';
import type { BlockSummary, Head } from '../../storage/chainStore';

/**
 * What the sentinel reads of the published chain: the read port it needs, declared here so
 * that actors/ does not depend on api/. `ChainView` has this shape.
 */
export interface SentinelView {
  /** The published head. */
  readonly head: Head;
  /** The active validators at the head. */
  readonly validators: readonly Address[];
  /** The newest block summaries, oldest first. */
  readonly recent: readonly BlockSummary[];
  /** Calls `l` with each new head once it is published; returns the unsubscribe. */
  onHead(l: (h: Head) => void): () => void;
}
