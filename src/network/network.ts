import type { Logger } from 'pino';
import { ActorRef } from '../actors/actorRef';
import type { PeerInfo } from '../protocol/peers';
import type { ConsensusMsg, ConsensusReplies, HeadSink } from '../actors/protocol';
import type { Supervisor } from '../actors/supervisor';
import { createBlockIntake, type BlockIntake } from './blockIntake';
import { gossipBehavior, syncBehavior, type GossipMsg, type P2pDeps, type SyncMsg } from './p2pActor';
import type { Hex } from '../primitives/hex';
import type { Block, SignedTx } from '../protocol/types';
import { httpTransport, type PeerTransport } from './peerClient';
import { readinessOf, syncingBehind, type Readiness } from './readiness';

/**
 * The node's side of the network: the p2p actor under the supervisor, its peer book
 * (/peers, /gateway, metrics), POST /blocks, relaying accepted transactions, the peer polls,
 * and what readiness and the syncing 503 read (readiness.ts).
 */

export interface Network {
  book: Map<string, PeerInfo>;
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
}

export async function startNetwork(d: {
  peers: readonly string[];
  consensus: ActorRef<ConsensusMsg, ConsensusReplies>;
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
  /** How peers are reached; default: their HTTP API. */
  transport?: PeerTransport;
  /** Starts the signature checks of a sync page as it arrives (P2pDeps.preverify). */
  preverify?: P2pDeps['preverify'];
}): Promise<Network> {
  const book = new Map<string, PeerInfo>();
  // Two mailboxes (p2pActor.ts): gossip never waits on a sync, and the relayed transactions never keep a tick out.
  const p2p = new ActorRef<GossipMsg>('p2p', 256);
  const sync = new ActorRef<SyncMsg>('sync', 4);
  const staleMs = Math.max(10_000, 3 * d.idleBlockMs);
  let target = 0;
  let rate = 0;
  const deps: P2pDeps = {
    peers: d.peers,
    consensus: d.consensus,
    view: d.view,
    genesisHash: d.genesisHash,
    chainId: d.chainId,
    book,
    log: d.log,
    now: d.now,
    modes: d.modes,
    transport: d.transport ?? httpTransport,
    preverify: d.preverify,
    onSync: (s) => {
      target = s.target;
      rate = s.blocksPerSec;
    },
  };
  await d.supervisor.startChild({ ref: p2p, start: async () => gossipBehavior(deps) });
  await d.supervisor.startChild({ ref: sync, start: async () => syncBehavior(deps) });
  // Gossip is best effort: a full mailbox drops it and the sync catches up. Transactions give way first, so a burst
  // of them never crowds out a block.
  const send = (m: GossipMsg) => {
    if (p2p.queued < (m.type === 'relayTx' ? 128 : 224)) p2p.send(m);
  };
  const behindBy = () => Math.max(0, Math.max(target, ...[...book.values()].map((p) => p.height)) - d.view.head.height);
  const tick = (now: number) => {
    if (d.peers.length > 0 && sync.queued === 0) sync.send({ type: 'tick', now });
  };
  // An orphan (a gossiped block on a parent we lack) starts a sync at once, no more often than every quarter slot:
  // waiting for the next poll (up to two slots) let this node build its own block on the branch the orphan's
  // producer had left, and the two branches raced on with the finality votes of the losing one lost (the
  // simulator, seed 31219). What it costs a stranger who sends orphans: one status poll of the peers per
  // quarter slot; nothing is believed before the pulled blocks' signatures are checked.
  let orphanSyncAt = Number.NEGATIVE_INFINITY;
  const blocks = createBlockIntake({
    consensus: d.consensus,
    now: d.now,
    onImported: (b) => send({ type: 'gossipBlock', block: b }),
    onOrphan: () => {
      const now = d.now();
      if (now - orphanSyncAt < d.slotMs / 4) return;
      orphanSyncAt = now;
      tick(now);
    },
  });

  return {
    book,
    blocks,
    produced: (block) => send({ type: 'gossipBlock', block }),
    relay: (tx) => send({ type: 'relayTx', tx }),
    behind: () => syncingBehind(d.peers.length, behindBy()),
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
  };
}
