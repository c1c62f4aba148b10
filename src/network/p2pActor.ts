import type { Logger } from 'pino';
import { prefers, type Tip } from '../consensus/forkChoice';
import { behaviorOf, type ActorRef, type Behavior, type NoReplies } from '../actors/actorRef';
import type { PeerInfo } from '../protocol/peers';
import type { ConsensusMsg, ConsensusReplies, HeadSink } from '../actors/protocol';
import type { ModesMsg, ModesReplies, P2pMsg } from '../actors/protocol';
import type { Hex } from '../primitives/hex';
import type { Block } from '../protocol/types';
import type { ChainPage, PeerTransport, PostTransport } from './peerClient';

/**
 * The p2p actors: the configured peers, their heads, gossip and sync — two mailboxes, so that
 * neither waits on the other (a soak at 60 tx/s split the network when they shared one: the
 * relayed transactions kept the mailbox from ever being empty, so the poll that starts a sync
 * was never sent, and a sync in progress held back the gossip of the node's own blocks).
 * - Gossip (`gossipBehavior`): this node's new blocks (and blocks it imported, once) go to
 *   every peer by POST /blocks, accepted transactions by POST /tx; hashes and ids already sent
 *   are not sent again (duplicate suppression), and at most FANOUT peers are sent to.
 * - Sync (`syncBehavior`): each tick polls every peer's /status; a peer on another genesis or
 *   chain id is refused; when a peer's head is preferred over ours (fork choice) its chain is
 *   pulled in GET /chain pages and handed to the consensus actor, which verifies and imports
 *   (or reorganizes). An orphan page steps back towards the finalized height to find the fork
 *   point; a branch that outweighs our head only in a later page is held until it does.
 * - Scoring: unreachable peers and invalid data lower a peer's score; at DROP_SCORE it is
 *   ignored for DROP_MS. Only configured URLs are ever fetched.
 * Peers are reached through `transport` (peerClient.ts: their HTTP API, in a node).
 */
export interface P2pDeps {
  /**
   * The peers to poll and sync from, asked at each round: the configured URLs (HTTP), or the libp2p peers linked now
   * (`/p2p/<id>`). A peer no longer listed leaves the book.
   */
  peers: () => readonly string[];
  consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>;
  view: Pick<HeadSink, 'head'>;
  genesisHash: Hex;
  chainId: number;
  /** Shared with /peers, /gateway and the metrics: the actor updates it in place. */
  book: Map<string, PeerInfo>;
  log: Logger;
  now: () => number;
  /** How peers are asked for status and blocks (libp2p requests, or their HTTP API). */
  transport: PeerTransport;
  /** Sync progress for the logs and readiness: the best height seen among peers. */
  onSync?: (s: { target: number; height: number; blocksPerSec: number }) => void;
  /** The node's modes actor: told when a sync from a peer ahead starts and ends. */
  modes?: Pick<ActorRef<ModesMsg, ModesReplies>, 'send'>;
  /**
   * Starts checking the transaction signatures of a page's blocks (consensus/importer.ts preverifyTxs): called for
   * the page fetched ahead as it arrives, so its checks run while the page before it is imported.
   */
  preverify?: (blocks: Block[]) => void;
}

export const FANOUT = 8;
const PAGE = 200;
/** How far back an equal-height fork is first looked for (deeper forks step back a page at a time). */
const FORK_LOOKBACK = 32;
const DROP_SCORE = -100;
/** What a sync source that yields nothing costs: three times and it is dropped. */
const UNBACKED_CLAIM = 34;
/**
 * A peer's claims (its height: how far behind this node is, and whether it answers 503 `syncing`) count only while
 * it is in good standing: not dropped, and not scored this far down (two syncs that yielded nothing). A peer claiming
 * an absurd height once made every read answer 503, even after it was dropped.
 */
export const GOOD_STANDING = DROP_SCORE / 2;
export const inGoodStanding = (p: PeerInfo, now: number): boolean => p.droppedUntil <= now && p.score > GOOD_STANDING;
const DROP_MS = 60_000;
/** How often the sync may warn that peers' blocks are ahead of this node's clock. */
const EARLY_WARN_MS = 60_000;
const SEEN_MAX = 4_096;
/**
 * The most blocks of a peer's branch held while it does not yet outweigh our head (fork choice
 * weighs a branch by its tip): past it, the sync gives up for this round. A branch that can be
 * taken forks above the finalized height, which stays within a few epochs of the head.
 */
export const MAX_HELD_BRANCH = 512;

