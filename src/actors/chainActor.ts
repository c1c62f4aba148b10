import type { Logger } from 'pino';
import { sealBlock } from '../chain/block';
import { buildBlock } from '../chain/buildBlock';
import { prefers } from '../consensus/forkChoice';
import { slotOf, slotProducer } from '../consensus/slots';
import { orderedCandidates } from '../mempool/senderHeap';
import { MAX_TXS_PER_BLOCK, TREASURY_ADDRESS } from '../protocol/params';
import type { Block, SignedTx } from '../protocol/types';
import type { HybridKeys } from '../crypto/keys';
import type { VerifyPool } from '../crypto/verifyPool';
import type { Head } from '../protocol/chain';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { SigningGuard } from '../storage/signingGuard';
import type { Behavior } from './actorRef';
import { createBlockCommitter, type CommitDeps } from './commitBlock';
import { createImporter, preverifyTxs } from './importer';
import { blockState, receivedBlock, stepBlock } from '../machines/blockLifecycle';

/** A committed block's lifecycle snapshot (the start of an undo). */
const COMMITTED = (height: number) => [{ type: 'VERIFIED' }, { type: 'EXECUTED' }, { type: 'COMMITTED' }].reduce((s, e) => stepBlock(s, e as never), receivedBlock(height));
import type { ChainMsg, ChainReplies, ImportOutcome } from './protocol';

export interface ChainDeps extends CommitDeps {
  kv: KvStore;
  keys: HybridKeys;
  idleBlockMs: number;
  slotMs: number;
  verifier: Pick<VerifyPool, 'verifyMany'>;
  /** Double-sign protection: the last height and slot this validator signed. */
  guard: SigningGuard;
  log: Logger;
  /** Observes each block's build + commit time in seconds (metrics). */
  onBlockProduced?: (seconds: number) => void;
  /** A block of ours, committed: the p2p actor gossips it. */
  onProduced?: (block: Block) => void;
  /** A block was refused (the reason is logged): metrics and peer scoring. */
  onRejected?: (reason: string) => void;
}

/** Yield between slices of the block so HTTP and verify-worker replies are not held up. */
const pause = () => new Promise<void>((r) => setImmediate(r));

/**
 * The single writer of the chain, with three roles the messages select: the producer (on a
 * slot tick, in this validator's slots only: consensus/slots.ts), the importer (blocks from
 * peers, on the head or on a branch fork choice prefers, after undoing the blocks above the
 * fork point) and consensus's fork choice and finality (commitBlock). All writes go through
 * this one mailbox, so the store never sees two writers.
 */
