import pino from 'pino';
import { ActorRef } from '../src/actors/actorRef';
import { BlockSizer } from '../src/actors/consensus/blockSizer';
import { standaloneConsensus } from '../src/actors/consensus/consensusActors';
import { mempoolBehavior } from '../src/actors/mempoolActor';
import { standaloneModes, type ModesActor } from '../src/actors/modesActor';
import { Supervisor } from '../src/actors/supervisor';
import type {
  AdmitVerdict,
  ConsensusMsg,
  ConsensusReplies,
  ImportOutcome,
  LifecycleReports,
  MempoolLookup,
  MempoolMsg,
  MempoolReplies,
} from '../src/actors/protocol';
import { loadChainView, type ChainView } from '../src/api/chainView';
import { HeadAccounts } from '../src/api/headAccounts';
import type { GenesisSpec } from '../src/chain/genesis';
import { createFastVerifier } from '../src/crypto/fastVerify';
import { enableFastMldsaSigning } from '../src/crypto/mldsaSign';
import type { VerifyJob } from '../src/crypto/hybrid';
import { VerifiedCache } from '../src/crypto/verifiedCache';
import type { HybridKeys } from '../src/crypto/keys';
import { pqKeyHashOf } from '../src/crypto/txSigning';
import { TxPool } from '../src/mempool/pool';
import type { TxJudgement } from '../src/network/libp2p/topicGossip';
import type { WireTx } from '../src/network/libp2p/wire';
import { startNetwork, type Libp2pSide, type Network as P2pNetwork } from '../src/network/network';
import { peerStatusOf } from '../src/network/peerClient';
import { decodeEnvelope } from '../src/chain/envelope';
import type { SimHost } from './simHost';
import { writeGenesis } from '../src/node/genesisSource';
import type { Hex } from '../src/primitives/hex';
import type { Network } from '../src/protocol/network';
import type { Block, SignedTx } from '../src/protocol/types';
import { MemoryKv, type KvBatch, type KvRange, type KvStore } from '../src/state/kv';
import { StateTrie } from '../src/state/stateTrie';
import { ChainStore } from '../src/storage/chainStore';
import { SigningGuard, type LastSigned } from '../src/storage/signingGuard';

/**
 * The nodes' logs: silent, or SIM_LOG=debug|info|warn to read them on stderr, each line with its node's name and
 * `vt`, the virtual time.
 */
const LOG_LEVEL = process.env.SIM_LOG ?? 'silent';
const logTo = LOG_LEVEL === 'silent' ? undefined : pino.destination(2);

/**
 * Signature checks are pure: the simulator's nodes share one memo (keyed by every byte a check
 * reads), so a transaction every node imports is verified once, not once per node — for real,
 * with the single-thread fast verifier (OpenSSL + liboqs, the verify pool's code; it agrees
 * with the reference verifier on every input: test/property/verify-agreement.test.ts).
 */
const fast = await createFastVerifier();
// Clients' transactions and every header are ML-DSA signed: liboqs, deterministic, the same bytes as noble.
await enableFastMldsaSigning();
const verified = new Map<string, boolean>();
export const memoVerifier = {
  async verifyMany(jobs: readonly VerifyJob[]): Promise<boolean[]> {
    return jobs.map((j) => {
      const k = VerifiedCache.keyOf(j);
      let ok = verified.get(k);
      if (ok === undefined) {
        ok = fast.verify(j.msg, j.pubs, j.sigs);
        if (verified.size > 50_000) verified.clear();
        verified.set(k, ok);
      }
      return ok;
    });
  },
};

/**
 * A byzantine validator's node: it signs whatever its slots allow — no double-sign protection,
 * no finality-vote rules — and does not stop when it sees its own key elsewhere (its twin).
 */
const unguarded = {
  refusal: () => undefined,
  voteRefusal: () => undefined,
  record: async () => {},
  forgetAbove: async () => {},
};
function shameless(): ModesActor {
  const m = standaloneModes();
  const ask: ModesActor['ref']['ask'] = (msg) =>
    msg.type === 'KEY_IN_USE_ELSEWHERE' ? Promise.resolve(m.current()) : m.ref.ask(msg);
  return { ...m, ref: { ask } as ModesActor['ref'] };
}

