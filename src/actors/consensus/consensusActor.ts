import type { Logger } from 'pino';
import { epochStep, voteAt } from '../../consensus/checkpoints';
import { countingMembers } from '../../consensus/finality';
import { branchChoice } from '../../consensus/forkChoice';
import { aheadOfClock, arrivedLate, idleTurn, ownsSlot, scheduleRefusal, slotOf } from '../../consensus/slots';
import { headerRefusal } from '../../consensus/blockRules';
import { verifyHeader } from '../../chain/block';
import type { VerifyPool } from '../../crypto/verifyPool';
import { getSchedule, producerKeysOf } from '../../modules/staking';
import type { Head } from '../../protocol/chain';
import type { Address, Block, SignedBlockHeader, SignedTx } from '../../protocol/types';
import type { KvStore } from '../../state/kv';
import { StateTrie } from '../../state/stateTrie';
import { standaloneModes, type ModesActor } from '../modesActor';
import { behaviorOf, type ActorRef, type Behavior } from '../actorRef';
import { createBlockCommitter, type CommitDeps } from './commitBlock';
import { createHistoryPruner, type HistoryWindow } from './historyPruner';
import { createStateGc } from './stateGc';
import { preverifyTxs } from './importer';
import type { BlockWorkGate } from './blockWork';
import type { Network } from '../../protocol/network';
import type {
  ConsensusMsg,
  ConsensusReplies,
  ImporterMsg,
  ImporterReplies,
  ImportOutcome,
  ProducerMsg,
  ProducerReplies,
} from '../protocol';

export interface ConsensusDeps extends CommitDeps {
  kv: KvStore;
  /** This validator's address (its slots in the schedule). */
  self: Address;
  idleBlockMs: number;
  slotMs: number;
  network: Network;
  verifier: Pick<VerifyPool, 'verifyMany'>;
  producer: Pick<ActorRef<ProducerMsg, ProducerReplies>, 'ask'>;
  importer: Pick<ActorRef<ImporterMsg, ImporterReplies>, 'ask'>;
  log: Logger;
  /** --dev: devMine and devRewind are served (refused otherwise). */
  dev?: boolean;
  /** How much block history the store keeps (--history; default: every block). */
  history?: HistoryWindow;
  /** Every Nth final block's state is kept for nodes joining by state sync (--snapshot-interval; default none). */
  snapshotInterval?: number;
  /**
   * The clock devMine keeps the head within DEV_MINE_AHEAD_SLOTS of (slot ticks carry their own time); default
   * Date.now.
   */
  now?: () => number;
  /** Block building and gossiped blocks' import run as block work: admission waits for them (blockWork.ts). */
  blockWork?: BlockWorkGate;
  /** Observes each block's build + commit time in seconds (metrics). */
  onBlockProduced?: (seconds: number) => void;
  /** A block of ours, committed: the p2p actor gossips it. */
  onProduced?: (block: Block) => void;
  /** A block was refused (the reason is logged): metrics and peer scoring. */
  onRejected?: (reason: string) => void;
  /** A header from a peer (before any check): the sentinel looks for double signs. */
  onHeaderSeen?: (header: SignedBlockHeader) => void;
  /**
   * Blocks undone by a reorganization (newest first) and the head they left: the machine views re-read what they
   * touched.
   */
  onUndone?: (blocks: Block[], head: Head) => void;
  /**
   * The node's modes actor: this actor reports election and a key seen elsewhere, and signs only while not halted (its
   * own when absent: tests, tools).
   */
  modes?: ModesActor;
}

/** How far ahead of the clock POST /dev/mine may put the head (in slots). */
export const DEV_MINE_AHEAD_SLOTS = 4;

const OWN_BLOCKS_KEPT = 4_096;

/**
 * The consensus actor: the slot clock (is this slot ours, is a block worth making), fork
 * choice, finality as the committed state says, and the one writer of the chain. It asks the
 * producer actor for a block in its slots and the importer actor to check and execute blocks
 * from peers, and commits what they return (commitBlock) — or, for a branch fork choice
 * prefers, first undoes the blocks above the fork point. Everything that writes the store
 * passes through this one mailbox.
 */
