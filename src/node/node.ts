import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { ActorRef } from '../actors/actorRef';
import { createAdmission } from '../actors/admission';
import { chainBehavior } from '../actors/chainActor';
import { ChainReader } from '../actors/chainReader';
import { ChainView } from '../actors/chainView';
import { mempoolBehavior } from '../actors/mempoolActor';
import type { ChainMsg, MempoolLookup, MempoolMsg } from '../actors/protocol';
import { Supervisor } from '../actors/supervisor';
import { devGenesis } from '../chain/devnet';
import { applyGenesis, VALIDATORS_KEY, type ValidatorSet } from '../chain/genesis';
import { MAX_FUTURE_NONCE_GAP, MEMPOOL_LIFETIME_MS, TREASURY_ADDRESS } from '../chain/params';
import type { AccountState, Address } from '../chain/types';
import type { NodeConfig } from '../config/config';
import { VerifyPool } from '../crypto/verifyPool';
import { createHttpServer } from '../http/server';
import { SolcCompiler } from '../contracts/compiler';
import { NodeRpcBackend } from '../actors/rpcBackend';
import { createRpcServer } from '../rpc/server';

const CLIENT_VERSION = '0.1.0';
import { TxPool } from '../mempool/pool';
import type { Hex } from '../primitives/hex';
import { StateTrie } from '../state/stateTrie';
import { ChainStore, type Head } from '../storage/chainStore';
import { openStore } from '../storage/rocks';

export interface RunningNode {
  config: NodeConfig;
  log: Logger;
  view: ChainView;
  reader: ChainReader;
  supervisor: Supervisor;
  actors: { mempool: ActorRef<MempoolMsg>; chain: ActorRef<ChainMsg> };
  /** Resolves when the node has stopped (by stop() or by an escalated failure). */
  stopped: Promise<void>;
  stop(reason?: string): Promise<void>;
}

/** Creates the genesis block on an empty store (dev network) and writes dev-accounts.json. */
async function ensureGenesis(store: ChainStore, config: NodeConfig, log: Logger): Promise<Head> {
  const existing = await store.head();
  if (existing) return existing;
  const dev = devGenesis(config.devAccounts);
  const state = await StateTrie.open(store.kv, null);
  const block = await applyGenesis(state, dev.spec);
  const batch = store.kv.batch();
  const stateRoot = await state.flush(batch);
  const head: Head = { height: 0, hash: block.header.hash, stateRoot, finalizedHeight: 0, timestamp: block.header.timestamp };
  const addrs = [...dev.spec.accounts.map((a) => a.address), TREASURY_ADDRESS];
  store.putBlock(batch, block, head, addrs);
  store.putGenesisSpec(batch, dev.spec);
  await store.kv.write(batch);
  state.settle();
  await writeFile(join(config.dataDir, 'dev-accounts.json'), `${JSON.stringify(dev.accounts, null, 2)}\n`, { mode: 0o600 });
  log.info({ hash: head.hash, stateRoot, accounts: dev.accounts.length }, 'genesis created (development network)');
  return head;
}

/** Block summaries back to `since` (at least the newest 64), oldest first, for the read model. */
async function loadHistory(store: ChainStore, head: Head, since: number) {
  const out: Awaited<ReturnType<ChainStore['summariesDesc']>> = [];
  let from = head.height;
  for (;;) {
    const page = await store.summariesDesc(from, 10_000);
    out.push(...page);
    const last = page[page.length - 1];
    if (!last || last.height === 0 || (last.timestamp < since && out.length >= ChainView.RECENT)) break;
    from = last.height - 1;
  }
  return out.reverse();
}