/** Thrown by a SimDisk write once its crash point is reached. */
export class SimCrash extends Error {
  constructor() {
    super('simulated crash: the process died in this write');
  }
}

/**
 * A node's disk: MemoryKv (each batch atomic, as RocksDB's), and a crash point. Armed with k,
 * the k+1-th write from now fails and every later one too, so a crash can fall between the
 * writes of one operation (a reorganization undoes block by block, pruning deletes in steps):
 * the node restarts from exactly what landed.
 */
export class SimDisk implements KvStore {
  private readonly mem = new MemoryKv();
  private writesLeft = Number.POSITIVE_INFINITY;
  /** Called once when a write meets the crash point: the node goes down there and then. */
  onCrash: () => void = () => {};

  crashAfter(writes: number): void {
    this.writesLeft = writes;
  }

  get crashed(): boolean {
    return this.writesLeft < 0;
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.mem.get(key);
  }

  batch(): KvBatch {
    return this.mem.batch();
  }

  async write(b: KvBatch): Promise<void> {
    if (this.writesLeft-- <= 0) {
      if (this.writesLeft === -1) this.onCrash();
      throw new SimCrash();
    }
    return this.mem.write(b);
  }

  iterate(opts: KvRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.mem.iterate(opts);
  }

  close(): Promise<void> {
    return this.mem.close();
  }
}

/** What the world does with what a node sends. */
export interface SimNodeHooks {
  produced(node: SimNode, block: Block): void;
  /** A write met the disk's crash point: the node is down. */
  crashed(node: SimNode): void;
  /** Blocks undone by a reorganization (how many), and the head they left. */
  undone(node: SimNode, blocks: number): void;
  /** A block or branch from a peer refused, and why. */
  rejected(node: SimNode, reason: string): void;
  /** A block from a peer not taken yet: it is ahead of the node's clock (why). */
  early(node: SimNode, reason: string): void;
  /** Its slot came and it did not sign, because of the double-sign protection (why). */
  unsigned(node: SimNode, height: number, reason: string): void;
  /** An actor of the node crashed beyond what its supervisor restarts: a bug the run reports. */
  escalated(node: SimNode, reason: string): void;
}

/** What a node holds at most: transactions a block takes, and its mempool (a scenario's; else the node's own). */
export interface SimCapacity {
  blockTxs?: number;
  poolTxs?: number;
}

/** A block size fixed by the run, not measured: the node's sizer times execution on the machine's clock. */
class FixedBlockSizer extends BlockSizer {
  constructor(private readonly txs: number) {
    super(0);
  }
  override maxTxs(): number {
    return this.txs;
  }
  override observe(): void {}
}

/** How a node reaches the world: the virtual time, and its host on the simulated libp2p network (simHost.ts). */
export interface SimWiring {
  time: () => number;
  /** A new host for each start: what the last life of the node subscribed and served dies with it. */
  host: (node: SimNode) => SimHost;
}

/**
 * One validator of the simulation: the real consensus actors (consensus, producer, importer),
 * the real mempool actor and the node's network side (network/: topic gossip and the sync actor)
 * over an in-memory store and a simulated libp2p host, driven by the world's virtual clock — every slot
 * tick, import and peer poll carries its `now`. A crash drops the actors and the pool and
 * keeps the store and the signing guard (what a disk keeps); a restart rebuilds the actors
 * from them, as `cairn node` does from its data directory.
 */
export class SimNode {
  /** Its place in the world's list (a byzantine validator runs two nodes under one key). */
  id = 0;
  readonly kv = new SimDisk();
  readonly store = new ChainStore(this.kv);
  view!: ChainView;
  chain!: ActorRef<ConsensusMsg, ConsensusReplies>;
  mempool!: ActorRef<MempoolMsg, MempoolReplies>;
  pool!: TxPool;
  up = false;
  /** Counts starts: an answer meant for an earlier life of the node is never delivered. */
  incarnation = 0;
  net!: P2pNetwork;
  /** Its host on the simulated libp2p network (the current life's). */
  host?: SimHost;
  /** Why each transaction its mempool dropped was dropped, as its lifecycle has it (kept across crashes: a record). */
  readonly drops = new Map<Hex, string>();
  private supervisor?: Supervisor;
  /** What the guard file holds: survives crashes. */
  private guardSaved: LastSigned = { height: 0, slot: -1 };
  private guard?: SigningGuard;
  network!: Network;

