import type { Logger } from 'pino';
import type { ActorRef } from '../actors/actorRef';
import type { SlotStats } from '../actors/consensus/slotClock';
import type { LifecycleActors } from '../actors/lifecycleActors';
import type { MachineViewActors } from '../actors/machineViewActor';
import type { ModesActor } from '../actors/modesActor';
import type { MempoolMsg, MempoolReplies } from '../actors/protocol';
import type { Sentinel } from '../actors/sentinel';
import type { Supervisor } from '../actors/supervisor';
import type { Admission } from '../api/admission';
import type { ChainReader } from '../api/chainReader';
import type { DevControls } from '../api/devControls';
import type { NodeConfig } from '../config/config';
import type { SolcCompiler } from '../contracts/compiler';
import { HttpError } from '../web/httpError';
import type { MetricsSource, NodeMetrics } from '../http/metrics';
import { sharedNodesOf } from '../state/trieNodes';
import type { HttpDeps } from '../http/server';
import type { Network } from '../network/network';
import { nodeReadiness } from '../network/readiness';
import type { Address } from '../protocol/types';
import type { ChainStore } from '../storage/chainStore';
import type { LoadGauge } from './loadGauge';

/**
 * The parts of a node the HTTP API reads, filled in as the node starts them. The API listens
 * before any exists: until the modes say ready, the readiness gate answers 503 before a route
 * runs, and a part still missing answers 503 too.
 */
export interface NodeParts {
  reader?: ChainReader;
  admission?: Admission;
  store?: ChainStore;
  network?: Network;
  dev?: DevControls;
  sentinel?: Sentinel;
  views?: MachineViewActors;
  mempool?: ActorRef<MempoolMsg, MempoolReplies>;
  supervisor?: Supervisor;
  lifecycles?: LifecycleActors;
  slots?: Readonly<SlotStats>;
  /** The main thread's load gauge (admission sheds by it). */
  load?: LoadGauge;
  /** This node on the peer-to-peer network, once its host runs. */
  p2p?: { peerId: string; addresses(): string[] };
}

const starting = () => new HttpError(503, 'node is starting: retry shortly');

/** What the HTTP server is given (http/route.ts HttpDeps), read through `p` per request. */
export function nodeHttpDeps(
  p: NodeParts,
  o: {
    config: NodeConfig;
    log: Logger;
    now: () => number;
    modes: ModesActor;
    metrics: NodeMetrics;
    compiler: SolcCompiler;
    http?: Pick<HttpDeps, 'rateLimit' | 'guard'>;
  },
): HttpDeps {
  const { config } = o;
  return {
    get reader(): ChainReader {
      if (!p.reader) throw starting();
      return p.reader;
    },
    get admission(): Admission {
      if (!p.admission) throw starting();
      return p.admission;
    },
    compiler: o.compiler,
    saveContract: (addr, m) => {
      if (!p.store) throw starting();
      return p.store.saveContractMetadata(addr as Address, m);
    },
    log: o.log.child({ module: 'http' }),
    now: o.now,
    ready: () => o.modes.current().node === 'ready',
    adminToken: config.adminToken,
    corsOrigins: config.corsOrigins,
    get dev() {
      return p.dev;
    },
    peers: () => p.network?.peers() ?? [],
    p2p: () => p.p2p,
    syncing: () => p.network?.behind() ?? null,
    readiness: () => nodeReadiness(p.network, o.modes),
    get blocks() {
      return p.network?.blocks;
    },
    alerts: { recent: (limit) => p.sentinel?.recent(limit) ?? [] },
    rateLimit: {
      exempt: config.rateLimitExempt ?? [],
      trustedProxies: config.trustedProxies ?? [],
      ...o.http?.rateLimit,
    },
    guard: o.http?.guard,
    machineViews: {
      due: async (name, limit) => {
        const v = p.views?.find((x) => x.def.name === name);
        return v ? v.ref.ask({ type: 'due', limit }) : undefined;
      },
    },
    metrics: metricsSource(p, o.metrics),
  };
}

/** What /metrics reads of the node (http/metrics.ts MetricsSource): 0 or nothing for a part not started yet. */
function metricsSource(p: NodeParts, node: NodeMetrics): MetricsSource {
  return {
    mempoolSize: async () => (p.mempool ? (await p.mempool.ask({ type: 'stats' })).size : 0),
    peersReachable: () => p.network?.readiness().reachable ?? 0,
    syncBehind: () => p.network?.readiness().behind ?? 0,
    syncBlocksPerSecond: () => p.network?.syncRate() ?? 0,
    missedSlots: () => p.slots?.missed ?? 0,
    ownMissedSlots: () => p.slots?.ownMissed ?? 0,
    node,
    stateCache: () => (p.store ? sharedNodesOf(p.store.kv).cache.size() : undefined),
    actors: () => p.supervisor?.status() ?? [],
    load: () => p.load?.reading(),
    machines: async () => Promise.all((p.views ?? []).map((v) => v.ref.ask({ type: 'stats' }))),
    lifecycles: async () =>
      p.lifecycles
        ? Promise.all([p.lifecycles.txs.ask({ type: 'stats' }), p.lifecycles.blocks.ask({ type: 'stats' })])
        : [],
  };
}
