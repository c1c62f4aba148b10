import type { JsonText } from './headMemo';
import type { BlockSummary, Head } from '../protocol/chain';
import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { MaybePromise } from '../primitives/maybe';
import type { ContractMetadata } from '../contracts/verify';
import type { HeightStart } from './cursors';
import type {
  AccountProofView,
  AccountView,
  AddressTxsPage,
  AnalysisView,
  BlockLifecycleView,
  BlockSummaryView,
  BlockView,
  ChainPage,
  CollectionDetail,
  CollectionList,
  InternalTransferView,
  ItemView,
  LogView,
  MempoolView,
  NameEntryView,
  NameList,
  SearchHit,
  SnapshotsView,
  StatsView,
  StatusView,
  TokenHolders,
  TokenList,
  TokenTransfers,
  TokenView,
  TxRecord,
  TxSummary,
  GovernanceView,
  ProposalsPage,
  ProposalView,
  TreasuryView,
  ValidatorsView,
  ProposalStatus,
  OraclesView,
  TaskMode,
  TasksPage,
  TaskStatus,
  TaskView,
  BridgeTransferView,
  BridgeTransfersPage,
  BridgeView,
  Direction,
  TransferStatus,
} from '../views';

/**
 * The ports of the query side: what http/ and rpc/ may know of the node below them, as types
 * only. They import these from here, never from actors/, storage/, mempool/ or chain/ (the few
 * functions they call, such as the feeds' cursors, they import from their api/ module).
 */

/** The published read model: replaced as a whole after each commit, never mutated in place for readers. */
export interface ReadModel {
  readonly head: Readonly<Head>;
  readonly validators: readonly Address[];
  /** The newest block summaries, newest last. */
  readonly recent: readonly Readonly<BlockSummary>[];
  /** The lowest height whose history (body, feeds, logs) the store keeps: 0 for an archive. */
  readonly historyFrom: number;
  /** The lowest height whose state (reads at a height, proofs) the store keeps: 0 for an archive. */
  readonly stateFrom: number;
  onHead(listener: (head: Readonly<Head>) => void): () => void;
}

/** A token or collection named by its id or by its symbol (upper-case in state). */
import type { AssetRef } from '../views/routes/define';
export type { AssetRef };

/**
 * Token, NFT and name reads. `before`: on holders and items, a decoded cursor position of the
 * same feed (see api/cursors.ts); on the feeds ordered by height, a HeightStart (a height, or
 * the position of a cursor they issued before).
 */
export interface AssetQueries {
  tokens(limit: number, before?: HeightStart): Promise<TokenList>;
  token(ref: AssetRef): Promise<TokenView | undefined>;
  tokenId(ref: AssetRef): Promise<Hex | undefined>;
  holders(token: Hex, limit: number, before?: Uint8Array): Promise<Omit<TokenHolders, 'token'>>;
  transfers(token: Hex, limit: number, before?: HeightStart): Promise<Omit<TokenTransfers, 'token'>>;
  collections(limit: number, before?: HeightStart): Promise<CollectionList>;
  collection(ref: AssetRef, limit: number, before?: Uint8Array): Promise<CollectionDetail | undefined>;
  item(ref: AssetRef, item: number): Promise<ItemView | undefined>;
  names(limit: number, before?: HeightStart): Promise<NameList>;
  name(name: string): Promise<NameEntryView | undefined>;
}

/** Validators, governance and treasury reads (api/governanceReader.ts). */
export interface GovernanceQueries {
  validators(): Promise<ValidatorsView>;
  governance(): Promise<GovernanceView>;
  proposal(id: string, forAddress?: Address): Promise<ProposalView | undefined>;
  proposals(q: { status?: ProposalStatus; since?: number; limit?: number }): Promise<ProposalsPage>;
  treasury(): Promise<TreasuryView>;
}

/** AI tasks and oracles (api/aiReader.ts). */
export interface AiQueries {
  task(id: string, forAddress?: Address): Promise<TaskView | undefined>;
  tasks(q: {
    status?: TaskStatus;
    mode?: TaskMode;
    oracle?: Address;
    since?: number;
    final?: boolean;
    limit?: number;
  }): Promise<TasksPage>;
  oracles(): Promise<OraclesView>;
}

