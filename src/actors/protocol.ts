import type { SubmitVerdictView } from '../views';
import type { BuildResult } from '../chain/buildBlock';
import type { Address, Block, SignedBlockHeader, SignedTx } from '../protocol/types';
import type { TxLifecycleSnapshot } from '../machines/txLifecycle';
import type { BlockLifecycleEvent, BlockLifecycleView } from '../machines/blockLifecycle';
import type { MachineAction } from '../machines/actions';
import type { NodeModeEvent, NodeModes } from '../machines/nodeModes';
import type { ActorRef } from './actorRef';
import type { KvBatch } from '../state/kv';
import type { StateTrie } from '../state/stateTrie';
import type { Hex } from '../primitives/hex';
import type { BlockSummary, Head } from '../protocol/chain';
import type { NextVote, SignedVote } from '../consensus/checkpoints';

/** Every message between node actors, as discriminated unions (commands imperative, events past tense). */
export type MempoolMsg =
  | { type: 'admit'; tx: SignedTx; keyHash: Hex | null }
  | { type: 'collectCandidates' }
  | {
      type: 'blockCommitted';
      height: number;
      hash: Hex;
      included: Hex[];
      dropped: BuildResult['dropped'];
      nonces?: [Address, number][];
    }
  | { type: 'readmit'; txs: SignedTx[] } // transactions of undone blocks, in chain order: back in the pool if still valid
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

/** The consensus actor's mailbox (actors/consensus/consensusActor.ts): the slot clock and blocks from peers. */
export type ConsensusMsg =
  | { type: 'slotTick'; now: number } // produce, if this slot is this validator's
  | { type: 'importBlocks'; blocks: Block[]; now: number } // blocks from a peer, in height order
  | { type: 'devMine'; count: number } // --dev: produce `count` blocks now, one slot apart
  | { type: 'devRewind'; height: number }; // --dev: undo blocks down to `height`, below finality too

export type ConsensusReplies = {
  slotTick: void;
  importBlocks: ImportOutcome;
  devMine: { from: number; to: number } | { refused: string };
  devRewind: Head;
};

/**
 * The producer actor (actors/consensus/producerActor.ts): consensus asks for a block in its slot, then confirms it
 * committed.
 */
export type ProducerMsg =
  // vote: the finality vote the block will cast (consensus/checkpoints.ts), checked against the guard before building
  | { type: 'build'; parent: Head; now: number; pending: SignedTx[][]; vote: NextVote }
  // committed: record it for double-sign protection (no vote: the block abstained)
  | { type: 'signed'; height: number; slot: number; vote?: SignedVote }
  // a --dev revert took the chain back to `height`: sign after it again
  | { type: 'devForget'; height: number; slot: number };

/** A signed block, executed but not written; null: not signing (double-sign protection). */
export type ProducerReplies = {
  build: (ExecutedBlock & { slot: number; considered: number }) | null;
  signed: void;
  devForget: void;
};

/** The importer actor (actors/consensus/importer.ts): check and execute a block on `parent` without writing. */
export type ImporterMsg = { type: 'execute'; block: Block; parent: Head; now: number; preverified?: WeakSet<object> };

export type ImporterReplies = { execute: ImportVerdict };

/** The importer's verdict: executed, or rejected with the reason (it reports either to the block lifecycle actor). */
export type ImportVerdict = { executed: ExecutedBlock } | { refused: string };

/**
 * The transaction lifecycle actor (actors/txLifecycleActor.ts): the mempool reports
 * admissions and drops, the consensus actor inclusions, undos and finality; `/tx/:id` reads.
 */
export type TxLifecycleMsg =
  | { type: 'admitted'; ids: Hex[] }
  | { type: 'dropped'; drops: { id: Hex; reason: string; code?: string }[] }
  | { type: 'included'; height: number; hash: Hex; ids: Hex[] }
  | { type: 'undone'; ids: Hex[] }
  | { type: 'finalized'; height: number }
  | { type: 'get'; id: Hex }
  | { type: 'stats' };

export type TxLifecycleReplies = {
  admitted: void;
  dropped: void;
  included: void;
  undone: void;
  finalized: void;
  get: TxLifecycleSnapshot | undefined;
  stats: LifecycleStats;
};

/**
 * The block lifecycle actor (actors/blockLifecycleActor.ts): the importer, the producer and
 * the consensus actor report each block's steps; `/blocks/:ref` reads.
 */
export type BlockLifecycleMsg =
  | { type: 'step'; hash: Hex; height: number; event: BlockLifecycleEvent }
  | { type: 'finalized'; height: number }
  | { type: 'get'; hash: Hex }
  | { type: 'stats' };

export type BlockLifecycleReplies = {
  step: void;
  finalized: void;
  get: BlockLifecycleView | undefined;
  stats: LifecycleStats;
};

