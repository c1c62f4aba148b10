import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from './logger';
import { getCommittee } from '../protocol/bridge';
import { governedRefusal } from '../protocol/permissions';
import { DevControls } from '../api/devControls';
import { ActorRef } from '../actors/actorRef';
import { createAdmission, type Admission } from '../api/admission';
import type { AlertSource } from '../actors/sentinel/alerts';
import { consensusActors } from '../actors/consensus/consensusActors';
import { BlockCache } from '../api/blockCache';
import { ChainReader } from '../api/chainReader';
import { ChainView, recentSummaries } from '../api/chainView';
import { HeadAccounts } from '../api/headAccounts';
import { mempoolBehavior } from '../actors/mempoolActor';
import type { ConsensusMsg, ConsensusReplies, ImporterMsg, ImporterReplies, MempoolLookup, MempoolMsg, MempoolReplies, ProducerMsg, ProducerReplies } from '../actors/protocol';
import { NodeRpcBackend } from '../api/rpcBackend';
import { Sentinel } from '../actors/sentinel';
import { machineViewActors, type MachineViewActors } from '../actors/machineViewActor';
import { lifecycleActors, type LifecycleActors } from '../actors/lifecycleActors';
import { ON_CHAIN } from '../modules/machines';
import { modesActor } from '../actors/modesActor';
import { Supervisor, type ChildSpec } from '../actors/supervisor';
import { ensureGenesis, validatorKeys } from './genesisSource';
import { getCandidate, getSchedule, producerKeysOf } from '../modules/staking';
import { SigningGuard } from '../storage/signingGuard';
import { startNetwork, type Network } from '../network/network';
import { MAX_FUTURE_NONCE_GAP, MEMPOOL_LIFETIME_MS } from '../protocol/params';
import type { Address } from '../protocol/types';
import type { Network as ChainNetwork } from '../protocol/network';
import type { NodeConfig } from '../config/config';
import { SolcCompiler } from '../contracts/compiler';
import { VerifyPool } from '../crypto/verifyPool';
import { VmCallPool } from '../vm/callPool';
import { BlockWorkGate } from '../actors/consensus/blockWork';
import { createClientGate } from '../http/ingress';
import { CairnError, isCairnError } from '../errors/CairnError';
import { HttpError } from '../http/httpError';
import { createNodeMetrics } from '../http/metrics';
import { createHttpServer, type HttpDeps } from '../http/server';
import { TxPool } from '../mempool/pool';
import { toHex, type Hex } from '../primitives/hex';
import type { HybridKeys } from '../crypto/keys';
import { createRpcServer } from '../rpc/server';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { ChainStore, type Head } from '../storage/chainStore';
import { dirError, openStore } from '../storage/rocks';
import { countMissedSlots, slotTicks, startSlotClock, type SlotStats, type SlotClock } from '../actors/consensus/slotClock';

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

/** Test and drill seams; production passes none. */
export interface StartHooks {
  /** Wraps the store everything reads and writes through (fault injection: a failing write). */
  wrapKv?: (kv: KvStore) => KvStore;
  /** Awaited once the HTTP port is open and before the chain is opened: the 503 window. */
  beforeOpen?: () => Promise<void>;
  /** HTTP protection settings (rate limit, guard) passed to the server as they are. */
  http?: Pick<HttpDeps, 'rateLimit' | 'guard'>;
}

/** uWebSockets reports a busy port or a bad host as a bare string. */
const listenError = (what: string, host: string, port: number, e: unknown) =>
  new CairnError('LISTEN', `cannot listen on ${host}:${port} (${what}): the port is in use or the host is not an address of this machine`, { host, port, cause: String(e) }, { cause: e });

/** A storage failure is an escalation whose cause is a failed write or open of the store. */
const isStorageFailure = (e: unknown): e is CairnError => isCairnError(e) && (e.code === 'STORAGE_WRITE' || e.code === 'STORAGE_OPEN');

/**
 * Starts a node. The HTTP API listens first and answers 503 `{error}` with Retry-After
 * until the chain is open (genesis written or the store reopened), the actors run and
 * the JSON-RPC port listens; then it serves. JSON-RPC opens only once ready (ethers and
 * viem handle a refused connection better than a JSON-RPC error they would surface).
 * A failure while starting closes whatever was opened and rejects with a one-line error.
 */
