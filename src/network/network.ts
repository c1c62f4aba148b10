import type { Logger } from 'pino';
import { ActorRef } from '../actors/actorRef';
import type { PeerInfo } from '../protocol/peers';
import type { ConsensusMsg, ConsensusReplies, HeadSink } from '../actors/protocol';
import type { Supervisor } from '../actors/supervisor';
import { createBlockIntake, type BlockIntake } from './blockIntake';
import { gossipBehavior, inGoodStanding, syncBehavior, type GossipMsg, type P2pDeps, type SyncMsg } from './p2pActor';
import type { Hex } from '../primitives/hex';
import type { Block, SignedTx } from '../protocol/types';
import type { PeerTransport, PostTransport } from './peerClient';
import { readinessOf, syncingBehind, type Readiness } from './readiness';
import type { P2pHost } from './libp2p/host';
import { startDiscovery } from './libp2p/discovery';
import { bookKeyOf, hostTransport, peerIdOf, PX_PEERS, serveRequests, type RequestServer } from './libp2p/requests';
import { startTopicGossip, type TxJudgement } from './libp2p/topicGossip';
import type { WireTx } from './libp2p/wire';

/**
 * The node's side of the network: the p2p actors under the supervisor, its peer book
 * (/peers, /gateway, metrics), POST /blocks, relaying accepted transactions, the peer polls,
 * and what readiness and the syncing 503 read (readiness.ts).
 *
 * Peers are reached one of two ways, behind the same sync actor:
 * - a libp2p host (`libp2p`: what `cairn node` runs, and the simulator on sim/simHost.ts): blocks and transaction
 *   batches on gossipsub topics (libp2p/topicGossip.ts), status and block pages by request/response
 *   (libp2p/requests.ts), peers found from the configured ones and by peer exchange (libp2p/discovery.ts);
 * - a post transport (`transport`: tests): gossip posted to each configured peer by the gossip actor (p2pActor.ts),
 *   status and pages asked of it.
 */

/** What a node on libp2p adds: its host, how a peer's transaction is admitted, and what it serves its peers. */
export interface Libp2pSide {
  host: P2pHost;
  /** Admission of a transaction a peer gossiped (not relayed again: gossipsub forwards what was accepted). */
  admitTx: (tx: WireTx) => Promise<TxJudgement>;
  serve: Omit<RequestServer, 'peerAddresses'>;
  /** Whether this node has a block (a gossiped orphan is refused for this lookup). */
  knownBlock?: (hash: Hex) => Promise<boolean>;
  /** A transaction of this node's mempool: blocks then travel compact and are rebuilt from it (topicGossip.ts). */
  lookupTx?: (id: Hex) => SignedTx | undefined;
  /** Peers linked at most through peer exchange (configured peers are always dialled); 0: no peer exchange. */
  targetPeers?: number;
  /** How long transactions are gathered into a batch (txBatch.ts; 0: each sent at once, as the simulator does). */
  batchMs?: number;
}

export interface Network {
  book: Map<string, PeerInfo>;
  /** The peers as GET /peers shows them: the book, with each libp2p peer's links, gossip score and topics. */
  peers(): PeerInfo[];
  blocks: BlockIntake;
  /** Gossip a block this node produced. */
  produced(block: Block): void;
  /** Relays a transaction admission accepted to the peers. */
  relay(tx: SignedTx): void;
  /** Blocks behind the best peer when syncing, else null. */
  behind(): number | null;
  readiness(): Readiness;
  /** One poll of the peers; `poll` calls it on a timer, a test or a simulator may call it itself. */
  tick(now: number): void;
  /**
   * Polls the peers (status, and a sync when one is ahead) every two slots, no more often than every 250 ms, until the
   * returned function is called.
   */
  poll(): () => void;
  /** Blocks/s of the last sync page (metrics). */
  syncRate(): number;
  /** Stops the network's timers and sends what is gathered (the host itself is closed by its owner). */
  stop(): void;
}