/** The bridge: committee, pools and transfers (api/bridgeReader.ts). */
export interface BridgeQueries {
  transfer(id: string, forAddress?: Address): Promise<BridgeTransferView | undefined>;
  transfers(q: {
    direction?: Direction;
    status?: TransferStatus;
    since?: number;
    final?: boolean;
    limit?: number;
  }): Promise<BridgeTransfersPage>;
  bridge(): Promise<BridgeView>;
}

/** State snapshots for joining nodes (api/snapshotReader.ts). */
export interface SnapshotQueries {
  snapshots(): Promise<SnapshotsView>;
  /** Each node's RLP (hex) by hash (0x + 64 lower-case hex digits), or null where this node holds none. */
  stateNodes(hashes: readonly Hex[]): Promise<(Hex | null)[]>;
}

/** Everything the HTTP routes read; implemented by api/chainReader.ts. */
/** A JSON /chain page as sent, and how many blocks it holds (what it weighs against the client's rate limit). */
export interface ChainText {
  text: string;
  blocks: number;
}

/** A binary /chain page as sent, and how many blocks it holds. */
export interface ChainBytes {
  bytes: Buffer;
  blocks: number;
}

export interface ChainQueries {
  readonly head: Readonly<Head>;
  readonly assets: AssetQueries;
  readonly governance: GovernanceQueries;
  readonly ai: AiQueries;
  readonly bridge: BridgeQueries;
  /** What nodes joining by state sync fetch (api/snapshotReader.ts). */
  readonly snapshots: SnapshotQueries;
  status(): Promise<StatusView>;
  /**
   * When this node keeps a bounded history: "this node keeps history from height H" — for a
   * height below H (or, with no height, for anything not found that may be older).
   */
  historyNote(height?: number): string | undefined;
  /** For a state read at a height below the state this node keeps: "this node keeps state from height S". */
  stateNote(height: number): string | undefined;
  account(addr: Address): Promise<AccountView | undefined>;
  /** The same account serialized (GET /address/:end): built once per head, the next nonce spliced in. */
  accountJson(addr: Address): MaybePromise<JsonText | undefined>;
  code(addr: Address, root?: Hex): Promise<Hex>;
  contractMetadata(addr: Address): Promise<ContractMetadata | undefined>;
  resolveRef(ref: string): Promise<number | undefined>;
  blockView(height: number): Promise<BlockView | undefined>;
  /** A block's lifecycle at this node, also for one the chain does not hold (rejected, undone, orphaned). */
  blockLifecycle(hash: Hex): Promise<BlockLifecycleView | undefined>;
  blocks(from: number, limit: number): Promise<BlockSummaryView[]>;
  chain(from: number, limit: number): Promise<ChainPage>;
  /**
   * The same page as JSON text, built from the stored block lines without parsing them (sync serves pages of up to 16
   * MiB).
   */
  /** `capped`: why `limit` is less than the client asked for (above MAX_CHAIN_PAGE), for the page to say so. */
  chainJson(from: number, limit: number, capped?: string): Promise<ChainText>;
  /** The same page in binary (chain/chainPage.ts), for a peer whose request accepts CHAIN_PAGE_MEDIA. */
  chainBinary(from: number, limit: number): Promise<ChainBytes>;
  tx(id: Hex): Promise<TxRecord | undefined>;
  mempool(limit: number): Promise<MempoolView>;
  addressTxs(addr: Address, limit: number, before?: number): Promise<AddressTxsPage>;
  recentTxs(limit: number): Promise<TxSummary[]>;
  analysis(addr: Address): Promise<AnalysisView>;
  internal(addr: Address | undefined, from: number, limit: number): Promise<InternalTransferView[]>;
  recentLogs(limit: number): Promise<LogView[]>;
  proof(addr: Address, height?: number): Promise<AccountProofView | undefined>;
  search(q: string, limit?: number): Promise<SearchHit[]>;
  stats(now: number): Promise<StatsView>;
}

export type { AlertKind, AlertSource, SecurityAlert } from '../actors/sentinel/alerts';
export type { PeerInfo } from '../protocol/peers';
export type { BlockIntake } from '../network/blockIntake';
export type { Admission, SubmitOutcome } from './admission';
export type * from './rpcPort';
export type { Feed, HeightStart } from './cursors';
export type { MachineDefinition } from './machines';
export type { DevControls, DevSnapshot } from './devControls';