  constructor(
    readonly index: number,
    readonly keys: HybridKeys,
    private readonly opts: {
      slotMs: number;
      hooks: SimNodeHooks;
      wiring: SimWiring;
      skewMs: number;
      byzantine?: 'a' | 'b';
      capacity?: SimCapacity;
    },
  ) {
    this.kv.onCrash = () => {
      if (!this.up) return;
      this.crash();
      this.opts.hooks.crashed(this);
    };
  }

  get byzantine(): boolean {
    return this.opts.byzantine !== undefined;
  }

  get name(): string {
    return `v${this.index}${this.opts.byzantine ?? ''}`;
  }

  async init(spec: GenesisSpec): Promise<void> {
    await writeGenesis(this.store, spec);
    this.network = await this.store.network();
  }

  /** The node's own clock: the world's, skewed. */
  clock(now: number): number {
    return now + this.opts.skewMs;
  }

  async start(now: number): Promise<void> {
    this.kv.crashAfter(Number.POSITIVE_INFINITY);
    this.incarnation++;
    const head = (await this.store.head())!;
    this.view = await loadChainView(this.store, head, await StateTrie.open(this.kv, head.stateRoot), now);
    const headAccounts = new HeadAccounts(this.kv, this.view);
    const clock = () => this.clock(this.opts.wiring.time());
    const silent = pino(
      {
        level: LOG_LEVEL,
        base: { node: this.name, life: this.incarnation },
        mixin: () => ({ vt: this.opts.wiring.time() }),
      },
      logTo,
    );
    const capacity = this.opts.capacity ?? {};
    this.pool = new TxPool({ cap: capacity.poolTxs ?? 5_000, lifetimeMs: 3_600_000, maxNonceGap: 64 });
    this.mempool = new ActorRef<MempoolMsg, MempoolReplies>(`${this.name}.mempool`);
    this.mempool.attach(
      mempoolBehavior({
        pool: this.pool,
        recent: new Map<Hex, MempoolLookup>(),
        readAccount: (a) => headAccounts.read(a),
        inChain: async (id) => (await this.store.txLocation(id)) !== undefined,
        now: clock,
        log: silent,
        lifecycles: this.dropRecord(),
      }),
    );
    this.guard = SigningGuard.inMemory(this.guardSaved);
    const byzantine = this.byzantine ? { guard: unguarded, modes: shameless() } : {};
    this.chain = new ActorRef<ConsensusMsg, ConsensusReplies>(`${this.name}.consensus`);
    this.chain.attach(
      standaloneConsensus({
        kv: this.kv,
        store: this.store,
        view: this.view,
        mempool: this.mempool,
        keys: this.keys,
        network: this.network,
        idleBlockMs: this.opts.slotMs * 4,
        slotMs: this.opts.slotMs,
        guard: this.guard,
        log: silent,
        verifier: memoVerifier,
        now: clock,
        onUndone: (blocks) => this.opts.hooks.undone(this, blocks.length),
        onRejected: (reason) => this.opts.hooks.rejected(this, reason),
        onUnsigned: (height, reason) => this.opts.hooks.unsigned(this, height, reason),
        ...(capacity.blockTxs !== undefined && { sizer: new FixedBlockSizer(capacity.blockTxs) }),
        onProduced: (block) => {
          this.opts.hooks.produced(this, block);
          this.net.produced(block);
        },
        ...byzantine,
      }),
    );
    // The node's network side as `cairn node` runs it (network/network.ts), on a host the world links to every peer:
    // no peer to dial, none to exchange.
    const supervisor = new Supervisor(silent, (reason) => this.opts.hooks.escalated(this, reason));
    this.supervisor = supervisor;
    this.host = this.opts.wiring.host(this);
    this.net = await startNetwork({
      peers: [],
      consensus: this.watchedConsensus(),
      view: this.view,
      genesisHash: this.network.genesisHash,
      chainId: this.network.chainId,
      supervisor,
      log: silent,
      slotMs: this.opts.slotMs,
      idleBlockMs: this.opts.slotMs * 4,
      now: clock,
      libp2p: this.libp2pSide(this.host),
    });
    this.up = true;
  }

