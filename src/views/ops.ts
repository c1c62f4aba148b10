import type { NodeModes } from '../machines/nodeModes';
import type { MachineGraph } from '../machines/graph';
import type { Head } from '../protocol/chain';
import type { PeerInfo } from '../protocol/peers';
import type { Hex } from '../primitives/hex';
import type { CappedPage } from './paging';

/**
 * JSON shapes of the index, operational, administrative and development routes (GET /,
 * /gateway, /guard, /health/*, /machines, /peers, /security/alerts, /dev/*) and the error
 * body every route shares.
 */

/**
 * Every failure: `{error}` with its HTTP status (http/route.ts); a refused transaction's 400 also carries its refusal
 * `code` (docs/API.md "Refusal codes").
 */
export interface ErrorView {
  error: string;
  code?: string;
}

/** GET / with Accept: application/json: the index of the routes. */
export interface IndexView {
  name: string;
  chainId: number;
  /** Where the block explorer is served (GET / for a browser). */
  explorer: string;
  /** Where this API's OpenAPI document is served. */
  openapi: string;
  endpoints: { path: string; description: string }[];
}

/** GET /openapi.json: an OpenAPI 3.1 document (only its top level is described here). */
export interface OpenApiDocumentView {
  openapi: string;
  info: { title: string; version: string; [k: string]: unknown };
  paths: Record<string, unknown>;
  [k: string]: unknown;
}

/** Latency percentiles (ms) of the most recent `window` requests; null until there is one. */
export interface LatencyView {
  window: number;
  samples: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** The per-client rate limit and its live counters. */
export interface RateLimitView {
  max: number;
  windowMs: number;
  trackedClients: number;
  maxClients: number;
  blockedClients: number;
  limitedTotal: number;
  evictedTotal: number;
  /** Counts of exempt and trusted-proxy address entries (the addresses are not shown). */
  exempt: number;
  trustedProxies: number;
}

/** GET /gateway. */
export interface GatewayView {
  startedAt: number;
  uptimeMs: number;
  inFlight: number;
  requests: { total: number; errors4xx: number; errors5xx: number };
  latencyMs: LatencyView;
  /** Per route pattern (`GET /address/:end`; `(unmatched)` for no route), most requested first. */
  routes: {
    route: string;
    requests: number;
    errors4xx: number;
    errors5xx: number;
    /** Requests per HTTP status (the status as the key). */
    status: Record<string, number>;
    latencyMs: LatencyView;
  }[];
  peers: {
    url: string;
    height: number;
    head: Hex | null;
    lag: number;
    latencyMs: number | null;
    score: number;
    lastSeen: number;
  }[];
  rateLimit: RateLimitView;
  guard: { activeBlocks: number };
}

/** What the guard scores (web/guard.ts OFFENCES). */
export type GuardOffence = 'rate_limited' | 'invalid_submission' | 'malformed_body' | 'admin_auth_failed';

/** A client the guard blocks. `client` is masked unless the caller sent a valid x-admin-token. */
export interface GuardBlock {
  client: string;
  remainingMs: number;
  retryAfter: number;
  level: number;
  periodMs: number;
  blockedAt: number;
  until: number;
  offences: Record<GuardOffence, number>;
}

/** GET /guard. */
export interface GuardView extends CappedPage {
  enabled: boolean;
  thresholds: {
    score: number;
    halfLifeMs: number;
    weights: Record<GuardOffence, number>;
    blockMs: number[];
    forgetMs: number;
  };
  rateLimit: RateLimitView;
  trackedClients: number;
  maxClients: number;
  evictedTotal: number;
  blocksTotal: number;
  rejectedTotal: number;
  activeBlocks: number;
  blocks: GuardBlock[];
}

/** GET /health/live. */
/** GET /p2p: how peers reach this node on the peer-to-peer network (what `--peers <its URL>` resolves to). */
export interface P2pView {
  /** The node's libp2p peer id (its `p2p-key`). */
  peerId: string;
  /** Its listen addresses, each ending in /p2p/<peerId>. */
  addresses: string[];
}

export interface LiveView {
  live: true;
}

/** GET /health/ready: 200 when ready, 503 with the same shape (and `reason`) when not. */
export interface ReadinessView {
  ready: boolean;
  reason?: string;
  /**
   * The node's modes (machines/nodeModes.ts): node starting/ready/stopping, signing following/producing/halted, sync
   * inSync/syncing.
   */
  modes?: NodeModes;
  height?: number;
  peers?: number;
  reachable?: number;
  behind?: number;
}

/** GET /machines: a machine of the node as data (served by api/machines.ts). */
export interface MachineDefinition extends MachineGraph {
  name: string;
  title: string;
  source: string;
  /**
   * On-chain machines live in consensus state and move on transactions and block heights; node-local ones are each
   * node's own.
   */
  onChain: boolean;
  initial: string;
  final: string[];
  invariants: readonly string[];
  /** On-chain machines: the API's `status` words (top-level states, transient ones left out). */
  statuses?: string[];
  /** On-chain machines: state → the context field holding the height of its deadline (its window's end). */
  deadlines?: Record<string, string>;
}

/**
 * GET /machines/:name/due: the open instances of an on-chain machine that move by themselves next
 * (actors/machineViewActor.ts).
 */
export interface MachineDueView extends CappedPage {
  machine: string;
  /** The head height the view is at. */
  height: number;
  /** Soonest first: each open instance with a deadline, its status and the height whose end-of-block tick moves it. */
  due: { id: string; status: string; at: number }[];
}

export interface MachinesView {
  machines: MachineDefinition[];
}

/** A peer as GET /peers shows it. */
export type PeerView = PeerInfo;

/** GET /peers (admin). */
export interface PeersView {
  peers: PeerView[];
}

/** A security sentinel alert (actors/sentinel/alerts.ts SecurityAlert). */
export interface SecurityAlertView {
  id: number;
  kind:
    | 'reorg'
    | 'finality_stall'
    | 'double_sign'
    | 'producer_concentration'
    | 'mempool_flood'
    | 'large_transfer'
    | 'validator_degradation'
    | 'storage_failure';
  severity: 'info' | 'warning' | 'critical';
  message: string;
  at: number;
  height: number;
  details: Record<string, unknown>;
}

/** GET /security/alerts (admin), newest first. */
export interface AlertsView extends CappedPage {
  alerts: SecurityAlertView[];
}

/** POST /dev/mine body (empty: one block). */
export interface DevMineRequest {
  blocks?: number;
}

/** POST /dev/mine: the heights produced. */
export interface DevMined {
  from: number;
  to: number;
}

/** POST /dev/snapshot: the chain at a height (api/devControls.ts DevSnapshot). */
export interface DevSnapshotView {
  id: number;
  height: number;
  hash: string;
  stateRoot: string;
  takenAt: number;
}

/** GET /dev/snapshots. */
export interface DevSnapshotsView {
  snapshots: DevSnapshotView[];
}

/** POST /dev/revert body. */
export interface DevRevertRequest {
  id: number;
}

/** POST /dev/revert: the snapshot, the head after the revert and the blocks undone. */
export interface DevRevertedView {
  snapshot: DevSnapshotView;
  head: Head;
  undone: number;
}
