import type { Logger } from 'pino';
import { ActorRef } from '../actors/actorRef';
import { consensusActors } from '../actors/consensus/consensusActors';
import { preverifyTxs } from '../actors/consensus/importer';
import { BlockWorkGate } from '../actors/consensus/blockWork';
import { BlockSizer, BUILD_SHARE } from '../actors/consensus/blockSizer';
import { countMissedSlots, startConsensusClock } from '../actors/consensus/slotClock';
import { lifecycleActors } from '../actors/lifecycleActors';
import { machineViewActors } from '../actors/machineViewActor';
import { mempoolBehavior, startExpiry } from '../actors/mempoolActor';
import { modesActor } from '../actors/modesActor';
import type {
  ConsensusMsg,
  ConsensusReplies,
  ImporterMsg,
  ImporterReplies,
  MempoolLookup,
  MempoolMsg,
  MempoolReplies,
  ProducerMsg,
  ProducerReplies,
} from '../actors/protocol';
import { Sentinel } from '../actors/sentinel';
import type { AlertSource } from '../actors/sentinel/alerts';
import { Supervisor, type ChildSpec } from '../actors/supervisor';
import { createAdmission } from '../api/admission';
import { BlockCache } from '../api/blockCache';
import { ChainReader } from '../api/chainReader';
import type { ChainView } from '../api/chainView';
import { DevControls } from '../api/devControls';
import { HeadAccounts } from '../api/headAccounts';
import { NodeRpcBackend } from '../api/rpcBackend';
import { historyOf, type NodeConfig } from '../config/config';
import { SolcCompiler } from '../contracts/compiler';
import { CairnError } from '../errors/CairnError';
import { createClientGate } from '../web/ingress';
import { createNodeMetrics } from '../http/metrics';
import { createHttpServer, type HttpDeps } from '../http/server';
import { TxPool } from '../mempool/pool';
import { ON_CHAIN } from '../modules/machines';
import { producerKeysOf } from '../modules/staking';
import { startNetwork } from '../network/network';
import type { Hex } from '../primitives/hex';
import { getCommittee } from '../protocol/bridge';
import { MAX_FUTURE_NONCE_GAP, MEMPOOL_LIFETIME_MS } from '../protocol/params';
import { governedRefusal } from '../protocol/permissions';
import type { Address } from '../protocol/types';
import { createRpcServer } from '../rpc/server';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { Closers } from './closers';
import { nodeHttpDeps, type NodeParts } from './httpDeps';
import { createLogger } from './logger';
import { openChain, type OpenChain } from './openChain';
import { escalation, nodeShutdown } from './shutdown';
import { nodeLibp2p, startNodeHost } from './p2p';
import { startLoadGauge } from './loadGauge';

const CLIENT_VERSION = '0.1.0';
/** How often the sentinel runs its periodic checks (stalls, mempool pressure). */
const SENTINEL_TICK_MS = 1_000;

export interface RunningNode {
  config: NodeConfig;
  log: Logger;
  view: ChainView;
  reader: ChainReader;
  supervisor: Supervisor;
  /** `consensus` is the consensus actor (the one writer); `producer` and `importer` work for it. */
  actors: {
    mempool: ActorRef<MempoolMsg, MempoolReplies>;
    consensus: ActorRef<ConsensusMsg, ConsensusReplies>;
    producer: ActorRef<ProducerMsg, ProducerReplies>;
    importer: ActorRef<ImporterMsg, ImporterReplies>;
  };
  /** Security sentinel alerts (GET /security/alerts); `sentinel` also takes headers from gossip. */
  alerts: AlertSource;
  sentinel: Sentinel;
  /** Why the node stopped by itself (e.g. "storage failure: …"); null while running or after a requested stop. */
  failure: string | null;
  /** Resolves when the node has stopped (by stop() or by an escalated failure). */
  stopped: Promise<void>;
  stop(reason?: string): Promise<void>;
}