  /** Stops at once: the store is as the last atomic write left it, the guard as its last record. */
  crash(): void {
    if (this.guard) this.guardSaved = this.guard.lastSigned as LastSigned;
    this.up = false;
    // Whatever its actors still hold is lost with the process: later messages to them are refused.
    void this.supervisor?.stop();
    void this.chain.stop();
    void this.mempool.stop();
  }

  /** Runs `f` on the live node; a write that met the disk's crash point takes the node down (null). */
  private async live<T>(f: () => Promise<T>): Promise<T | null> {
    if (!this.up) return null;
    try {
      return await f();
    } catch (e) {
      if (this.kv.crashed || !this.up) return null; // it went down meanwhile (its disk's crash point), mid-call
      throw e;
    }
  }

  async tick(now: number): Promise<void> {
    await this.live(() => this.chain.ask({ type: 'slotTick', now: this.clock(now) }));
  }

  importBlocks(blocks: Block[], now: number): Promise<ImportOutcome | null> {
    return this.live(() => this.chain.ask({ type: 'importBlocks', blocks, now: this.clock(now) }));
  }

  /** The consensus actor as the network side asks it: a peer's block it does not take yet, being early, is reported. */
  private watchedConsensus(): Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'> {
    const chain = this.chain;
    return {
      ask: async <T extends ConsensusMsg>(msg: T) => {
        const r = await chain.ask(msg);
        const early = msg.type === 'importBlocks' ? (r as ImportOutcome).early : undefined;
        if (early) this.opts.hooks.early(this, early);
        return r;
      },
    };
  }

  /** What the network layer asks of this node on the simulated libp2p network (node/p2p.ts nodeLibp2p's part). */
  private libp2pSide(host: SimHost): Libp2pSide {
    return {
      host,
      targetPeers: 0,
      batchMs: 0,
      admitTx: async (w: WireTx): Promise<TxJudgement> => {
        if (w.kind !== 'hybrid') return w.kind === 'malformed' ? 'invalid' : 'refused';
        if (this.pool.has((w.body as { id?: Hex }).id ?? '0x')) return 'refused';
        const d = decodeEnvelope(w.body, this.network);
        if (!d.ok) return 'invalid';
        return (await this.admit(d.tx as SignedTx, false)) ? 'accepted' : 'refused';
      },
      serve: {
        status: () => peerStatusOf(this.view.head, this.network),
        chainPage: async (from: number, limit: number) =>
          (await this.store.binaryPage(Math.max(1, from), this.view.head.height, limit)).page,
      },
      knownBlock: async (hash: Hex) => (await this.store.heightOfHash(hash)) !== undefined,
      lookupTx: (id: Hex) => this.pool.get(id)?.tx,
    };
  }

  /** The mempool's reports of its transactions' lifecycles, as far as the simulator reads them: the drops. */
  private dropRecord(): Pick<LifecycleReports, 'txs'> {
    return {
      txs: {
        send: (m) => {
          if (m.type === 'dropped') for (const d of m.drops) this.drops.set(d.id, d.reason);
        },
      },
    };
  }

  /** Admission as POST /tx: its verdict (null: the node is down); an accepted transaction is relayed to the peers. */
  async submit(tx: SignedTx, relay = true): Promise<AdmitVerdict | null> {
    const v = await this.live(() => this.mempool.ask({ type: 'admit', tx, keyHash: pqKeyHashOf(tx) }));
    if (v?.accepted && relay) this.net.relay(tx);
    return v;
  }

  /** Admission as POST /tx: whether it was accepted. */
  async admit(tx: SignedTx, relay = true): Promise<boolean> {
    return (await this.submit(tx, relay))?.accepted ?? false;
  }

  /** The canonical blocks from `from` to the head. */
  async blocksFrom(from: number): Promise<Block[]> {
    const out: Block[] = [];
    const head = this.view.head.height;
    for (let h = Math.max(1, from); h <= head; h++) out.push((await this.store.block(h))!);
    return out;
  }
}