export function chainBehavior(d: ChainDeps): Behavior<ChainMsg, ChainReplies> {
  const commitBlock = createBlockCommitter(d);
  const importOnHead = createImporter({ ...d, commitBlock });
  // Pool version whose candidates all failed to get in: no use re-trying until it changes.
  let barrenVersion = -1;
  // Set when a block signed with this node's key arrives that it did not produce: another
  // instance runs with the same key (a copied data directory); this one stops signing.
  let keyInUseElsewhere = false;
  const ownHashes = new Set<string>();

  async function produce(pending: SignedTx[][], now: number): Promise<number> {
    const started = performance.now();
    const parent = d.view.head;
    const height = parent.height + 1;
    const producer = d.keys.address;
    const timestamp = Math.max(now, parent.timestamp + 1);
    const slot = slotOf(timestamp, d.slotMs);
    const refused = d.guard.refusal(height, slot);
    if (refused) {
      d.log.warn({ height, slot, reason: refused }, 'not signing: double-sign protection');
      return 0;
    }
    const state = await StateTrie.open(d.kv, parent.stateRoot);
    // Load the block's likely accounts level by level in batched reads before executing.
    const likely = pending.flatMap((q) => q.slice(0, 4)).slice(0, MAX_TXS_PER_BLOCK);
    await state.prefetchAccounts([producer, TREASURY_ADDRESS, ...likely.flatMap((t) => (t.to ? [t.from, t.to] : [t.from]))]);
    const tPrefetched = performance.now();
    let tTxs = 0;
    const txsDone = () => void (tTxs = performance.now());
    const built = await buildBlock(state, orderedCandidates(pending), { height, timestamp, producer, maxTxs: MAX_TXS_PER_BLOCK, pause, txsDone });
    const tBuilt = performance.now();
    const batch = d.kv.batch();
    const stateRoot = await state.flush(batch);
    const tFlushed = performance.now();
    const block = sealBlock(d.keys, { parent, timestamp, producer, stateRoot, txs: built.txs, results: built.results, events: built.events });
    ownHashes.add(block.header.hash);
    await commitBlock({
      block, state, batch, dropped: built.dropped, started,
      // finish: the end-of-block work (machine ticks, rewards, unbonding, elections: finishBlock)
      phases: { prefetch: Math.round(tPrefetched - started), execute: Math.round(tTxs - tPrefetched), finish: Math.round(tBuilt - tTxs), trie: Math.round(tFlushed - tBuilt) },
    });
    // Durable before the block leaves the node (a block whose commit failed never left: it may be signed again).
    await d.guard.record(height, slot);
    d.onBlockProduced?.((performance.now() - started) / 1000);
    d.onProduced?.(block);
    return built.txs.length + built.dropped.length;
  }

  /** Undoes head blocks down to `height` (never below the finalized height); their transactions go back to the mempool. */
  async function rewindTo(height: number): Promise<Head> {
    let head = d.view.head;
    const undone: SignedTx[] = [];
    while (head.height > height) {
      if (head.height <= head.finalizedHeight) throw new Error(`cannot undo final block ${head.height}`);
      const block = await d.store.block(head.height);
      const batch = d.kv.batch();
      const restored = await d.store.undoBlock(batch, head.height);
      await d.kv.write(batch);
      undone.push(...(block?.txs ?? []));
      d.log.warn({ height: head.height, hash: head.hash, txs: block?.txs.length ?? 0, state: blockState(stepBlock(COMMITTED(head.height), { type: 'UNDONE' })) }, 'block undone (reorganization)');
      head = restored;
    }
    const state = await StateTrie.open(d.kv, head.stateRoot);
    void state; // the state at the restored root is already on disk: tries keep every root
    d.view.rewind(head);
    if (undone.length) d.mempool.send({ type: 'readmit', txs: undone });
    return head;
  }

  /**
   * Blocks from a peer, in height order (a gossiped block, or a sync page). Each either
   * extends the head, is already known, or starts a branch from an earlier block: the branch
   * is taken when fork choice prefers its last block over the head and its fork point is not
   * below the finalized height.
   */
  async function importBlocks(blocks: Block[], now: number): Promise<ImportOutcome> {
    const out: ImportOutcome = { imported: 0, known: 0, head: d.view.head };
    const preverified = blocks.length > 1 ? preverifyTxs(d.verifier, blocks) : undefined;
    preverified?.forEach((p) => p.catch(() => {})); // a crashed verifier is seen when awaited
    for (const [i, block] of blocks.entries()) {
      const h = block.header;
      const at = await d.store.heightOfHash(h.hash);
      if (at !== undefined) {
        out.known++;
        continue;
      }
      if (h.producer === d.keys.address && !ownHashes.has(h.hash)) {
        keyInUseElsewhere = true;
        d.log.error({ height: h.height, hash: h.hash }, 'a block signed with this node\'s validator key was produced elsewhere: this node stops signing (another instance runs with the same key)');
      }
      let head = d.view.head;
      if (h.parentHash !== head.hash) {
        const forkAt = await d.store.heightOfHash(h.parentHash);
        if (forkAt === undefined || forkAt !== h.height - 1) {
          d.log.debug({ height: h.height, hash: h.hash, state: blockState(stepBlock(receivedBlock(h.height), { type: 'ORPHANED' })) }, 'block parent unknown');
          return { ...out, orphan: true, head };
        }
        const tip = blocks[blocks.length - 1].header;
        if (forkAt < head.finalizedHeight) return { ...out, rejected: `branch forks at ${forkAt}, below the finalized height ${head.finalizedHeight}`, head };
        if (!prefers(tip, head)) return { ...out, stale: true, head };
        d.log.warn({ from: head.height, fork: forkAt, to: tip.height, tip: tip.hash }, 'reorganization: switching to a preferred branch');
        head = await rewindTo(forkAt);
        out.reorganized = (out.reorganized ?? 0) + 1;
      }
      const r = await importOnHead(block, now, await preverified?.[i]);
      if ('refused' in r) {
        d.log.warn({ height: h.height, hash: h.hash, producer: h.producer, state: blockState(r.lifecycle), reason: r.refused, index: i }, 'block rejected');
        d.onRejected?.(r.refused);
        return { ...out, rejected: r.refused, head: d.view.head };
      }
      out.imported++;
    }
    return { ...out, head: d.view.head };
  }

  return {
    async handle(msg) {
      switch (msg.type) {
        case 'slotTick': {
          const head = d.view.head;
          const slot = slotOf(Math.max(msg.now, head.timestamp + 1), d.slotMs);
          if (keyInUseElsewhere || slotProducer(d.view.validators, slot) !== d.keys.address || slot <= slotOf(head.timestamp, d.slotMs)) return undefined;
          const c = await d.mempool.ask({ type: 'collectCandidates' });
          const worthTrying = c.queues.length > 0 && c.version !== barrenVersion;
          // Included transactions wait for finality: keep producing until they are final.
          const awaitingFinality = d.view.recent.some((s) => s.txCount > 0 && s.height > head.finalizedHeight);
          // The idle pace rotates: the head's own producer waits one more period, so an idle period
          // that is a multiple of the schedule's round cannot leave every empty block to one validator.
          const idleFor = msg.now - head.timestamp;
          const idleDue = idleFor >= d.idleBlockMs && (d.view.validators.length === 1 || idleFor >= 2 * d.idleBlockMs || (d.view.recent.at(-1)?.producer ?? null) !== d.keys.address);
          if (!worthTrying && !awaitingFinality && !idleDue) return undefined;
          const moved = await produce(c.queues, msg.now);
          barrenVersion = moved === 0 ? c.version : -1;
          return undefined;
        }
        case 'importBlocks':
          return importBlocks(msg.blocks, msg.now);
      }
    },
  } as Behavior<ChainMsg, ChainReplies>;
}
