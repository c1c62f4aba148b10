import { blockRefusal } from '../../consensus/blockRules';
import { parentReads } from '../../chain/parentReads';
import { decodeReceived, verifyGroups, verifyJobsOf } from '../../chain/envelope';
import { decodeEthTx } from '../../chain/ethTx';
import { getSchedule } from '../../modules/staking';
import { applyBlock } from '../../chain/replay';
import type { BlockLifecycleEvent } from '../../machines/blockLifecycle';
import { scheduleRefusal } from '../../consensus/slots';
import type { VerifyPool } from '../../crypto/verifyPool';
import { handlerFor } from '../../modules/registry';
import { canonicalJson } from '../../primitives/canonical';
import type { Head } from '../../protocol/chain';
import type { Network } from '../../protocol/network';
import type { Block, HybridTx } from '../../protocol/types';
import type { KvStore } from '../../state/kv';
import { StateTrie } from '../../state/stateTrie';
import { behaviorOf, type Behavior } from '../actorRef';
import type { ImporterMsg, ImporterReplies, ImportVerdict, LifecycleReports } from '../protocol';

/**
 * The importer actor: a block from a peer (or a sync page) is checked and executed on its
 * parent state exactly as its producer did; the consensus actor then commits it through the
 * same commit path as this node's own blocks. Checks, cheapest first: schedule (slot, producer, clock), counts, link,
 * producer signature with its bound keys, tx root, every transaction's envelope and rules, the
 * transactions' signatures (in the verify pool, in parallel), then execution: each result,
 * the end-of-block events and the state root must be what the block says.
 */
export interface ImporterDeps {
  kv: KvStore;
  verifier: Pick<VerifyPool, 'verifyMany'>;
  slotMs: number;
  /** The chain this node runs: transactions are decoded and verified for it. */
  network: Network;
  /** The lifecycle actors: each block is reported verified, executed or rejected. */
  lifecycles?: LifecycleReports;
}

/** Why one of the block's transactions is not acceptable by itself (envelope, rules, id), or undefined. */
function txRefusal(block: Block, network: Network): string | undefined {
  for (const [i, tx] of block.txs.entries()) {
    if ((tx as { envelope?: unknown }).envelope === 'eth') {
      const raw = (tx as { raw?: unknown }).raw;
      const d = decodeEthTx(raw, tx.timestamp, network.chainId);
      if (!d.ok) return `transaction ${i}: ${d.error}`;
      if (canonicalJson(d.tx) !== canonicalJson(tx)) return `transaction ${i}: does not match its raw bytes`;
      continue;
    }
    const { decoded: d, same } = decodeReceived(tx, network);
    if (!d.ok) return `transaction ${i}: ${d.error}`;
    if (d.tx.id !== tx.id) return `transaction ${i}: id does not match its payload`;
    const rule = handlerFor(tx.type)?.validate(d.tx);
    if (rule) return `transaction ${i}: ${rule}`;
    // The decoded form, equal in every field, holds its signatures as bytes and knows its signing bytes: checking,
    // executing and storing the block take them as they are.
    if (same) block.txs[i] = d.tx;
  }
  return undefined;
}