/** The linked peers that take this network's topics (a peer of another network subscribes to none of them). */
const networkPeersOf = (host: P2pHost) => host.peers().filter((p) => p.topics.length > 0);

/** Peers a node links to through peer exchange by default: every validator of a small network, and some. */
export const TARGET_PEERS = 24;

export async function startNetwork(d: {
  peers: readonly string[];
  consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>;
  view: Pick<HeadSink, 'head'>;
  genesisHash: Hex;
  chainId: number;
  supervisor: Supervisor;
  log: Logger;
  /** The node's modes actor (sync started / done). */
  modes?: P2pDeps['modes'];
  slotMs: number;
  /** The idle block pace: a head older than 3 of them (10 s at least) is stale for readiness. */
  idleBlockMs: number;
  /** The clock (ms since 1970). */
  now: () => number;
  /** Peers reached over libp2p (a node). */
  libp2p?: Libp2pSide;
  /** Or peers reached by posting to them (tests); one of the two is given. */
  transport?: PostTransport;
  /** Starts the signature checks of a sync page as it arrives (P2pDeps.preverify). */
  preverify?: P2pDeps['preverify'];
}): Promise<Network> {
  const book = new Map<string, PeerInfo>();
  const lp = d.libp2p;
  if (!lp && !d.transport) throw new Error('startNetwork: a libp2p host or a post transport');
  const sync = new ActorRef<SyncMsg>('sync', 4);
  const staleMs = Math.max(10_000, 3 * d.idleBlockMs);
  let rate = 0;
  // On libp2p the book holds the peers linked now that take this network's topics; else the configured URLs.
  const networkPeers = () => (lp ? networkPeersOf(lp.host) : []);
  const transport: PeerTransport = lp ? hostTransport(lp.host) : d.transport!;
  const deps: P2pDeps = {
    peers: lp ? () => networkPeers().map((p) => bookKeyOf(p.id)) : () => d.peers,
    consensus: d.consensus,
    view: d.view,
    genesisHash: d.genesisHash,
    chainId: d.chainId,
    book,
    log: d.log,
    now: d.now,
    modes: d.modes,
    transport,
    preverify: d.preverify,
    onSync: (s) => {
      rate = s.blocksPerSec;
    },
  };
  await d.supervisor.startChild({ ref: sync, start: async () => syncBehavior(deps) });
  const behindBy = () => {
    const now = d.now();
    const claims = [...book.values()].filter((p) => inGoodStanding(p, now)).map((p) => p.height);
    return Math.max(0, Math.max(0, ...claims) - d.view.head.height);
  };
  const tick = (now: number) => {
    // On libp2p a node with no configured peer still polls those that dialled it (a bootstrap node).
    if ((lp || d.peers.length > 0) && sync.queued === 0) sync.send({ type: 'tick', now });
  };
  // An orphan (a gossiped block on a parent we lack) starts a sync at once, no more often than every quarter slot:
  // waiting for the next poll (up to two slots) let this node build its own block on the branch the orphan's
  // producer had left, and the two branches raced on with the finality votes of the losing one lost (the
  // simulator, seed 31219). What it costs a stranger who sends orphans: one status poll of the peers per
  // quarter slot; nothing is believed before the pulled blocks' signatures are checked.
  let orphanSyncAt = Number.NEGATIVE_INFINITY;
  const onOrphan = () => {
    const now = d.now();
    if (now - orphanSyncAt < d.slotMs / 4) return;
    orphanSyncAt = now;
    tick(now);
  };
  const gossip = lp ? await libp2pGossip(lp, d, onOrphan) : await postGossip(d.transport!, deps, d.supervisor);
  const blocks = createBlockIntake({
    consensus: d.consensus,
    now: d.now,
    onImported: (b) => gossip.imported(b),
    onOrphan,
  });

  return {
    book,
    peers() {
      const linked = new Map(networkPeers().map((p) => [bookKeyOf(p.id), p]));
      return [...book.values()].map((p) => {
        const l = linked.get(p.url);
        return l
          ? { ...p, libp2p: { peerId: peerIdOf(p.url), addrs: l.addrs, gossipScore: l.score, topics: l.topics } }
          : p;
      });
    },
    blocks,
    produced: (block) => gossip.produced(block),
    relay: (tx) => gossip.relay(tx),
    behind: () => syncingBehind(Math.max(d.peers.length, book.size), behindBy()),
    readiness: () =>
      readinessOf({
        configuredPeers: d.peers.length,
        peers: [...book.values()],
        head: d.view.head,
        behind: behindBy(),
        staleMs,
        now: d.now(),
      }),
    tick,
    poll() {
      const timer = setInterval(() => tick(d.now()), Math.max(250, 2 * d.slotMs));
      return () => clearInterval(timer);
    },
    syncRate: () => rate,
    stop: () => gossip.stop(),
  };
}

