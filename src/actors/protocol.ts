import type { Address, Block, SignedBlockHeader, SignedTx } from '../protocol/types';
import type { TxLifecycleSnapshot } from '../machines/txLifecycle';
import type { Hex } from '../primitives/hex';
import type { BlockSummary, Head } from '../protocol/chain';

/** Every message between node actors, as discriminated unions (commands imperative, events past tense). */
export type MempoolMsg =
  | { type: 'admit'; tx: SignedTx; keyHash: Hex | null }
  | { type: 'collectCandidates' }
  | { type: 'blockCommitted'; height: number; hash: Hex; included: Hex[]; dropped: { id: Hex; reason: string }[] }
  | { type: 'readmit'; txs: SignedTx[] } // transactions of undone blocks: back in the pool if still valid
  | { type: 'expire'; now: number }
  | { type: 'nextNonce'; address: Address; accountNonce: number }
  | { type: 'lookup'; id: Hex }
  | { type: 'list'; limit: number }
  | { type: 'stats' };

/** What each mempool message answers (ActorRef.ask returns exactly this). */
export interface MempoolReplies {
  admit: AdmitVerdict;
  collectCandidates: Candidates;
  blockCommitted: void;
  readmit: void;
  expire: void;
  nextNonce: number;
  lookup: MempoolLookup | undefined;
  list: { size: number; entries: { tx: SignedTx; receivedAt: number }[] };
  stats: MempoolStats;
}

export type ChainMsg =
  | { type: 'slotTick'; now: number } // produce, if this slot is this validator's
  | { type: 'importBlocks'; blocks: Block[]; now: number }; // blocks from a peer, in height order

export type ChainReplies = { slotTick: void; importBlocks: ImportOutcome };

/** What importing a run of blocks did. */
export interface ImportOutcome {
  imported: number;
  known: number;
  head: Head;
  /** The first block's parent is unknown here: fetch earlier blocks. */
  orphan?: boolean;
  /** A branch fork choice does not prefer: ignored. */
  stale?: boolean;
  /** Branches switched to (each undid the blocks above its fork point). */
  reorganized?: number;
  /** The reason a block was refused (the blocks before it stay imported). */
  rejected?: string;
}

/** Sentinel messages answer nothing. */
export type SentinelReplies = { head: void; header: void; tick: void };

/** The security sentinel's mailbox (actors/sentinel/): observation only, never consensus. */
export type SentinelMsg =
  | { type: 'head'; head: Head } // a new head was published (ChainView.onHead)
  | { type: 'header'; header: SignedBlockHeader } // a signed header seen elsewhere (gossip)
  | { type: 'tick' }; // periodic checks: stalls, mempool pressure

/** Mempool pressure for the sentinel: resident size, cap, and admissions counted since the actor started. */
export interface MempoolStats {
  size: number;
  cap: number;
  admitted: number;
}

/** Pending transactions per sender (nonce order) and the pool version they were taken at. */
export interface Candidates {
  version: number;
  queues: SignedTx[][];
}

export interface AdmitVerdict {
  accepted: boolean;
  id: Hex;
  reason?: string;
}

/** What the mempool knows about a transaction it holds or recently let go. */
export interface MempoolLookup {
  tx: SignedTx;
  receivedAt: number;
  lifecycle: TxLifecycleSnapshot;
}

/**
 * Where the chain actor publishes what it committed: the read model (api/chainView.ts
 * implements it). The actor reads back the head, the validators and the newest summaries
 * (producers for finality) from it when it starts.
 */
export interface HeadSink {
  readonly head: Readonly<Head>;
  readonly validators: readonly Address[];
  /** The newest block summaries, newest last. */
  readonly recent: readonly Readonly<BlockSummary>[];
  publish(head: Head, summary?: BlockSummary, validators?: readonly Address[]): void;
  /** The chain was taken back to `head` (a reorganization undid the blocks above it). */
  rewind(head: Head): void;
}