export function importerBehavior(d: ImporterDeps): Behavior<ImporterMsg, ImporterReplies> {
  return behaviorOf<ImporterMsg, ImporterReplies>({
    execute: (msg) => executeOn(msg.parent, msg.block, msg.now, msg.preverified),
  });

  /**
   * Checks and executes `block` on `parent` and returns it ready to commit, or the reason it
   * is rejected; each step is reported to the block lifecycle actor (machines/blockLifecycle.ts).
   * Writes nothing: a refusal leaves everything as it was.
   */
  async function executeOn(
    parent: Head,
    block: Block,
    now: number,
    preverified?: WeakSet<object>,
  ): Promise<ImportVerdict> {
    const started = performance.now();
    const h = block.header;
    const report = (event: BlockLifecycleEvent) =>
      d.lifecycles?.blocks.send({ type: 'step', hash: h.hash, height: h.height, event });
    const rejected = (reason: string) => {
      report({ type: 'REJECTED', reason });
      return { refused: reason };
    };
    const state = await StateTrie.open(d.kv, parent.stateRoot);
    // The set in force in the parent state schedules this block (an elected set waits for finality).
    const { active } = await getSchedule(state);
    const refused =
      scheduleRefusal(h, parent.timestamp, active, d.slotMs, now) ??
      (await blockRefusal(parentReads(state), block, parent, d.verifier)) ??
      txRefusal(block, d.network) ??
      (await signaturesRefusal(block, preverified));
    if (refused) return rejected(refused);
    report({ type: 'VERIFIED' });
    const tChecked = performance.now();
    let executed: string | undefined;
    try {
      // signaturesRefusal passed them all
      executed = await applyBlock(state, block, d.network, { nestedVerified: true });
    } catch (e) {
      // Not a transaction outcome (a bug a transaction triggers, as the producer's buildBlock
      // drops): this node cannot execute the block, so it does not take it, and goes on.
      return rejected(`execution failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (executed) return rejected(executed);
    const tExecuted = performance.now();
    const batch = d.kv.batch();
    const root = await state.flush(batch);
    if (root !== h.stateRoot) return rejected(`state root ${root} differs from the header's ${h.stateRoot}`);
    report({ type: 'EXECUTED' });
    const tFlushed = performance.now();
    return {
      executed: {
        block,
        state,
        batch,
        dropped: [],
        started,
        phases: {
          verify: Math.round(tChecked - started),
          execute: Math.round(tExecuted - tChecked),
          trie: Math.round(tFlushed - tExecuted),
        },
      },
    };
  }

  async function signaturesRefusal(block: Block, preverified?: WeakSet<object>): Promise<string | undefined> {
    // Transactions whose signatures a batch check already passed (a sync page, verified at once) are not checked twice.
    const hybrid = block.txs.filter(
      (t): t is HybridTx => (t as { envelope?: unknown }).envelope !== 'eth' && !preverified?.has(t),
    );
    if (hybrid.length === 0) return undefined;
    const ok = await verifyGroups(
      (jobs) => d.verifier.verifyMany(jobs),
      hybrid.map((t) => verifyJobsOf(t, d.network)),
    );
    const bad = ok.findIndex((x) => !x);
    return bad < 0 ? undefined : `transaction ${hybrid[bad].id}: invalid signature`;
  }
}

/** The checks preverifyTxs started, by block object: a sync page checked as it arrived is not checked again. */
const started = new WeakMap<Block, { network: Network; passed: Promise<WeakSet<object>> }>();

/**
 * Starts checking the signatures of every hybrid transaction of a run of blocks at once, one
 * batch per block (the verify pool's workers stay busy while the main thread executes the
 * earlier blocks), and gives each block the set of its transactions that passed. A
 * transaction not in its set is checked again, and refused, when its block is imported.
 * Once per block object: the sync starts the checks of the page it fetched ahead while the
 * consensus actor imports the one before (network/p2pActor.ts), and the import then awaits
 * the same checks.
 */
export function preverifyTxs(
  verifier: Pick<VerifyPool, 'verifyMany'>,
  blocks: Block[],
  network: Network,
  /** False for blocks a sync fetched ahead: signatures this node never saw, kept out of the pool's cache (VerifyPool.verify). */
  cached = true,
): Promise<WeakSet<object>>[] {
  return blocks.map((b) => {
    const known = started.get(b);
    if (known?.network === network) return known.passed;
    const passed = checkBlock(verifier, b, network, cached);
    // A crashed verifier is seen where it is awaited, and the next import of the block checks it anew.
    passed.catch(() => started.delete(b));
    started.set(b, { network, passed });
    return passed;
  });
}

async function checkBlock(
  verifier: Pick<VerifyPool, 'verifyMany'>,
  b: Block,
  network: Network,
  cached: boolean,
): Promise<WeakSet<object>> {
  const txs: HybridTx[] = [];
  const groups = [];
  const decoded: (HybridTx | undefined)[] = [];
  for (const t of b.txs) {
    if ((t as { envelope?: unknown }).envelope === 'eth') continue;
    try {
      // Checked in the decoded form when it is exactly the received one (bytes at hand); the import puts it in
      // the block (txRefusal), so both objects pass.
      const r = decodeReceived(t, network);
      const dec = r.same && r.decoded.ok ? r.decoded.tx : undefined;
      groups.push(verifyJobsOf(dec ?? (t as HybridTx), network));
      txs.push(t as HybridTx);
      decoded.push(dec);
    } catch {
      /* malformed: the import refuses it with its reason */
    }
  }
  const passed = new WeakSet<object>();
  if (groups.length === 0) return passed;
  const verdicts = await verifyGroups((jobs) => verifier.verifyMany(jobs, cached), groups);
  for (const [i, v] of verdicts.entries()) {
    if (!v) continue;
    passed.add(txs[i]);
    if (decoded[i]) passed.add(decoded[i]);
  }
  return passed;
}
