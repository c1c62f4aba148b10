import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { ActorStoppedError, MailboxFullError, type ActorRef } from '../../actors/actorRef';
import type { ConsensusMsg, ConsensusReplies } from '../../actors/protocol';
import type { Block, SignedTx } from '../../protocol/types';
import type { GossipVerdict, P2pHost } from './host';
import { askTxsById, serveTxsById } from './requests';
import { BatchDecodeError, decodeTxBatch, TxBatcher } from './txBatch';
import {
  decodeBlockWire,
  decodeCompactBlock,
  decodeTxWire,
  encodeBlockWire,
  encodeCompactBlock,
  encodeTxWire,
  isCompactBlock,
  peekBlockWire,
  type CompactBlock,
  type WireTx,
} from './wire';
import { parseBlock } from '../../chain/blockShape';
import { MAX_TXS_PER_BLOCK } from '../../protocol/params';
import type { Hex } from '../../primitives/hex';

/**
 * Blocks and transactions on the network's gossipsub topics. What this node makes (its blocks, the transactions its
 * clients submit) is published; what arrives is handled once (gossipsub drops a copy by its id before this code
 * sees it) and judged, and the verdict is gossipsub's validation result, so it forwards only what was accepted:
 * - a transaction batch: each envelope not seen here before goes to admission as a client's would; the batch is
 *   rejected if one is malformed or forged (invalid on every node), accepted if one was admitted, else ignored
 *   (known, stale or refused for this node's state: no honest peer is scored down for it);
 * - a block: imported by the consensus actor; rejected when it is invalid (a bad signature, a wrong state root:
 *   for everyone), accepted when imported, ignored when known, stale, early, below this node's final height, or an
 *   orphan (whose branch the sync then pulls from the peers: `onOrphan`).
 * A block fork choice does not prefer yet (a sibling of the head) is held, not dropped: the next block on its branch
 * then links here and the two go to the consensus together, which takes the branch once it outweighs the head. When
 * each stale sibling was dropped, every later block of its branch came as an orphan that only a sync could bring in:
 * under load (syncs of 6–12 s) four validators each extended a branch of their own for 20 blocks, and finality
 * stalled for minutes.
 * Gossip under overload sheds load: past MAX_PENDING_BATCHES or MAX_PENDING_BLOCKS messages in work, more are
 * ignored unread (gossipsub's own queues are bounded too), so a flood on one topic never queues ahead of a block.
 */

/** What admission made of a transaction from a peer (network.ts maps the node's SubmitOutcome to it). */
export type TxJudgement = 'accepted' | 'invalid' | 'refused' | 'busy';

export interface TopicGossipDeps {
  host: P2pHost;
  consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>;
  /** Admission of one transaction from a peer (not relayed again: gossipsub forwards the accepted batch). */
  admitTx: (tx: WireTx) => Promise<TxJudgement>;
  now: () => number;
  log: Logger;
  /** A block whose parent is unknown here came: its branch is to be pulled now. */
  onOrphan?: () => void;
  /** Whether this node has the block (its parent, for a gossiped block): an orphan is refused before it is decoded. */
  knownBlock?: (hash: Hex) => Promise<boolean>;
  /** The slot length: an honest peer forwards about one block a slot, so orphans beyond that are its doing. */
  slotMs?: number;
  /**
   * A transaction this node's mempool holds, by id: with it, blocks travel compact (their header and transaction ids)
   * and are rebuilt here from the mempool; without it (tools), whole.
   */
  lookupTx?: (id: Hex) => SignedTx | undefined;
  /** Transactions are gathered for this long before a batch is published (txBatch.ts BATCH_DELAY_MS). */
  batchMs?: number;
}

export const MAX_PENDING_BATCHES = 64;
/**
 * Orphans a peer may send before they cost it: a bucket of ORPHAN_BURST refilled by ORPHANS_PER_SLOT each slot. An
 * honest peer forwards only blocks it imported, about one a slot (two in a fork race), and a node that is behind sees
 * each of them as an orphan; tens of thousands of orphans (which once cost a node ~75 ms of CPU each, and filled its
 * consensus mailbox) are a peer's doing, and past the bucket each is rejected: gossipsub scores the peer down and
 * stops reading it.
 */
export const ORPHAN_BURST = 32;
export const ORPHANS_PER_SLOT = 2;
export const MAX_PENDING_BLOCKS = 8;
/** Stale blocks held (a few slots of a rival branch), and their bytes at most: the least recently added go first. */
export const SIDE_BLOCKS = 64;
const SIDE_BYTES = 64 << 20;
/** Transactions of recent blocks kept to serve peers rebuilding them (a few blocks' worth). */
const RECENT_TXS = 4 * MAX_TXS_PER_BLOCK;
/** Envelopes remembered by content hash, so a transaction in several peers' batches is admitted once. */
const SEEN_TXS = 16_384;