/** How a node's own blocks and accepted transactions leave it, and what becomes of a block it imported from a peer. */
interface Gossip {
  produced(block: Block): void;
  /** A block imported by POST /blocks (gossipsub forwards what its topic accepted by itself). */
  imported(block: Block): void;
  relay(tx: SignedTx): void;
  stop(): void;
}

async function libp2pGossip(
  lp: Libp2pSide,
  d: {
    consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>;
    now: () => number;
    log: Logger;
    peers: readonly string[];
    slotMs: number;
  },
  onOrphan: () => void,
): Promise<Gossip> {
  const topics = startTopicGossip({
    host: lp.host,
    consensus: d.consensus,
    admitTx: lp.admitTx,
    now: d.now,
    log: d.log,
    onOrphan,
    knownBlock: lp.knownBlock,
    lookupTx: lp.lookupTx,
    slotMs: d.slotMs,
    batchMs: lp.batchMs,
  });
  const targetPeers = lp.targetPeers ?? TARGET_PEERS;
  const exchange = targetPeers > 0;
  await serveRequests(lp.host, {
    ...lp.serve,
    // A node that does not exchange peers does not tell its own either (a validator behind sentries stays hidden).
    peerAddresses: async () => {
      if (!exchange) return [];
      const linked = networkPeersOf(lp.host).slice(0, PX_PEERS);
      return (await Promise.all(linked.map((p) => lp.host.listenAddrsOf(p.id)))).flatMap((a) => a.slice(0, 2));
    },
  });
  // Nothing to dial and no exchange (the simulator: every peer is linked by the world): no discovery timer.
  const discovery =
    d.peers.length === 0 && !exchange
      ? { stop() {} }
      : startDiscovery({ host: lp.host, bootstrap: d.peers, targetPeers, log: d.log });
  return {
    produced: (block) => topics.publishBlock(block),
    imported: (block) => topics.publishBlock(block),
    relay: (tx) => topics.relayTx(tx),
    stop() {
      discovery.stop();
      topics.flush();
    },
  };
}

/**
 * Gossip posted to each peer by the gossip actor (p2pActor.ts): its own mailbox, so gossip never waits on a sync and
 * relayed transactions never keep a tick out. Best effort: a full mailbox drops it and the sync catches up.
 * Transactions give way first, so a burst of them never crowds out a block.
 */
async function postGossip(transport: PostTransport, deps: P2pDeps, supervisor: Supervisor): Promise<Gossip> {
  const p2p = new ActorRef<GossipMsg>('p2p', 256);
  await supervisor.startChild({ ref: p2p, start: async () => gossipBehavior({ ...deps, transport }) });
  const send = (m: GossipMsg) => {
    if (p2p.queued < (m.type === 'relayTx' ? 128 : 224)) p2p.send(m);
  };
  return {
    produced: (block) => send({ type: 'gossipBlock', block }),
    imported: (block) => send({ type: 'gossipBlock', block }),
    relay: (tx) => send({ type: 'relayTx', tx }),
    stop() {},
  };
}