/** A lifecycle actor's table: open instances by state, and how many finished ones it still holds. */
export interface LifecycleStats {
  machine: string;
  open: Record<string, number>;
  finished: number;
}

/** Where the consensus actors report lifecycle steps (absent in tests and tools that run no lifecycle actors). */
export interface LifecycleReports {
  txs: Pick<ActorRef<TxLifecycleMsg, TxLifecycleReplies>, 'send'>;
  blocks: Pick<ActorRef<BlockLifecycleMsg, BlockLifecycleReplies>, 'send'>;
}

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
  /**
   * The refusal holds only here: the branch forks below this node's finalized height (a peer that has not finalized
   * as far is not lying). Gossip ignores such a block rather than scoring its sender down.
   */
  belowFinal?: boolean;
  /**
   * A block ahead of this node's clock by more than half a slot: it and those after it are not taken yet (the blocks
   * before it are). Not the sender's fault: this node's clock may be the one that is off.
   */
  early?: string;
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

/** The mempool's verdict on a transaction: what POST /tx answers. */
export type AdmitVerdict = SubmitVerdictView;

/** What the mempool knows about a transaction it holds or recently let go. */
export interface MempoolLookup {
  tx: SignedTx;
  receivedAt: number;
  /** In the pool now (else recently dropped: the transaction lifecycle actor has the reason). */
  pending: boolean;
}

/**
 * Where the consensus actor publishes what it committed: the read model (api/chainView.ts
 * implements it). The actor reads back the head, the validators and the newest summaries
 * (producers for finality) from it when it starts.
 */
export interface HeadSink {
  readonly head: Readonly<Head>;
  readonly validators: readonly Address[];
  /** The newest block summaries, newest last. */
  readonly recent: readonly Readonly<BlockSummary>[];
  publish(head: Head, summary?: BlockSummary, validators?: readonly Address[]): void;
  /**
   * The chain was taken back to `head` (a reorganization undid the blocks above it); `validators`: the set in force
   * there.
   */
  rewind(head: Head, validators?: readonly Address[]): void;
  /** History below `historyFrom`, or state below `stateFrom`, was pruned (--history N). */
  pruned(p: { historyFrom?: number; stateFrom?: number }): void;
}

/** A block ready to commit: executed on `state`, whose nodes are already in `batch`. */
export interface ExecutedBlock {
  block: Block;
  state: StateTrie;
  batch: KvBatch;
  /** Transactions the mempool should drop for good, with the reason (our own blocks). */
  dropped: BuildResult['dropped'];
  /** Timings so far (ms since `started`), for the commit log line. */
  started: number;
  phases: Record<string, number>;
}

/** The node's modes actor (actors/modesActor.ts): each mode event answers the modes it led to; `modes` only reads. */
export type ModesMsg = NodeModeEvent | { type: 'modes' };
export type ModesReplies = { [K in ModesMsg['type']]: NodeModes };

/**
 * The p2p actor (network/p2pActor.ts): the timer's tick, a block of ours to gossip, an admitted transaction to relay.
 */
export type P2pMsg =
  | { type: 'tick'; now: number }
  | { type: 'gossipBlock'; block: Block }
  | { type: 'relayTx'; tx: SignedTx };

/**
 * A machine's view actor (actors/machineViewActor.ts): consensus hands it each committed and undone block; readers ask.
 */
export type MachineViewMsg =
  | { type: 'committed'; block: Block }
  | { type: 'undone'; blocks: Block[]; head: Head }
  | { type: 'due'; limit: number }
  | { type: 'actions'; id: string; who: Address }
  | { type: 'stats' };

/** What `who` may send to an instance from the next block on, computed at the view's height `at`. */
export interface ActionsAnswer {
  actions: readonly MachineAction[];
  at: number;
}

/**
 * An open instance of an on-chain machine: where it is, and the height it moves at by itself (null: only a transaction
 * moves it).
 */
export interface OpenInstance {
  id: string;
  status: string;
  /** Its next deadline (the end-of-block tick of this height), or null. */
  at: number | null;
}

/** An open instance that moves by itself: its deadline is set. */
export type DueInstance = OpenInstance & { at: number };

/** What /machines/:name/due and /metrics read. */
export interface MachineViewStats {
  machine: string;
  /** Instances not in a final state, by status. */
  open: Record<string, number>;
  /** Transitions in the blocks committed since the node started, less those of blocks undone since. */
  transitions: number;
  /** The head height the view is at. */
  height: number;
}

export type MachineViewReplies = {
  committed: void;
  undone: void;
  due: { height: number; due: DueInstance[] };
  actions: ActionsAnswer;
  stats: MachineViewStats;
};