export interface TopicGossip {
  publishBlock(block: Block): void;
  relayTx(tx: SignedTx): void;
  /** Sends the transactions gathered so far (on stop). */
  flush(): void;
  stats(): {
    batchesOut: number;
    txsOut: number;
    batchesIn: number;
    txsIn: number;
    shed: number;
    fetched: number;
    /** Blocks that linked through held stale blocks (a rival branch taken or weighed by gossip, not by a sync). */
    linked: number;
  };
}

/** Blocks of rival branches fork choice did not prefer when they came, by hash (bounded in count and bytes). */
class SideBlocks {
  private readonly held = new Map<Hex, { block: Block; bytes: number }>();
  private bytes = 0;

  add(block: Block, bytes: number): void {
    if (this.held.has(block.header.hash) || bytes > SIDE_BYTES) return;
    this.held.set(block.header.hash, { block, bytes });
    this.bytes += bytes;
    while (this.held.size > SIDE_BLOCKS || this.bytes > SIDE_BYTES) {
      const [hash, oldest] = this.held.entries().next().value!;
      this.held.delete(hash);
      this.bytes -= oldest.bytes;
    }
  }

  /** The held blocks ending at `hash`, oldest first (empty when it is not held). */
  branchTo(hash: Hex): Block[] {
    const out: Block[] = [];
    for (let at = this.held.get(hash); at && out.length < SIDE_BLOCKS; at = this.held.get(at.block.header.parentHash))
      out.push(at.block);
    return out.reverse();
  }

  drop(blocks: readonly Block[]): void {
    for (const b of blocks) {
      const at = this.held.get(b.header.hash);
      if (!at) continue;
      this.held.delete(b.header.hash);
      this.bytes -= at.bytes;
    }
  }
}