/** Test, drill and simulator seams; production passes none. */
export interface StartHooks {
  /** Wraps the store everything reads and writes through (fault injection: a failing write). */
  wrapKv?: (kv: KvStore) => KvStore;
  /** Awaited once the HTTP port is open and before the chain is opened: the 503 window. */
  beforeOpen?: () => Promise<void>;
  /** HTTP protection settings (rate limit, guard) passed to the server as they are. */
  http?: Pick<HttpDeps, 'rateLimit' | 'guard'>;
  /**
   * The clock every part of the node reads (ms since 1970; slot ticks, mempool, admission, sentinel, readiness, p2p);
   * default Date.now.
   */
  now?: () => number;
}

/** uWebSockets reports a busy port or a bad host as a bare string. */
const listenError = (what: string, host: string, port: number, e: unknown) =>
  new CairnError(
    'LISTEN',
    `cannot listen on ${host}:${port} (${what}): the port is in use or the host is not an address of this machine`,
    { host, port, cause: String(e) },
    { cause: e },
  );

/**
 * Starts a node. The HTTP API listens first and answers 503 `{error}` with Retry-After
 * until the chain is open (genesis written or the store reopened), the actors run and
 * the JSON-RPC port listens; then it serves. JSON-RPC opens only once ready (ethers and
 * viem handle a refused connection better than a JSON-RPC error they would surface).
 * A failure while starting closes whatever was opened and rejects with a one-line error.
 */
