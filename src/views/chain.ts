import type { BlockSummary, FinalityBehind } from '../protocol/chain';
import type { Address, Block, SignedBlockHeader } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { TxSummary } from './tx';
import type { BlockLifecycleView } from '../machines/blockLifecycle';

export type { BlockLifecycleView };

/** JSON shapes of the chain endpoints (GET /status, /blocks, /chain, /stats, /search). */

export interface AddressRef {
  address: Address;
  native: string;
}

/** GET /status. */
export interface StatusView {
  chainId: number;
  /** The genesis block's hash: peers of one network share it. */
  genesisHash: Hex;
  height: number;
  finalizedHeight: number;
  /** The height of the head chain's last justified checkpoint: fork choice prefers the chain with the later one. */
  justifiedHeight: number;
  headHash: Hex;
  stateRoot: Hex;
  timestamp: number;
  supply: string;
  minted: string;
  burned: string;
  staked: string;
  treasury: string;
  treasuryAddress: Address;
  validators: AddressRef[];
  blockReward: string;
  treasuryReward: string;
  /**
   * Null while finality keeps up (up to two epochs of the set in force and ⌊2n/3⌋+1 blocks
   * behind the head, n the members that count). Otherwise why it is behind: the members that
   * count and have not produced above the first block that is not final (since which block),
   * and the members still pending.
   */
  finalityBehind: FinalityBehind | null;
  /**
   * The lowest height whose history (block bodies, transactions, feeds, logs) this node keeps:
   * 0 for an archive node; a node with a window (--history N) answers 404 below it.
   */
  historyFrom: number;
  /**
   * The lowest height whose state (balances and proofs at a past height, JSON-RPC reads at a
   * block) this node keeps: 0 for an archive; with --history, the last 128 final blocks' and up.
   */
  stateFrom: number;
}

/** An entry of GET /blocks. */
export type BlockSummaryView = BlockSummary & { producerNative: string; finalized: boolean };

/** GET /blocks/:ref: header fields, size, finality, the lifecycle and the transactions in summary. */
export type BlockView = SignedBlockHeader & {
  producerNative: string;
  size: number;
  finalized: boolean;
  lifecycle: BlockLifecycleView;
  txs: TxSummary[];
};

/** GET /chain: contiguous full blocks (sync format) and where the next page starts. */
/**
 * GET /chain: full blocks as stored (header, txs with keys and signatures, results) with height, hash and size at the
 * top level as /blocks/:ref has them.
 */
export interface ChainPage {
  /** The height the page starts at (as asked). */
  from: number;
  /** The page size served: the limit asked for, at most MAX_CHAIN_PAGE. */
  limit: number;
  /** Present when the limit asked for was above MAX_CHAIN_PAGE: says it was capped. */
  capped?: string;
  blocks: ({ height: number; hash: string } & Block & { size: number })[];
  next: number | null;
}

export interface SearchHit {
  kind: 'address' | 'block' | 'transaction' | 'token' | 'name';
  id: string;
  native?: string;
  height?: number;
  symbol?: string;
  name?: string;
  address?: Address;
}

/** One hour of GET /stats' series. */
export interface HourView {
  time: number;
  blocks: number;
  txs: number;
  volume: string;
}

/** GET /stats. */
export interface StatsView {
  height: number;
  accounts: number;
  transactions: number;
  stake: string;
  supply: string;
  volume24h: string;
  txs24h: number;
  tps: number;
  series: HourView[];
}

/** GET /snapshots: the state snapshots this node serves to nodes joining by state sync. */
export interface SnapshotsView {
  /** The state of every `interval`-th final block is kept (0: this node serves none: --snapshot-interval). */
  interval: number;
  /** The lowest height whose history this node keeps: a snapshot is served while its block is kept. */
  historyFrom: number;
  /**
   * Newest first: each snapshot block's signed header. Its hash is the checkpoint to trust (`cairn node --sync state
   * --checkpoint`); its stateRoot names the state, fetched node by node with POST /snapshots/nodes.
   */
  snapshots: SignedBlockHeader[];
}

/** POST /snapshots/nodes: the state nodes asked for, by their keccak hash. */
export interface StateNodesRequest {
  /** 1 to 512 (MAX_SNAPSHOT_NODES) node hashes, 0x + 64 hex digits. */
  hashes: Hex[];
}

/**
 * POST /snapshots/nodes: each asked node's bytes (RLP, 0x hex) in the order asked, or null where this node holds none.
 * The asker keeps a node only if its keccak is the hash it asked for.
 */
export interface StateNodesView {
  nodes: (Hex | null)[];
}