export async function startNode(config: NodeConfig, hooks: StartHooks = {}): Promise<RunningNode> {
  const log = createLogger(config.logLevel, config.logFormat);
  const closers: { name: string; close: () => Promise<void> }[] = []; // reverse order of opening
  const closeAll = async () => {
    for (const c of closers.splice(0).reverse()) {
      try {
        await c.close();
      } catch (e) {
        log.error({ err: e, what: c.name }, 'close failed during shutdown');
      }
    }
  };

  // --- 1. The HTTP API listens first and answers 503 until the node is ready (the modes say when).
  const modes = modesActor();
  modes.attachNow();
  let reader: ChainReader | undefined;
  let admission: Admission | undefined;
  let network: Network | undefined;
  let devControls: DevControls | undefined;
  let store: ChainStore | undefined;
  let sentinel: Sentinel | undefined;
  let mempoolRef: ActorRef<MempoolMsg, MempoolReplies> | undefined;
  let supervisorRef: Supervisor | undefined;
  let views: MachineViewActors | undefined;
  let lifecycleRefs: LifecycleActors | undefined;
  const starting = () => new HttpError(503, 'node is starting: retry shortly');
  const compiler = new SolcCompiler();
  closers.push({ name: 'compiler', close: () => compiler.close() });
  const nodeMetrics = createNodeMetrics();
  const slotStats: SlotStats = { missed: 0, ownMissed: 0 };
  const httpDeps: HttpDeps = {
    // Routes read these per request; the readiness gate answers 503 before any route runs.
    get reader(): ChainReader {
      if (!reader) throw starting();
      return reader;
    },
    get admission(): Admission {
      if (!admission) throw starting();
      return admission;
    },
    compiler,
    saveContract: (addr, m) => {
      if (!store) throw starting();
      return store.saveContractMetadata(addr as Address, m);
    },
    log: log.child({ module: 'http' }),
    now: Date.now,
    ready: () => modes.current().node === 'ready',
    adminToken: config.adminToken,
    corsOrigins: config.corsOrigins,
    get dev() {
      return devControls;
    },
    peers: () => (network ? [...network.book.values()] : []),
    syncing: () => network?.behind() ?? null,
    readiness: () => ({ ...(network?.readiness() ?? { ready: false, reason: 'starting' }), modes: modes.current() }),
    get blocks() {
      return network?.blocks;
    },
    alerts: { recent: (limit) => sentinel?.recent(limit) ?? [] },
    rateLimit: { exempt: config.rateLimitExempt ?? [], trustedProxies: config.trustedProxies ?? [], ...hooks.http?.rateLimit },
    guard: hooks.http?.guard,
    machineViews: {
      due: async (name, limit) => {
        const v = views?.find((x) => x.def.name === name);
        return v ? v.ref.ask({ type: 'due', limit }) : undefined;
      },
    },
    metrics: {
      mempoolSize: async () => (mempoolRef ? (await mempoolRef.ask({ type: 'stats' })).size : 0),
      peersReachable: () => network?.readiness().reachable ?? 0,
      syncBehind: () => network?.readiness().behind ?? 0,
      syncBlocksPerSecond: () => network?.syncRate() ?? 0,
      missedSlots: () => slotStats.missed,
      ownMissedSlots: () => slotStats.ownMissed,
      node: nodeMetrics,
      actors: () => supervisorRef?.status() ?? [],
      machines: async () => Promise.all((views ?? []).map((v) => v.ref.ask({ type: 'stats' }))),
      lifecycles: async () => (lifecycleRefs ? Promise.all([lifecycleRefs.txs.ask({ type: 'stats' }), lifecycleRefs.blocks.ask({ type: 'stats' })]) : []),
    },
  };
  let http: ReturnType<typeof createHttpServer>;
  try {
    http = createHttpServer(httpDeps);
  } catch (e) {
    await compiler.close();
    throw new CairnError('CONFIG', `HTTP settings: ${(e as Error).message}`, {}, { cause: e });
  }
  let httpOpen = false;
  const closeHttp = async () => {
    if (!httpOpen) return;
    httpOpen = false;
    await http.close();
  };
  try {
    await http.listen(config.host, config.httpPort);
  } catch (e) {
    await compiler.close();
    throw listenError('HTTP API', config.host, config.httpPort, e);
  }
  httpOpen = true;
  closers.push({ name: 'http', close: closeHttp });

  let kv: KvStore;
  let view: ChainView;
  let verifier: VerifyPool;
  let vmCalls: VmCallPool;
  let signingGuard: SigningGuard;
  let head: Head;
  let chainNetwork: ChainNetwork;
  let keys: HybridKeys;
  try {
    await hooks.beforeOpen?.();
    // --- 2. The chain: open (or create) the store, genesis, the read model.
    try {
      await mkdir(config.dataDir, { recursive: true });
    } catch (e) {
      throw await dirError(config.dataDir, e);
    }
    const rocks = await openStore(join(config.dataDir, 'chain'));
    closers.push({ name: 'store', close: () => rocks.close() });
    kv = hooks.wrapKv ? hooks.wrapKv(rocks) : rocks;
    store = new ChainStore(kv, { devUndo: config.dev });
    head = await ensureGenesis(store, config, log);
    chainNetwork = await store.network();
    if (head.height === 0 && head.timestamp > Date.now()) {
      log.warn({ genesisTime: new Date(head.timestamp).toISOString() }, 'the genesis time is in the future: the first block comes after it');
    }
    const headState = await StateTrie.open(kv, head.stateRoot);
    const validators = (await getSchedule(headState)).active;
    view = new ChainView(head, validators, await recentSummaries(store, head, Date.now() - 24 * 3_600_000));
    keys = await validatorKeys(config);
    if (!validators.includes(keys.address)) {
      // A follower (an exchange's or an indexer's node), or a candidate not elected yet: it imports and serves, and produces once its key is in the active set.
      const hint = config.validatorKey === null ? ' (no --validator-key: the development validator\'s key)' : '';
      log.warn({ key: keys.address, validators }, `this node's key is not in the active set${hint}: it follows the chain and produces only if elected`);
    }
    const bound = (await getCandidate(headState, keys.address))?.signingKeys;
    if (bound && (bound.secp256k1 !== toHex(keys.secp256k1.publicKey) || bound.mldsa44 !== toHex(keys.mldsa44.publicKey))) {
      throw new CairnError('CONFIG', `validator ${keys.address} has bound other block-signing keys than this node's key (signingKeys ${bound.secp256k1.slice(0, 12)}…)`);
    }
    signingGuard = await SigningGuard.open(join(config.dataDir, 'signing-guard.json'));
    verifier = await VerifyPool.start({ workers: config.verifyWorkers });
    closers.push({ name: 'verifier', close: () => verifier.close() });
    const calls = VmCallPool.create(kv, { workers: config.vmCallWorkers, timeoutMs: config.vmCallTimeoutMs, maxQueue: config.vmCallQueue });
    vmCalls = calls;
    closers.push({ name: 'vm calls', close: () => calls.close() });
  } catch (e) {
    await closeAll();
    throw e;
  }
  const chainStore = store;

  // --- 3. Actors under one supervisor: mempool, chain (critical), sentinel.
  let stopping: Promise<void> | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const supervisor = new Supervisor(log, (reason, err) => {
    if (isStorageFailure(err)) {
      // Nothing of the failed batch was applied: the store still ends at the last committed block.
      const failure = `storage failure: ${err.message}`;
      log.error({ dir: err.meta.dir, reason: err.meta.reason, height: view.head.height }, `${failure}; stopping the node (the store keeps block ${view.head.height})`);
      sentinel?.raise('storage_failure', 'critical', err.message, { dir: err.meta.dir, reason: err.meta.reason, code: err.meta.code, lastCommitted: view.head.height });
      return void stop(failure, true);
    }
    log.fatal({ err, reason }, 'supervision escalated: stopping the node');
    void stop(reason, true);
  });

  const headAccounts = new HeadAccounts(kv, view);
  const readAccount = (addr: Address) => headAccounts.read(addr);

  const pool = new TxPool({
    cap: config.mempoolCap, lifetimeMs: MEMPOOL_LIFETIME_MS, maxNonceGap: MAX_FUTURE_NONCE_GAP,
    perSender: config.mempoolSenderPending, gappedPerSender: config.mempoolSenderGapped, gappedLifetimeMs: config.mempoolGappedLifetimeMs,
  });
  const recentOutcomes = new Map<Hex, MempoolLookup>();
  // The transaction and block lifecycles (node-local machines), each hosted by its actor.
  const lifecycles = (lifecycleRefs = lifecycleActors({ store: chainStore, finalizedHeight: () => view.head.finalizedHeight, log }));
  const mempool = new ActorRef<MempoolMsg, MempoolReplies>('mempool');
  mempoolRef = mempool;
  supervisorRef = supervisor;
  const consensus = new ActorRef<ConsensusMsg, ConsensusReplies>('consensus', 16);
  if (config.dev) devControls = new DevControls({ consensus, store: chainStore, head: () => view.head });
  // Committed blocks decoded once, shared by the API and the sentinel; the committer hands each new block in as is.
  const blocks = new BlockCache(chainStore);
  sentinel = new Sentinel({
    view, store: { block: (h) => blocks.get(h), summary: (h) => chainStore.summary(h) }, mempool, now: Date.now, log: log.child({ actor: 'sentinel' }),
    signingKeys: async (producer) => producerKeysOf(await StateTrie.open(kv, view.head.stateRoot), producer),
    // A block comes at least every idle pace (plus one slot of tick granularity).
    options: { expectedBlockMs: config.idleBlockMs + config.slotMs },
  });
  const sentinelRef = sentinel;
  let slotClock: SlotClock | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let peerTimer: NodeJS.Timeout | undefined;
  let disconnectSentinel = () => {};
  let rpcClose = async () => {};

  // The producer and importer are permanent (restarted after a crash: they hold nothing); consensus is critical.
  const blockWork = new BlockWorkGate();
  const chainParts = consensusActors({
    kv, store: chainStore, view, mempool, keys, network: chainNetwork, blockWork, idleBlockMs: config.idleBlockMs, slotMs: config.slotMs, verifier, guard: signingGuard, dev: config.dev,
    log: log.child({ actor: 'consensus' }),
    lifecycles,
    onBlockProduced: (s) => nodeMetrics.blockProductionSeconds.observe(s),
    onProduced: (b) => network?.produced(b),
    onHeaderSeen: (h) => sentinelRef.observeHeader(h),
    onCommitted: (b, s) => {
      blocks.remember(b, s.size);
      for (const v of views ?? []) v.ref.send({ type: 'committed', block: b });
    },
    onUndone: (undone, h) => {
      for (const v of views ?? []) v.ref.send({ type: 'undone', blocks: undone, head: h });
    },
    modes,
  });
  /** Stops the node; `failed`: it stops by itself for `reason` (the node's `failure`). */
  async function stop(reason = 'requested', failed = false): Promise<void> {
    stopping ??= (async () => {
      log.info({ reason }, 'node stopping');
      await modes.ref.ask({ type: 'STOP', reason, failure: failed }).catch(() => undefined); // not ready from here on
      slotClock?.stop();
      clearInterval(expiryTimer);
      clearInterval(peerTimer);
      disconnectSentinel();
      try {
        await closeHttp(); // stop taking requests first
        await rpcClose();
        await supervisor.stop(); // the consensus actor finishes the block it is writing
      } catch (e) {
        log.error({ err: e }, 'error while stopping');
      }
      await closeAll(); // verifier, store, compiler
      log.info({ height: view.head.height }, 'node stopped');
      resolveStopped();
    })();
    return stopping;
  }

  try {
    await supervisor.startChild(modes.spec); // first: stopped last, so the node's modes stay readable to the end
    for (const spec of lifecycles.specs) await supervisor.startChild(spec as ChildSpec<{ type: string }>); // before those that report to them
    await supervisor.startChild({
      ref: mempool,
      start: async () => mempoolBehavior({
        pool, recent: recentOutcomes, readAccount, inChain: async (id) => (await chainStore.txLocation(id)) !== undefined,
        now: Date.now, log: log.child({ actor: 'mempool' }), lifecycles,
      }),
    });
    // The on-chain machines' node-side views (one actor each), before consensus sends them blocks.
    views = machineViewActors(ON_CHAIN, { kv, store: chainStore, head: () => view.head, log: log.child({ actor: 'machine-view' }) });
    for (const v of views) await supervisor.startChild(v.spec);
    for (const child of chainParts.children) await supervisor.startChild(child as ChildSpec<{ type: string }>);
    await supervisor.startChild({
      ref: consensus,
      critical: true, // consensus and persistence: a crash halts the node rather than papering over a broken invariant
      start: async () => chainParts.consensus(),
    });
    network = await startNetwork({
      peers: config.peers, consensus, view, genesisHash: chainNetwork.genesisHash, chainId: chainNetwork.chainId, supervisor, log: log.child({ actor: 'p2p' }), modes: modes.ref,
      staleMs: Math.max(10_000, 3 * config.idleBlockMs),
    });
    // Permanent: restarted after a crash; it only observes, so it can never halt production.
    await supervisor.startChild(sentinelRef.childSpec());
    disconnectSentinel = sentinelRef.connect(SENTINEL_TICK_MS);

    const viewActors = views;
    reader = new ChainReader({
      kv, store: chainStore, view, mempool, pending: pool, slotMs: config.slotMs, blocks, lifecycles,
      // `?for=` is answered by the machine's view actor.
      actions: async (machine, id, who) => {
        const v = viewActors.find((x) => x.def.name === machine);
        return v ? v.ref.ask({ type: 'actions', id, who }) : { actions: [], at: view.head.height };
      },
    });
    admission = createAdmission({ network: chainNetwork, onAccepted: (tx) => network?.relay(tx), verifier, turn: () => blockWork.turn(), store: chainStore, mempool, now: Date.now, onVerified: (s) => nodeMetrics.verifySeconds.observe(s), committee: async () => getCommittee(await StateTrie.open(kv, view.head.stateRoot)),
      // Only a permissioned account (the cached head account says) costs a state read.
      governed: async (signer, tx) => ((await readAccount(signer))?.permissioned ? governedRefusal(await StateTrie.open(kv, view.head.stateRoot), signer, tx) : undefined) });
    const rpcBackend = new NodeRpcBackend({
      chainId: chainNetwork.chainId, reader, store: chainStore, mempool, admission, clientVersion: `cairn/${CLIENT_VERSION}/node-${process.version}`, producer: keys.address, now: Date.now, vm: vmCalls,
    });
    // The JSON-RPC port under the HTTP API's own rate limit and guard (same settings, exemptions and counters).
    const gate = createClientGate({ ...http.protection, now: Date.now });
    const rpc = createRpcServer(rpcBackend, { log: log.child({ module: 'rpc' }), corsOrigins: config.corsOrigins, gate });
    try {
      await rpc.listen(config.host, config.rpcPort);
    } catch (e) {
      throw listenError('JSON-RPC', config.host, config.rpcPort, e);
    }
    rpcClose = () => rpc.close();
  } catch (e) {
    await stop(`start failed: ${(e as Error).message}`);
    throw e;
  }

  countMissedSlots(view, config.slotMs, keys.address, slotStats);
  slotClock = startSlotClock(config.slotMs, slotTicks(consensus, () => stopping !== null, log));
  // Often enough that a gapped transaction outlives its lifetime by at most a quarter of it (1 s to 60 s).
  const expiryMs = Math.min(60_000, Math.max(1_000, Math.floor(config.mempoolGappedLifetimeMs / 4)));
  expiryTimer = setInterval(() => mempool.send({ type: 'expire', now: Date.now() }), expiryMs);
  // Peer status polls (and sync when a peer is ahead): twice per slot length, at least every 250 ms.
  const net = network!;
  peerTimer = setInterval(() => net.tick(Date.now()), Math.max(250, 2 * config.slotMs));
  await modes.ref.ask({ type: 'READY' });

  log.info(
    { http: `http://${config.host}:${config.httpPort}`, rpc: `http://${config.host}:${config.rpcPort}`, dataDir: config.dataDir, height: head.height, validator: keys.address, mempoolCap: config.mempoolCap, slotMs: config.slotMs, peers: config.peers },
    'node started',
  );

  return {
    config, log, view, reader, supervisor, actors: { mempool, consensus, producer: chainParts.producer, importer: chainParts.importer }, alerts: sentinelRef, sentinel: sentinelRef, stopped,
    get failure() {
      return modes.current().failure;
    },
    stop,
  };
}
