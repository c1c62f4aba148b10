import type { Logger } from 'pino';
import { ActorRef } from '../actors/actorRef';
import type { PeerInfo } from '../protocol/peers';
import type { ConsensusMsg, ConsensusReplies, HeadSink } from '../actors/protocol';
import type { Supervisor } from '../actors/supervisor';
import { createBlockIntake, type BlockIntake } from './blockIntake';
import { p2pBehavior, type P2pDeps } from './p2pActor';
import type { P2pMsg } from '../actors/protocol';
import type { Hex } from '../primitives/hex';
import type { Block, SignedTx } from '../protocol/types';

/**
 * The node's side of the network: the p2p actor under the supervisor, its peer book
 * (/peers, /gateway, metrics), POST /blocks, relaying accepted transactions, and what
 * readiness and the syncing 503 read.
 */

/** Behind the best peer by more than this, the node is syncing: reads answer 503. */
export const SYNC_LAG_BLOCKS = 32;

export interface Network {
  book: Map<string, PeerInfo>;
  blocks: BlockIntake;
  /** Gossip a block this node produced. */
  produced(block: Block): void;
  /** Relays a transaction admission accepted to the peers. */
  relay(tx: SignedTx): void;
  /** Blocks behind the best peer when syncing, else null. */
  behind(): number | null;
  readiness(): { ready: boolean; reason?: string; height: number; peers: number; reachable: number; behind: number };
  tick(now: number): void;
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
  /** How long without a block before a validator is not "producing or following". */
  staleMs: number;
}): Promise<Network> {
  const book = new Map<string, PeerInfo>();
  const p2p = new ActorRef<P2pMsg>('p2p', 256);
  let target = 0;
  let rate = 0;
  await d.supervisor.startChild({
    ref: p2p,
    start: async () =>
      p2pBehavior({
        peers: d.peers, consensus: d.consensus, view: d.view, genesisHash: d.genesisHash, chainId: d.chainId, book, log: d.log, now: Date.now, modes: d.modes,
        onSync: (s) => {
          target = s.target;
          rate = s.blocksPerSec;
        },
      }),
  });
  const send = (m: P2pMsg) => {
    if (p2p.queued < 200) p2p.send(m); // gossip is best effort: a full mailbox drops it, sync catches up
  };
  const blocks = createBlockIntake({ consensus: d.consensus, now: Date.now, onImported: (b) => send({ type: 'gossipBlock', block: b }) });
  const behindBy = () => Math.max(0, Math.max(target, ...[...book.values()].map((p) => p.height)) - d.view.head.height);

  return {
    book,
    blocks,
    produced: (block) => send({ type: 'gossipBlock', block }),
    relay: (tx) => send({ type: 'relayTx', tx }),
    behind: () => (d.peers.length > 0 && behindBy() > SYNC_LAG_BLOCKS ? behindBy() : null),
    readiness() {
      const now = Date.now();
      const peers = [...book.values()];
      const reachable = peers.filter((p) => now - p.lastSeen < 10_000).length;
      const behind = behindBy();
      const base = { height: d.view.head.height, peers: peers.length, reachable, behind };
      if (d.peers.length > 0 && behind > SYNC_LAG_BLOCKS) return { ready: false, reason: `syncing: ${behind} blocks behind`, ...base };
      if (d.peers.length > 0 && reachable === 0) return { ready: false, reason: 'no peer reachable', ...base };
      if (now - d.view.head.timestamp > d.staleMs) return { ready: false, reason: `no block for ${Math.round((now - d.view.head.timestamp) / 1000)} s`, ...base };
      return { ready: true, ...base };
    },
    tick(now) {
      if (d.peers.length > 0 && p2p.queued === 0) p2p.send({ type: 'tick', now });
    },
    syncRate: () => rate,
  };
}