/** A peer's head as fork choice weighs it (only for a peer that answered: `head` is set). */
const tipOf = (p: PeerInfo): Tip => ({ justifiedHeight: p.justifiedHeight, height: p.height, hash: p.head! });

export function newPeer(url: string): PeerInfo {
  return {
    url,
    height: 0,
    head: null,
    finalizedHeight: 0,
    justifiedHeight: 0,
    lag: 0,
    latencyMs: null,
    score: 0,
    lastSeen: 0,
    droppedUntil: 0,
  };
}

/** The peer book's bookkeeping, shared by the gossip and the sync actor (one book, updated in place). */
function peerBook(d: Pick<P2pDeps, 'peers' | 'book' | 'log' | 'now'>) {
  const refresh = () => {
    const listed = new Set(d.peers());
    for (const url of listed) if (!d.book.has(url)) d.book.set(url, newPeer(url));
    for (const url of d.book.keys()) if (!listed.has(url)) d.book.delete(url);
  };
  refresh();
  const active = (now: number) => {
    refresh();
    return [...d.book.values()].filter((p) => p.droppedUntil <= now);
  };
  let turn = 0;
  return {
    active,
    /**
     * Lowers a peer's score; `unreachable` (it did not answer) never drops it: a peer cut off by a partition is
     * polled again as soon as it heals (the simulator found nodes that had dropped every peer across the split
     * for DROP_MS, and reconverged a minute late). Only what a peer sends (an invalid block, a chain that does not
     * link) drops it.
     */
    penalize(p: PeerInfo, by: number, why: string, unreachable = false): void {
      p.score = unreachable ? Math.max(DROP_SCORE + 1, p.score - by) : p.score - by;
      if (p.score <= DROP_SCORE) {
        p.droppedUntil = d.now() + DROP_MS;
        p.score = 0;
        d.log.warn({ peer: p.url, why }, `peer dropped for ${DROP_MS / 1000} s`);
      } else d.log.debug({ peer: p.url, score: p.score, why }, 'peer scored down');
    },
    /**
     * The peers a message goes to: FANOUT of them, each message the next FANOUT in turn. Not the best-scored ones:
     * with every node sending to the same top eight, a peer a partition had cut off (scored down, and recovering a
     * point a poll) was sent no block by anyone until its score came back, and built on stale heads meanwhile. In
     * turn, every peer hears from every node within a few messages, whatever its score.
     */
    fanout(): PeerInfo[] {
      const peers = active(d.now()).sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
      if (peers.length <= FANOUT) return peers;
      const start = turn % peers.length;
      turn += FANOUT;
      return [...peers.slice(start), ...peers.slice(0, start)].slice(0, FANOUT);
    },
  };
}

export type GossipMsg = Exclude<P2pMsg, { type: 'tick' }>;
export type SyncMsg = Extract<P2pMsg, { type: 'tick' }>;

/** Gossip: blocks and transactions to the best-scored peers, each once; nothing here waits on a peer. */
export function gossipBehavior(d: P2pDeps & { transport: PostTransport }): Behavior<GossipMsg> {
  const book = peerBook(d);
  const sent = new Set<string>();
  const remember = (key: string): boolean => {
    if (sent.has(key)) return false;
    sent.add(key);
    if (sent.size > SEEN_MAX) sent.delete(sent.values().next().value!);
    return true;
  };
  return behaviorOf<GossipMsg, NoReplies<GossipMsg>>({
    gossipBlock(msg) {
      if (!remember(msg.block.header.hash)) return;
      // Not awaited: a slow peer must not hold up the next message.
      void Promise.all(
        book.fanout().map(async (p) => {
          try {
            await d.transport.postBlock(p.url, msg.block);
          } catch (e) {
            book.penalize(p, 1, `gossip: ${(e as Error).message}`, true);
          }
        }),
      );
    },
    relayTx(msg) {
      if (!remember(msg.tx.id)) return;
      void Promise.all(book.fanout().map((p) => d.transport.postTx(p.url, msg.tx).catch(() => false)));
    },
  });
}