export async function startNode(config: NodeConfig, hooks: StartHooks = {}): Promise<RunningNode> {
  const log = createLogger(config.logLevel, config.logFormat);
  const now = hooks.now ?? Date.now;
  const closers = new Closers(log);

  // --- 1. The HTTP API listens first and answers 503 until the node is ready (the modes say when).
  const modes = modesActor();
  modes.attachNow();
  const parts: NodeParts = {};
  const compiler = new SolcCompiler();
  closers.push('compiler', () => compiler.close());
  const metrics = createNodeMetrics();
  const load = (parts.load = startLoadGauge({ slotMs: config.slotMs, log: log.child({ module: 'load' }) }));
  closers.push('load gauge', async () => load.stop());
  let http: ReturnType<typeof createHttpServer>;
  try {
    http = createHttpServer(nodeHttpDeps(parts, { config, log, now, modes, metrics, compiler, http: hooks.http }));
  } catch (e) {
    await compiler.close();
    throw new CairnError('CONFIG', `HTTP settings: ${(e as Error).message}`, {}, { cause: e });
  }
  await http.listen(config.host, config.httpPort).catch(async (e) => {
    await compiler.close();
    throw listenError('HTTP API', config.host, config.httpPort, e);
  });
  let httpOpen = true;
  const closeHttp = async () => {
    if (!httpOpen) return;
    httpOpen = false;
    await http.close();
  };
  closers.push('http', closeHttp);

  // --- 2. The chain: open (or create) the store, genesis, the read model, the worker pools.
  let chain: OpenChain;
  try {
    await hooks.beforeOpen?.();
    chain = await openChain(config, log, closers, { wrapKv: hooks.wrapKv, now });
  } catch (e) {
    await closers.closeAll();
    throw e;
  }
  const { kv, store, view, keys, network: chainNetwork } = chain;
  parts.store = store;

  // --- 3. Actors under one supervisor, started in order and stopped in reverse; the consensus actor is critical.
  const halts: (() => void)[] = [];
  let closeRpc = async () => {};
  const supervisor = new Supervisor(
    log,
    escalation({
      log,
      height: () => view.head.height,
      sentinel: () => parts.sentinel,
      stop: (reason, failed) => shutdown.stop(reason, failed),
    }),
  );
  const shutdown = nodeShutdown({
    log,
    modes,
    halts,
    supervisor,
    closers,
    height: () => view.head.height,
    servers: [closeHttp, () => closeRpc()],
  });
  parts.supervisor = supervisor;
  const headAccounts = new HeadAccounts(kv, view);
  const readAccount = (addr: Address) => headAccounts.read(addr);
  const pool = new TxPool({
    cap: config.mempoolCap,
    lifetimeMs: MEMPOOL_LIFETIME_MS,
    maxNonceGap: MAX_FUTURE_NONCE_GAP,
    perSender: config.mempoolSenderPending,
    gappedPerSender: config.mempoolSenderGapped,
    gappedLifetimeMs: config.mempoolGappedLifetimeMs,
  });
  const recentOutcomes = new Map<Hex, MempoolLookup>();
  // The transaction and block lifecycles (node-local machines), each hosted by its actor.
  const lifecycles = (parts.lifecycles = lifecycleActors({
    store,
    finalizedHeight: () => view.head.finalizedHeight,
    log,
  }));
  const mempool = (parts.mempool = new ActorRef<MempoolMsg, MempoolReplies>('mempool'));
  const consensus = new ActorRef<ConsensusMsg, ConsensusReplies>('consensus', 16);
  if (config.dev) parts.dev = new DevControls({ consensus, store, head: () => view.head, now });
  // Committed blocks decoded once, shared by the API and the sentinel; the committer hands each new block in as is.
  const blocks = new BlockCache(store);
  const sentinel = (parts.sentinel = new Sentinel({
    view,
    store: { block: (h) => blocks.get(h), summary: (h) => store.summary(h) },
    mempool,
    now,
    log: log.child({ actor: 'sentinel' }),
    signingKeys: async (producer) => producerKeysOf(await StateTrie.open(kv, view.head.stateRoot), producer),
    // A block comes at least every idle pace (plus one slot of tick granularity).
    options: { expectedBlockMs: config.idleBlockMs + config.slotMs },
  }));
  // The producer and importer are permanent (restarted after a crash: they hold nothing); consensus is critical.
  const blockWork = new BlockWorkGate();
  const chainParts = consensusActors({
    kv,
    store,
    view,
    mempool,
    keys,
    network: chainNetwork,
    blockWork,
    idleBlockMs: config.idleBlockMs,
    slotMs: config.slotMs,
    verifier: chain.verifier,
    guard: chain.signingGuard,
    dev: config.dev,
    history: historyOf(config),
    snapshotInterval: config.snapshotInterval,
    sizer: new BlockSizer(config.slotMs * BUILD_SHARE),
    now,
    log: log.child({ actor: 'consensus' }),
    lifecycles,
    modes,
    onBlockProduced: (s) => metrics.blockProductionSeconds.observe(s),
    onProduced: (b) => parts.network?.produced(b),
    onHeaderSeen: (h) => sentinel.observeHeader(h),
    onCommitted: (b, s) => {
      load.observeCommit(now() - b.header.timestamp);
      blocks.remember(b, s.size);
      for (const v of parts.views ?? []) v.ref.send({ type: 'committed', block: b });
    },
    onUndone: (undone, h) => {
      for (const v of parts.views ?? []) v.ref.send({ type: 'undone', blocks: undone, head: h });
    },
  });

  try {
    await supervisor.startChild(modes.spec); // first: stopped last, so the node's modes stay readable to the end
    // before those that report to them
    for (const spec of lifecycles.specs) await supervisor.startChild(spec as ChildSpec<{ type: string }>);
    await supervisor.startChild({
      ref: mempool,
      start: async () =>
        mempoolBehavior({
          pool,
          recent: recentOutcomes,
          readAccount,
          inChain: async (id) => (await store.txLocation(id)) !== undefined,
          now,
          log: log.child({ actor: 'mempool' }),
          lifecycles,
        }),
    });
    // The on-chain machines' node-side views (one actor each), before consensus sends them blocks.
    const views = (parts.views = machineViewActors(ON_CHAIN, {
      kv,
      store,
      head: () => view.head,
      log: log.child({ actor: 'machine-view' }),
    }));
    for (const v of views) await supervisor.startChild(v.spec);
    for (const child of chainParts.children) await supervisor.startChild(child as ChildSpec<{ type: string }>);
    // Consensus and persistence: a crash halts the node rather than papering over a broken invariant.
    await supervisor.startChild({ ref: consensus, critical: true, start: async () => chainParts.consensus() });
    // The peer-to-peer host: closed after the actors stop (closers run after the supervisor), so no late message
    // reaches a stopped actor unanswered.
    const host = await startNodeHost(config, chainNetwork, log);
    closers.push('libp2p', () => host.stop());
    const network = (parts.network = await startNetwork({
      peers: config.peers,
      libp2p: nodeLibp2p({
        host,
        network: chainNetwork,
        view,
        admission: () => parts.admission,
        reader: () => parts.reader,
        store,
        pending: (id) => pool.get(id)?.tx,
        peersOnly: config.peersOnly,
      }),
      consensus,
      view,
      genesisHash: chainNetwork.genesisHash,
      chainId: chainNetwork.chainId,
      supervisor,
      log: log.child({ actor: 'p2p' }),
      modes: modes.ref,
      slotMs: config.slotMs,
      idleBlockMs: config.idleBlockMs,
      now,
      preverify: (blocks) => void preverifyTxs(chain.verifier, blocks, chainNetwork, false),
    }));
    // Permanent: restarted after a crash; it only observes, so it can never halt production.
    await supervisor.startChild(sentinel.childSpec());
    halts.push(sentinel.connect(SENTINEL_TICK_MS));

    // --- 4. The query side and admission behind the API ports, and the JSON-RPC port.
    const reader = (parts.reader = new ChainReader({
      kv,
      store,
      view,
      mempool,
      pending: pool,
      slotMs: config.slotMs,
      now,
      blocks,
      lifecycles,
      snapshotInterval: config.snapshotInterval,
      // `?for=` is answered by the machine's view actor.
      actions: async (machine, id, who) => {
        const v = views.find((x) => x.def.name === machine);
        return v ? v.ref.ask({ type: 'actions', id, who }) : { actions: [], at: view.head.height };
      },
    }));
    const admission = (parts.admission = createAdmission({
      network: chainNetwork,
      verifier: chain.verifier,
      turn: () => blockWork.turn(),
      store,
      readAccount,
      mempool,
      now,
      onAccepted: (tx) => network.relay(tx),
      full: (id) => pool.fullOfReady && !pool.has(id),
      shed: () => load.shedNow(pool.size),
      onVerified: (s) => metrics.verifySeconds.observe(s),
      committee: async () => getCommittee(await StateTrie.open(kv, view.head.stateRoot)),
      // Only a permissioned account (the cached head account says) costs a state read.
      governed: async (signer, tx) =>
        (await readAccount(signer))?.permissioned
          ? governedRefusal(await StateTrie.open(kv, view.head.stateRoot), signer, tx)
          : undefined,
    }));
    const rpcBackend = new NodeRpcBackend({
      chainId: chainNetwork.chainId,
      reader,
      store,
      mempool,
      admission,
      clientVersion: `cairn/${CLIENT_VERSION}/node-${process.version}`,
      producer: keys.address,
      now,
      vm: chain.vmCalls,
    });
    // The JSON-RPC port under the HTTP API's own rate limit and guard (same settings, exemptions and counters).
    const rpc = createRpcServer(rpcBackend, {
      log: log.child({ module: 'rpc' }),
      corsOrigins: config.corsOrigins,
      gate: createClientGate({ ...http.protection, now }),
    });
    await rpc
      .listen(config.host, config.rpcPort)
      .catch((e) => Promise.reject(listenError('JSON-RPC', config.host, config.rpcPort, e)));
    closeRpc = () => rpc.close();

    // --- 5. The clocks: slots (and the missed-slot counts), mempool expiry, peer polls.
    parts.slots = countMissedSlots(view, config.slotMs, keys.address);
    halts.push(
      startConsensusClock(consensus, config.slotMs, shutdown.stopping, log, now).stop,
      startExpiry(mempool, config.mempoolGappedLifetimeMs, now),
      network.poll(),
      () => network.stop(),
    );
    parts.p2p = { peerId: host.peerId, addresses: () => host.addresses() };
  } catch (e) {
    await shutdown.stop(`start failed: ${(e as Error).message}`);
    throw e;
  }
  await modes.ref.ask({ type: 'READY' });

  log.info(
    {
      http: `http://${config.host}:${config.httpPort}`,
      rpc: `http://${config.host}:${config.rpcPort}`,
      dataDir: config.dataDir,
      height: chain.head.height,
      validator: keys.address,
      mempoolCap: config.mempoolCap,
      slotMs: config.slotMs,
      peers: config.peers,
      p2p: parts.p2p.addresses(),
    },
    'node started',
  );

  return {
    config,
    log,
    view,
    reader: parts.reader,
    supervisor,
    actors: { mempool, consensus, producer: chainParts.producer, importer: chainParts.importer },
    alerts: sentinel,
    sentinel,
    stopped: shutdown.stopped,
    get failure() {
      return modes.current().failure;
    },
    stop: (reason) => shutdown.stop(reason),
  };
}