export function consensusBehavior(d: ConsensusDeps): Behavior<ConsensusMsg, ConsensusReplies> {
  const history = d.history ?? 'archive';
  const pruneHistory = createHistoryPruner({ ...d, history });
  const stateGc = createStateGc({ ...d, history });
  const commitBlock = createBlockCommitter({ ...d, beforeWrite: stateGc.noteWritten });
  // Pool version whose candidates all failed to get in: no use re-trying until it changes.
  let barrenVersion = -1;
  // Idle time counts from this start at the earliest: a node started on an old head (a fresh
  // --dev node's genesis) does not fire an idle block the moment it starts.
  let startedAt: number | undefined; // the first slot tick's time
  // Set when a block whose signatures verify against this node's own keys arrives at a height
  // where this node signed a different block: another instance runs with the same key (a
  // copied data directory); this one stops signing. Only a verified header can set it.
  const modes = d.modes ?? standaloneModes();
  // The blocks this process signed, by height (the latest OWN_BLOCKS_KEPT).
  const ownBlocks = new Map<number, string>();
  // The head, when its block came in its slot (made here, or imported before its slot ended): fork choice gives it an
  // equal-height tie against a block that comes late. Unknown after a restart or a rewind: counted as late.
  let headInTime: string | undefined;

  async function produce(pending: SignedTx[][], now: number): Promise<number> {
    const parent = d.view.head;
    const sch = await getSchedule(await StateTrie.open(d.kv, parent.stateRoot));
    const v = voteAt(sch.epochs, parent.height + 1, sch.active.length, sch.finalizedHeight);
    // The target is an ancestor on this chain, or the block about to be signed (its hash comes with it).
    const hash = v.target.height <= parent.height ? (await d.store.summary(v.target.height))?.hash : undefined;
    const vote = { target: { epoch: v.target.epoch, hash }, source: v.source.epoch };
    const built = await d.producer.ask({ type: 'build', parent, now, pending, vote });
    if (!built) return 0;
    const { block, slot } = built;
    ownBlocks.set(block.header.height, block.header.hash);
    // The stored chain remembers the rest; these cover blocks of ours a reorganization took away.
    if (ownBlocks.size > OWN_BLOCKS_KEPT) ownBlocks.delete(ownBlocks.keys().next().value!);
    await commitBlock(built);
    headInTime = block.header.hash;
    // An abstaining block records its height and slot, and no vote.
    const signed = block.header.abstain
      ? undefined
      : { ...vote, target: { epoch: vote.target.epoch, hash: hash ?? block.header.hash } };
    await d.producer.ask({ type: 'signed', height: block.header.height, slot, vote: signed });
    d.onBlockProduced?.((performance.now() - built.started) / 1000);
    d.onProduced?.(block);
    return built.considered;
  }

  /**
   * Undoes head blocks down to `height` (never below the finalized height); their transactions
   * go back to the mempool. `dev` (POST /dev/revert on a --dev node): below finality too, and
   * the undone transactions are dropped, so the chain is exactly what it was at `height`.
   */
  async function rewindTo(height: number, dev = false): Promise<Head> {
    let head = d.view.head;
    // This node's final height never goes back, even if the restored blocks' state says less.
    const finalizedHeight = dev ? Math.min(head.finalizedHeight, height) : head.finalizedHeight;
    const undoneBlocks: Block[] = [];
    while (head.height > height) {
      if (head.height <= finalizedHeight) throw new Error(`cannot undo final block ${head.height}`);
      const block = await d.store.block(head.height);
      const batch = d.kv.batch();
      const restored = await d.store.undoBlock(batch, head.height);
      await d.kv.write(batch);
      if (block) undoneBlocks.push(block);
      d.lifecycles?.blocks.send({ type: 'step', hash: head.hash, height: head.height, event: { type: 'UNDONE' } });
      d.log.warn(
        { height: head.height, hash: head.hash, txs: block?.txs.length ?? 0 },
        'block undone (reorganization)',
      );
      head = { ...restored, finalizedHeight: Math.max(restored.finalizedHeight, finalizedHeight) };
    }
    d.view.rewind(head, (await getSchedule(await StateTrie.open(d.kv, head.stateRoot))).active);
    // Chain order, oldest block first: each sender's nonces come back ascending (newest first, the higher ones
    // were refused as gapped and the lower ones left a hole nothing filled).
    const undone: SignedTx[] = [...undoneBlocks].reverse().flatMap((b) => b.txs);
    if (undone.length) d.lifecycles?.txs.send({ type: 'undone', ids: undone.map((t) => t.id) });
    if (undone.length && !dev) d.mempool.send({ type: 'readmit', txs: undone });
    if (undoneBlocks.length) d.onUndone?.(undoneBlocks, head);
    return head;
  }

  /**
   * --dev: `count` blocks now, in the slots right after the head's (past timestamps while the
   * head lags the clock, as a fresh node's genesis does), with what the mempool holds. The head
   * never runs more than DEV_MINE_AHEAD_SLOTS ahead of the clock: a request that would is
   * refused whole, before anything is mined (production would have to wait for the clock).
   */
  async function devMine(count: number): Promise<{ from: number; to: number } | { refused: string }> {
    const from = d.view.head.height + 1;
    const nowSlot = slotOf((d.now ?? Date.now)(), d.slotMs);
    const firstSlot = slotOf(d.view.head.timestamp, d.slotMs) + 1;
    const room = nowSlot + DEV_MINE_AHEAD_SLOTS - firstSlot + 1;
    // A refusal is an answer, not a crash (a throw here would stop this critical actor).
    if (count > room)
      return {
        refused:
          `cannot mine ${count} blocks now: the head may run at most ${DEV_MINE_AHEAD_SLOTS} slots ahead of the ` +
          `clock (room for ${Math.max(0, room)} now; retry later or mine fewer)`,
      };
    for (let i = 0; i < count; i++) {
      const head = d.view.head;
      const c = await d.mempool.ask({ type: 'collectCandidates' });
      await produce(c.queues, (firstSlot + i) * d.slotMs);
      if (d.view.head.height === head.height)
        return { refused: `block ${head.height + 1} was not produced (see the log)` };
    }
    return { from, to: d.view.head.height };
  }

  /**
   * The headers of a branch forking after height `forkAt`, checked before anything is undone
   * for it: the first against the fork block's state (schedule, link, signature), the rest
   * linked to each other and signed with the keys bound in that state (a member's keys are
   * bound before it is elected, from final state, so they are there).
   */
  async function branchRefusal(branch: Block[], forkAt: number, now: number): Promise<string | undefined> {
    const fork = (await d.store.block(forkAt))?.header;
    if (!fork) return `fork block ${forkAt} is not stored`;
    const state = await StateTrie.open(d.kv, fork.stateRoot);
    const first = branch[0].header;
    const { active } = await getSchedule(state);
    const reads = { producerKeys: (p: Address) => producerKeysOf(state, p) };
    const schedule = scheduleRefusal(first, fork.timestamp, active, d.slotMs, now);
    if (schedule) return schedule;
    for (const [j, b] of branch.entries()) {
      const refused = await headerRefusal(reads, b.header, j === 0 ? fork : branch[j - 1].header, d.verifier);
      if (refused) return `block ${b.header.height} (${b.header.hash}): ${refused}`;
    }
    return undefined;
  }

  /**
   * A header naming this node as producer that it did not make. Another instance signs with
   * this key only if the header verifies against our bound keys and we signed a different
   * block at its height (one we made in this process, or our block in the stored chain): then
   * this node stops signing (two headers at a height are slashable). Nothing unverified counts.
   */
  async function ownKeySeen(h: SignedBlockHeader): Promise<void> {
    const stored = await d.store.summary(h.height);
    const ours = ownBlocks.get(h.height) ?? (stored?.producer === d.self ? stored.hash : undefined);
    if (ours === undefined || ours === h.hash) return;
    const keys = await producerKeysOf(await StateTrie.open(d.kv, d.view.head.stateRoot), d.self);
    if (!keys || verifyHeader(h, keys) !== undefined) return; // forged: the import refuses it with its reason
    if (modes.current().signing !== 'halted')
      await modes.ref.ask({ type: 'KEY_IN_USE_ELSEWHERE', height: h.height, hash: h.hash });
    d.log.error(
      { height: h.height, hash: h.hash, ours },
      "a block signed with this node's validator key was produced elsewhere at a height this node signed: " +
        'this node stops signing (another instance runs with the same key)',
    );
  }

  /**
   * Blocks from a peer, in height order (a gossiped block, or a sync page). Each either
   * extends the head, is already known, or starts a branch from an earlier block: the branch
   * is taken when fork choice prefers its last block over the head and its fork point is not
   * below the finalized height.
   */
  async function importBlocks(all: Block[], now: number): Promise<ImportOutcome> {
    // A block ahead of this node's clock is not refused: it is not taken yet (nor any after it), and the next sync
    // takes it once the clock has reached it. Refused, it counted against the peer that sent it: a node whose clock ran
    // a second late dropped every peer for invalid blocks and never followed the chain again (the simulator).
    const cut = all.findIndex((b) => aheadOfClock(b.header.timestamp, now, d.slotMs) !== undefined);
    if (cut < 0) return importTimely(all, now);
    const b = all[cut].header;
    const early = `${aheadOfClock(b.timestamp, now, d.slotMs)}: #${b.height} ${b.hash}, taken once the clock reaches it`;
    const out: ImportOutcome =
      cut > 0 ? await importTimely(all.slice(0, cut), now) : { imported: 0, known: 0, head: d.view.head };
    return out.rejected ? out : { ...out, early };
  }

  async function importTimely(blocks: Block[], now: number): Promise<ImportOutcome> {
    const out: ImportOutcome = { imported: 0, known: 0, head: d.view.head };
    // Signatures are checked ahead, all at once, from the first block not stored (a sync page that starts with
    // blocks we have, or a held branch sent again, costs no verification for those), and only once the branch
    // they start is to be taken (below).
    let preverified: Promise<WeakSet<object>>[] | undefined;
    let firstNew = -1;
    for (const [i, block] of blocks.entries()) {
      const h = block.header;
      const at = await d.store.heightOfHash(h.hash);
      if (at !== undefined) {
        out.known++;
        continue;
      }
      if (firstNew < 0) firstNew = i;
      d.onHeaderSeen?.(h);
      if (h.producer === d.self) await ownKeySeen(h);
      let head = d.view.head;
      if (h.parentHash !== head.hash) {
        const forkAt = await d.store.heightOfHash(h.parentHash);
        if (forkAt === undefined || forkAt !== h.height - 1) {
          d.lifecycles?.blocks.send({ type: 'step', hash: h.hash, height: h.height, event: { type: 'ORPHANED' } });
          d.log.debug({ height: h.height, hash: h.hash }, 'block parent unknown');
          return { ...out, orphan: true, head };
        }
        const tip = blocks[blocks.length - 1].header;
        const justifiedHeight = await branchJustified(forkAt, blocks.slice(i));
        const choice = branchChoice(
          { ...tip, justifiedHeight, late: arrivedLate(tip.timestamp, now, d.slotMs) },
          forkAt,
          { ...head, late: head.hash !== headInTime },
        );
        if (typeof choice === 'object') {
          rejectedBranch(h, choice.refused);
          return { ...out, rejected: choice.refused, belowFinal: true, head };
        }
        if (choice === 'stale') return { ...out, stale: true, head };
        // Nothing is undone for a branch before its headers verify: a forged sibling must not move the head.
        const unsigned = await branchRefusal(blocks.slice(i), forkAt, now);
        if (unsigned) {
          d.log.warn(
            { height: h.height, hash: h.hash, producer: h.producer, reason: unsigned },
            'branch rejected before any block was undone',
          );
          rejectedBranch(h, unsigned);
          return { ...out, rejected: unsigned, head };
        }
        d.log.warn(
          { from: head.height, fork: forkAt, to: tip.height, tip: tip.hash },
          'reorganization: switching to a preferred branch',
        );
        head = await rewindTo(forkAt);
        out.reorganized = (out.reorganized ?? 0) + 1;
      }
      if (!preverified && blocks.length - firstNew > 1) {
        preverified = preverifyTxs(d.verifier, blocks.slice(firstNew), d.network);
        for (const p of preverified) p.catch(() => {}); // a crashed verifier is seen when awaited
      }
      const r = await d.importer.ask({
        type: 'execute',
        block,
        parent: head,
        now,
        preverified: await preverified?.[i - firstNew],
      });
      if ('refused' in r) {
        d.log.warn(
          { height: h.height, hash: h.hash, producer: h.producer, reason: r.refused, index: i },
          'block rejected',
        );
        d.onRejected?.(r.refused);
        return { ...out, rejected: r.refused, head: d.view.head };
      }
      const committed = await commitBlock(r.executed);
      headInTime = arrivedLate(h.timestamp, now, d.slotMs) ? undefined : h.hash;
      d.log.debug({ height: h.height, finalizedHeight: committed.finalizedHeight }, 'block imported');
      out.imported++;
    }
    return { ...out, head: d.view.head };
  }

  /**
   * The last justified checkpoint at the end of a branch from `forkAt`, counted over its
   * headers from the fork block's schedule (a change of the set inside the branch is not
   * seen: fork choice needs the weight, the branch's own execution decides finality).
   */
  async function branchJustified(forkAt: number, blocks: Block[]): Promise<number> {
    const root = (await d.store.summary(forkAt))?.stateRoot;
    if (!root) return 0;
    const sch = await getSchedule(await StateTrie.open(d.kv, root));
    const counting = countingMembers(sch);
    let epochs = sch.epochs;
    for (const b of blocks)
      epochs = epochStep(epochs, b.header, counting, sch.active.length, sch.finalizedHeight).epochs;
    return epochs?.justified.height ?? sch.finalizedHeight;
  }

  /** A branch refused as a whole: its first block is reported rejected. */
  function rejectedBranch(h: SignedBlockHeader, reason: string): void {
    d.lifecycles?.blocks.send({ type: 'step', hash: h.hash, height: h.height, event: { type: 'REJECTED', reason } });
    d.onRejected?.(reason);
  }

  /**
   * Whether this node signs now: elected (the set in force names its key) and not halted; reports a change of election
   * to the modes.
   */
  async function signing(): Promise<boolean> {
    const now = modes.current().signing;
    if (now === 'halted') return false;
    const elected = d.view.validators.includes(d.self);
    if (elected !== (now === 'producing')) await modes.ref.ask({ type: elected ? 'ELECTED' : 'UNELECTED' });
    return elected;
  }

  /** A slot: this node's block when the slot is its own and a block is worth making. */
  async function slot(msg: { now: number }): Promise<void> {
    const head = d.view.head;
    if (!(await signing())) return;
    if (!ownsSlot(d.view.validators, d.self, head.timestamp, msg.now, d.slotMs)) return;
    const c = await d.mempool.ask({ type: 'collectCandidates' });
    const worthTrying = c.queues.length > 0 && c.version !== barrenVersion;
    // Included transactions wait for finality: keep producing until they are final.
    const awaitingFinality = d.view.recent.some((s) => s.txCount > 0 && s.height > head.finalizedHeight);
    const idleDue = idleTurn(
      d.view.validators,
      d.view.recent.at(-1)?.producer ?? null,
      d.self,
      msg.now - Math.max(head.timestamp, (startedAt ??= msg.now)),
      d.idleBlockMs,
      d.slotMs,
    );
    if (!worthTrying && !awaitingFinality && !idleDue) return;
    const moved = d.blockWork
      ? await d.blockWork.during(() => produce(c.queues, msg.now))
      : await produce(c.queues, msg.now);
    barrenVersion = moved === 0 ? c.version : -1;
  }

  return behaviorOf<ConsensusMsg, ConsensusReplies>({
    async slotTick(msg) {
      await slot(msg);
      // After the slot's own block, never before it: pruning and collecting are bounded work, and not urgent.
      await pruneHistory();
      await stateGc.step();
    },
    // A gossiped block is time-critical (the next slot builds on it); a sync page is not, and would hold admission for
    // its whole length.
    importBlocks: (msg) =>
      d.blockWork && msg.blocks.length === 1
        ? d.blockWork.during(() => importBlocks(msg.blocks, msg.now))
        : importBlocks(msg.blocks, msg.now),
    devMine(msg) {
      if (!d.dev) throw new Error('devMine: not a --dev node');
      return devMine(msg.count);
    },
    async devRewind(msg) {
      if (!d.dev) throw new Error('devRewind: not a --dev node');
      const head = await rewindTo(msg.height, true);
      await d.producer.ask({ type: 'devForget', height: head.height, slot: slotOf(head.timestamp, d.slotMs) });
      return head;
    },
  });
}