/** Sync: each tick polls the peers and pulls the chain of the most preferred one that is ahead of ours. */
export function syncBehavior(d: P2pDeps): Behavior<SyncMsg> {
  const book = peerBook(d);

  // Peers whose last poll got no answer, and polls not answered yet.
  const unanswered = new Set<string>();
  const polling = new Map<string, Promise<void>>();
  // When the sync last warned of blocks ahead of this node's clock (once a minute at most: it stays so until fixed).
  let earlyWarned = Number.NEGATIVE_INFINITY;

  async function poll(p: PeerInfo): Promise<void> {
    const t0 = performance.now();
    try {
      const s = await d.transport.status(p.url);
      if (
        (s.genesisHash !== undefined && s.genesisHash !== d.genesisHash) ||
        (s.chainId !== undefined && s.chainId !== d.chainId)
      ) {
        p.droppedUntil = d.now() + DROP_MS;
        d.log.error(
          { peer: p.url, genesisHash: s.genesisHash, chainId: s.chainId },
          'peer refused: another genesis or chain id',
        );
        return;
      }
      Object.assign(p, {
        height: s.height,
        head: s.hash,
        finalizedHeight: s.finalizedHeight,
        justifiedHeight: s.justifiedHeight,
        latencyMs: Math.round(performance.now() - t0),
        lastSeen: d.now(),
      });
      p.lag = s.height - d.view.head.height;
      if (p.score < 0) p.score = Math.min(0, p.score + 1); // recovers slowly while it behaves
      unanswered.delete(p.url);
    } catch (e) {
      unanswered.add(p.url);
      book.penalize(p, 5, `status: ${(e as Error).message}`, true);
    }
  }

  /**
   * Pulls the peer's chain until our head is not behind it; verification and import are the consensus actor's.
   * `from` is the next height of the peer's chain to ask for: after a page it is the page's end whatever our head
   * did (a page of blocks we already had is skipped, not asked for again from our head), and an orphan page steps
   * it back. A page whose branch does not outweigh our head yet (fork choice weighs its last block, and a page of
   * large blocks may end below our head) is held and sent again with the next, up to MAX_HELD_BRANCH blocks.
   */
  async function syncFrom(p: PeerInfo): Promise<void> {
    const t0 = performance.now();
    const start = d.view.head;
    // A preferred head at our height (an equal-height fork, lower hash) has no block above ours:
    // start a page back so the page holds where the chains part (known blocks are skipped).
    let from =
      p.height > start.height ? start.height + 1 : Math.max(start.finalizedHeight + 1, p.height - FORK_LOOKBACK + 1);
    let stepBack = FORK_LOOKBACK;
    let held: Block[] = [];
    let imported = 0;
    /**
     * A page request. Its rejection is seen where it is awaited; one the loop leaves behind (it broke, or asked
     * another page) must not be an unhandled rejection, which ends the process: a peer that died mid-answer
     * (ECONNRESET) killed two validators of the soak that way.
     */
    const pageFrom = (height: number, next = false): Promise<ChainPage> => {
      const page = d.transport.chain(p.url, height, PAGE);
      // The page after the last one: its signatures are checked as soon as it comes, while the page before it is
      // imported (its blocks are new; a first page may start with blocks we have, which the import skips). At most
      // one page ahead, and the import would check it anyway: a peer sending bad blocks costs no more than before.
      page.then(
        (pg) => next && d.preverify?.(pg.blocks),
        () => {},
      );
      return page;
    };
    // The next page is fetched while the consensus actor imports this one (bounded: one page ahead).
    let ahead: Promise<ChainPage> | null = pageFrom(from);
    for (let pages = 0; pages < 10_000 && ahead; pages++) {
      if (!(p.head && prefers(tipOf(p), d.view.head))) break;
      const page: ChainPage = await ahead;
      if (page.blocks.length === 0) {
        // Its head was ahead of ours and it has no block past it: a claim it does not back. Scored down, so that the
        // next round tries another peer (a peer claiming a later head and serving empty pages was once the sync
        // source of every round, and froze a follower).
        if (imported === 0) book.penalize(p, UNBACKED_CLAIM, `claimed head #${p.height} but served no block`);
        break;
      }
      const nextFrom = page.blocks[page.blocks.length - 1].header.height + 1;
      ahead = page.next === null ? null : pageFrom(nextFrom, true);
      const blocks = held.length > 0 ? [...held, ...page.blocks] : page.blocks;
      held = [];
      const r = await d.consensus.ask({ type: 'importBlocks', blocks, now: d.now() });
      imported += r.imported;
      if (r.rejected) {
        book.penalize(p, 50, `invalid block: ${r.rejected}`);
        break;
      }
      if (r.orphan) {
        // The peer's blocks do not link to our chain: step back, further each time, to find where the chains part.
        const floor = r.head.finalizedHeight + 1;
        const first = blocks[0].header.height;
        if (first <= floor) {
          book.penalize(p, 20, 'its chain does not link to ours above our finalized height');
          break;
        }
        from = Math.max(floor, first - stepBack);
        stepBack *= 4;
        ahead = pageFrom(from);
        continue;
      }
      if (r.early) {
        // Not the peer's fault (our clock may be the one that is late): the rest waits for the next round. After the
        // orphan case: a page whose first block does not link, cut before its early end, must still step back.
        if (d.now() - earlyWarned > EARLY_WARN_MS) {
          earlyWarned = d.now();
          d.log.warn(
            { peer: p.url, reason: r.early },
            "sync: the peer's blocks are ahead of this node's clock: is it right?",
          );
        }
        break;
      }
      if (r.stale) {
        // Its branch, as far as we have it, does not outweigh our head: hold it and fetch more, if there is more.
        if (!ahead) break;
        if (blocks.length > MAX_HELD_BRANCH) {
          d.log.warn(
            { peer: p.url, from: blocks[0].header.height, to: nextFrom - 1, head: r.head.height },
            `sync: the peer's branch still does not outweigh our head after ${MAX_HELD_BRANCH} blocks; not taken`,
          );
          break;
        }
        held = blocks;
      }
      from = nextFrom;
      const secs = (performance.now() - t0) / 1000;
      d.onSync?.({ target: p.height, height: r.head.height, blocksPerSec: imported / Math.max(secs, 1e-3) });
      if (r.imported > 0)
        d.log.info(
          {
            peer: p.url,
            height: r.head.height,
            target: p.height,
            percent: Math.floor((100 * r.head.height) / Math.max(1, p.height)),
            blocksPerSec: Math.round(imported / Math.max(secs, 1e-3)),
          },
          'syncing',
        );
      // With no next page, its head may have moved on while we paged: the next tick's poll says.
    }
    if (imported > 0)
      d.log.info(
        { peer: p.url, imported, height: d.view.head.height, ms: Math.round(performance.now() - t0) },
        'synced from peer',
      );
  }

  function pollOnce(p: PeerInfo): Promise<void> {
    let q = polling.get(p.url);
    if (!q) {
      q = poll(p).finally(() => polling.delete(p.url));
      polling.set(p.url, q);
    }
    return q;
  }

  return behaviorOf<SyncMsg, NoReplies<SyncMsg>>({
    async tick(msg) {
      const peers = book.active(msg.now);
      // Every peer is polled; the round waits only for those that answered last time, so a peer that is down (or cut
      // off) never holds the sync back by the length of its timeout: the simulator's runs reconverged ten slots late
      // when each round waited 5 s for one unreachable peer. Its answer, when it comes, is in the book for the next.
      await Promise.all(peers.map((p) => pollOnce(p)).filter((_, i) => !unanswered.has(peers[i].url)));
      // The most preferred reachable head; ties to the best score.
      const best = peers
        .filter((p) => p.head && p.lastSeen > 0)
        .sort((a, b) => (prefers(tipOf(a), tipOf(b)) ? -1 : 1))[0];
      if (!best || !prefers(tipOf(best), d.view.head)) {
        if (best)
          d.log.debug(
            { peer: best.url, height: best.height, justifiedHeight: best.justifiedHeight, head: d.view.head },
            'no peer ahead of our head',
          );
        d.onSync?.({
          target: Math.max(d.view.head.height, ...peers.map((p) => p.height)),
          height: d.view.head.height,
          blocksPerSec: 0,
        });
        return;
      }
      // One message at a time: no second sync can start while this one runs (the mailbox holds the next tick).
      d.modes?.send({ type: 'SYNC_STARTED', target: best.height });
      try {
        await syncFrom(best);
      } catch (e) {
        // It answered the status poll just now: a page that fails or times out (one dripped byte by byte) is its doing.
        book.penalize(best, UNBACKED_CLAIM, `sync: ${(e as Error).message}`);
      } finally {
        d.modes?.send({ type: 'SYNC_DONE' });
      }
    },
  });
}

/** Both in one behaviour (tests, tools): the node runs them as two actors (network.ts). */
export function p2pBehavior(d: P2pDeps & { transport: PostTransport }): Behavior<P2pMsg> {
  const gossip = gossipBehavior(d);
  const sync = syncBehavior(d);
  return behaviorOf<P2pMsg, NoReplies<P2pMsg>>({
    tick: (msg) => sync.handle(msg),
    gossipBlock: (msg) => gossip.handle(msg),
    relayTx: (msg) => gossip.handle(msg),
  });
}
