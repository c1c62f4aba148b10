import type { Logger } from 'pino';
import type { Address, SignedBlockHeader, SigningKeys } from '../../protocol/types';
import type { BlockSummary, ChainStore, Head } from '../../storage/chainStore';
import type { AlertKind, SecurityAlert } from './alerts';
import type { MempoolStats } from '../protocol';
import type { SentinelOptions } from './options';

/**
 * One condition the sentinel watches for. The sentinel (`sentinelBehavior`) follows the
 * chain and feeds every detector the same observations, in the order of `detectors.ts`;
 * a detector keeps its own state and raises through its context. All hooks are optional.
 */
export interface Detector {
  /** The followed chain forked below blocks already looked at: everything above `fork` is undone. */
  reorg?(r: Reorg): void;
  /** A block committed on the followed chain, in height order. */
  committed?(sum: BlockSummary): Promise<void> | void;
  /** A new head, after the blocks it brought were fed to `committed`. */
  head?(h: Head, prev: Head): void;
  /** The same head published again (only its finalized height may have moved); nothing was read. */
  headRepeated?(h: Head): void;
  /** A signed header seen outside this node's own production (gossip). */
  header?(h: SignedBlockHeader): Promise<void>;
  /** The periodic check. */
  tick?(now: number): void;
  /** Mempool statistics, read at each tick when the sentinel has a mempool. */
  mempool?(s: MempoolStats, now: number): void;
}

export interface Reorg {
  prev: Head;
  head: Head;
  /** The common ancestor: the newest height whose block is on both chains. */
  fork: number;
}

/** What a detector may read and do. */
export interface DetectorContext {
  readonly options: SentinelOptions;
  /** The head being followed; alerts carry its height. */
  readonly head: Head;
  /** The active validators at the published head. */
  readonly validators: readonly Address[];
  /** Producers of the newest committed blocks looked at, oldest first, at most `options.window`. */
  readonly producers: readonly Address[];
  readonly store: Pick<ChainStore, 'block' | 'summary'>;
  /** A producer's bound block-signing keys at the head. */
  signingKeys(producer: Address): Promise<SigningKeys | undefined>;
  readonly log: Logger;
  now(): number;
  raise(kind: AlertKind, severity: SecurityAlert['severity'], message: string, details: Record<string, unknown>): void;
}