export async function startNode(config: NodeConfig): Promise<RunningNode> {
  const log = pino({ level: config.logLevel, base: { node: 'cairn' } });
  await mkdir(config.dataDir, { recursive: true });
  const kv = await openStore(join(config.dataDir, 'chain'));
  const store = new ChainStore(kv);
  const head = await ensureGenesis(store, config, log);

  const headState = await StateTrie.open(kv, head.stateRoot);
  const validators = (await headState.getRecord<ValidatorSet>(VALIDATORS_KEY))?.active ?? [];
  const view = new ChainView(head, validators, await loadHistory(store, head, Date.now() - 24 * 3_600_000));
  const keys = devGenesis(0).validator;
  if (!validators.includes(keys.address)) throw new Error(`this node's key ${keys.address} is not a validator of this chain`);

  const verifier = await VerifyPool.start({ workers: config.verifyWorkers });
  let stopping: Promise<void> | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const supervisor = new Supervisor(log, (reason, err) => {
    log.fatal({ err, reason }, 'supervision escalated: stopping the node');
    void node.stop(reason);
  });

  // Head-state account reads for admission, cached per head (cleared when a block commits).
  let cache = new Map<Address, AccountState | undefined>();
  let cacheRoot: Hex = head.stateRoot;
  const readAccount = async (addr: Address) => {
    const root = view.head.stateRoot;
    if (root !== cacheRoot) {
      cache = new Map();
      cacheRoot = root;
    }
    if (cache.has(addr)) return cache.get(addr);
    const a = await (await StateTrie.open(kv, root)).getAccount(addr);
    if (root === cacheRoot) cache.set(addr, a);
    return a;
  };

  const pool = new TxPool({ cap: config.mempoolCap, lifetimeMs: MEMPOOL_LIFETIME_MS, maxNonceGap: MAX_FUTURE_NONCE_GAP });
  const recentOutcomes = new Map<Hex, MempoolLookup>();
  const mempool = new ActorRef<MempoolMsg>('mempool');
  const chain = new ActorRef<ChainMsg>('chain', 16);
  await supervisor.startChild({
    ref: mempool,
    start: async () => mempoolBehavior({
      pool, recent: recentOutcomes, readAccount, inChain: async (id) => (await store.txLocation(id)) !== undefined,
      now: Date.now, log: log.child({ actor: 'mempool' }),
    }),
  });
  await supervisor.startChild({
    ref: chain,
    critical: true, // consensus and persistence: a crash halts the node rather than papering over a broken invariant
    start: async () => chainBehavior({ kv, store, view, mempool, keys, idleBlockMs: config.idleBlockMs, log: log.child({ actor: 'chain' }) }),
  });

  const reader = new ChainReader({ kv, store, view, mempool });
  const admission = createAdmission({ verifier, store, mempool, now: Date.now });
  const compiler = new SolcCompiler();
  const http = createHttpServer({
    reader, admission, compiler, saveContract: (addr, m) => store.saveContractMetadata(addr as Address, m),
    log: log.child({ module: 'http' }), now: Date.now,
  });
  await http.listen(config.host, config.httpPort);
  const rpcBackend = new NodeRpcBackend({
    reader, store, mempool, admission, clientVersion: `cairn/${CLIENT_VERSION}/node-${process.version}`, producer: keys.address, now: Date.now,
  });
  const rpc = createRpcServer(rpcBackend, { log: log.child({ module: 'rpc' }) });
  await rpc.listen(config.host, config.rpcPort);

  // Slot clock: one tick per slot unless the previous one is still being handled.
  const slotTimer = setInterval(() => {
    if (chain.queued === 0) chain.send({ type: 'slotTick', now: Date.now() });
  }, config.slotMs);
  const expiryTimer = setInterval(() => mempool.send({ type: 'expire', now: Date.now() }), 60_000);

  log.info(
    { http: `http://${config.host}:${config.httpPort}`, rpc: `http://${config.host}:${config.rpcPort}`, dataDir: config.dataDir, height: head.height, validator: keys.address, mempoolCap: config.mempoolCap, slotMs: config.slotMs },
    'node started',
  );

  const node: RunningNode = {
    config, log, view, reader, supervisor, actors: { mempool, chain }, stopped,
    stop(reason = 'requested') {
      stopping ??= (async () => {
        log.info({ reason }, 'node stopping');
        clearInterval(slotTimer);
        clearInterval(expiryTimer);
        await http.close(); // stop taking requests first
        await rpc.close();
        await supervisor.stop(); // the chain actor finishes the block it is writing
        await verifier.close();
        await compiler.close();
        await kv.close();
        log.info({ height: view.head.height }, 'node stopped');
        resolveStopped();
      })();
      return stopping;
    },
  };
  return node;
}