export function startTopicGossip(d: TopicGossipDeps): TopicGossip {
  const log = d.log;
  const seen = new Set<string>();
  const firstTime = (bytes: Uint8Array): boolean => {
    const key = createHash('sha256').update(bytes).digest('base64');
    if (seen.has(key)) return false;
    seen.add(key);
    if (seen.size > SEEN_TXS) seen.delete(seen.values().next().value!);
    return true;
  };
  const publish = (topic: 'txs' | 'blocks', data: Uint8Array) =>
    void d.host.publish(topic, data).catch((err) => log.debug({ err, topic }, 'publish failed'));
  const batcher = new TxBatcher((batch) => publish('txs', batch), { delayMs: d.batchMs });
  let pendingBatches = 0;
  let pendingBlocks = 0;
  const stats = { batchesIn: 0, txsIn: 0, shed: 0, fetched: 0, linked: 0 };
  const side = new SideBlocks();

  d.host.subscribe('txs', async (data): Promise<GossipVerdict> => {
    if (pendingBatches >= MAX_PENDING_BATCHES) {
      stats.shed++;
      return 'ignore';
    }
    let envelopes: Uint8Array[];
    try {
      envelopes = decodeTxBatch(data);
    } catch (e) {
      if (e instanceof BatchDecodeError) return 'reject';
      throw e;
    }
    stats.batchesIn++;
    pendingBatches++;
    try {
      const judged = await Promise.all(
        envelopes.filter(firstTime).map((bytes) => {
          const tx = decodeTxWire(bytes);
          return tx.kind === 'malformed' ? ('invalid' as const) : d.admitTx(tx);
        }),
      );
      stats.txsIn += judged.length;
      if (judged.includes('invalid')) return 'reject';
      return judged.includes('accepted') ? 'accept' : 'ignore';
    } finally {
      pendingBatches--;
    }
  });

  // Orphan buckets per peer (bounded: the least recently topped-up are forgotten first).
  const buckets = new Map<string, { tokens: number; at: number }>();
  const orphanAllowed = (from: string): boolean => {
    const now = d.now();
    const slot = d.slotMs ?? 500;
    const b = buckets.get(from) ?? { tokens: ORPHAN_BURST, at: now };
    b.tokens = Math.min(ORPHAN_BURST, b.tokens + ((now - b.at) / slot) * ORPHANS_PER_SLOT);
    b.at = now;
    buckets.delete(from);
    buckets.set(from, b);
    if (buckets.size > 1_024) buckets.delete(buckets.keys().next().value!);
    if (b.tokens < 1) return false;
    b.tokens--;
    return true;
  };

  /**
   * The transactions of the blocks this node published or rebuilt lately, by id: a peer rebuilding one of them asks
   * this node for what its mempool lacks, and the mempool no longer holds a transaction once its block is committed.
   */
  const recentTxs = new Map<Hex, SignedTx>();
  const remember = (txs: readonly SignedTx[]) => {
    for (const t of txs) recentTxs.set(t.id, t);
    while (recentTxs.size > RECENT_TXS) recentTxs.delete(recentTxs.keys().next().value!);
  };
  const find = (id: Hex) => recentTxs.get(id) ?? d.lookupTx?.(id);
  if (d.lookupTx) serveTxsById(d.host, find).catch((err) => log.error({ err }, 'cannot serve transactions by id'));

  /** The block of a compact message: the mempool's transactions, and those it lacks asked of `from`. */
  async function rebuild(c: CompactBlock, from: string): Promise<Block | undefined> {
    const txs: (SignedTx | undefined)[] = c.ids.map(find);
    const missing = c.ids.filter((_, i) => txs[i] === undefined);
    if (missing.length > 0) {
      stats.fetched += missing.length;
      let got: Map<Hex, SignedTx>;
      try {
        got = await askTxsById(d.host, from, missing);
      } catch (err) {
        log.debug({ err, peer: from, missing: missing.length }, 'compact block: missing transactions not served');
        return undefined;
      }
      for (const [i, id] of c.ids.entries()) txs[i] ??= got.get(id);
      if (txs.some((t) => t === undefined)) return undefined;
    }
    const parsed = parseBlock({
      header: c.header,
      txs,
      results: c.results,
      ...(c.events !== undefined && { events: c.events }),
    });
    return parsed.ok ? parsed.block : undefined;
  }

  d.host.subscribe('blocks', async (data, from): Promise<GossipVerdict> => {
    if (pendingBlocks >= MAX_PENDING_BLOCKS) {
      stats.shed++;
      return 'ignore';
    }
    // An orphan is refused for a lookup: its parent is read before the block is decoded (a compact block's header
    // comes first; a full one's is read past its signer records, skipped unhashed).
    let compact: CompactBlock | undefined;
    let head: { parentHash: Hex } | undefined;
    try {
      if (isCompactBlock(data)) {
        compact = decodeCompactBlock(data, MAX_TXS_PER_BLOCK);
        head = { parentHash: compact.header.parentHash };
      } else head = peekBlockWire(data);
    } catch {
      return 'reject';
    }
    const parentHash = head?.parentHash;
    // The held blocks of the branch it extends, when its parent is one of them (and the branch links here).
    let branch: Block[] = [];
    if (typeof parentHash === 'string' && d.knownBlock && !(await d.knownBlock(parentHash))) {
      branch = side.branchTo(parentHash);
      if (branch.length === 0 || !(await d.knownBlock(branch[0].header.parentHash))) {
        if (!orphanAllowed(from)) return 'reject';
        d.onOrphan?.();
        return 'ignore';
      }
      stats.linked++;
    }
    let block: Block | undefined;
    if (compact) {
      // Known already (the sync took it first): nothing to rebuild.
      if (!d.lookupTx || (d.knownBlock && (await d.knownBlock(compact.header.hash)))) return 'ignore';
      pendingBlocks++;
      try {
        block = await rebuild(compact, from);
      } finally {
        pendingBlocks--;
      }
      // Not rebuilt (the sender did not serve what this mempool lacks): the sync brings the whole block.
      if (!block) {
        d.onOrphan?.();
        return 'ignore';
      }
    } else
      try {
        block = decodeBlockWire(data);
      } catch {
        return 'reject';
      }
    pendingBlocks++;
    try {
      const r = await d.consensus.ask({ type: 'importBlocks', blocks: [...branch, block], now: d.now() });
      if (r.rejected) {
        // Refused with held blocks before it: one of those may be the invalid one (sent by another peer), so the
        // sender of this one is not blamed, and the sync brings the branch whole if it is worth having.
        if (branch.length > 0) {
          side.drop(branch);
          d.onOrphan?.();
          return 'ignore';
        }
        return r.belowFinal ? 'ignore' : 'reject';
      }
      if (r.imported > 0) {
        side.drop(branch);
        if (compact) remember(block.txs);
        return 'accept';
      }
      if (r.stale) side.add(block, data.length);
      else if (r.orphan) d.onOrphan?.();
      return 'ignore';
    } catch (e) {
      if (e instanceof MailboxFullError || e instanceof ActorStoppedError) return 'ignore';
      throw e;
    } finally {
      pendingBlocks--;
    }
  });

  return {
    publishBlock(block) {
      if (!d.lookupTx) return publish('blocks', encodeBlockWire(block));
      remember(block.txs);
      publish('blocks', encodeCompactBlock(block));
    },
    relayTx(tx) {
      const bytes = encodeTxWire(tx);
      firstTime(bytes);
      batcher.add(bytes);
    },
    flush: () => batcher.flush(),
    stats: () => ({ batchesOut: batcher.batches, txsOut: batcher.txs, ...stats }),
  };
}
