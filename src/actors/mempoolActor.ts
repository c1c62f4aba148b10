import type { Logger } from 'pino';
import type { AccountState, Address } from '../protocol/types';
import type { TxPool, DroppedEntry } from '../mempool/pool';
import { REFUSAL } from '../protocol/txRefusals';
import { pqKeyHashOf } from '../crypto/txSigning';
import type { Hex } from '../primitives/hex';
import { behaviorOf, type ActorRef, type Behavior } from './actorRef';
import type { AdmitVerdict, LifecycleReports, MempoolLookup, MempoolMsg, MempoolReplies } from './protocol';

export interface MempoolDeps {
  pool: TxPool; // owned by the node so a restart of this actor loses no pending transaction
  recent: Map<Hex, MempoolLookup>; // dropped transactions (the lifecycle actor has why), bounded
  readAccount: (addr: Address) => Promise<AccountState | undefined>; // at the current head
  inChain: (id: Hex) => Promise<boolean>;
  now: () => number;
  log: Logger;
  /** The transaction lifecycle actor: told what this pool admitted and dropped. */
  lifecycles?: Pick<LifecycleReports, 'txs'>;
}

const RECENT_MAX = 10_000;

export function mempoolBehavior(d: MempoolDeps): Behavior<MempoolMsg, MempoolReplies> {
  const remember = (tx: MempoolLookup['tx'], receivedAt: number, reason: string, code: string | undefined) => {
    d.recent.set(tx.id, { tx, receivedAt, pending: false });
    if (d.recent.size > RECENT_MAX) d.recent.delete(d.recent.keys().next().value!);
    d.lifecycles?.txs.send({ type: 'dropped', drops: [{ id: tx.id, reason, code }] });
  };
  const admitted = (id: Hex) => d.lifecycles?.txs.send({ type: 'admitted', ids: [id] });
  let admissions = 0; // accepted since this behaviour started (the sentinel reads the rate)
  /** Evicted or expired: `/tx/:id` answers `dropped` with the reason, as for a transaction the producer dropped. */
  /**
   * `quiet`: an eviction admission made room with (one at a time, as often as transactions come under overload): each
   * at debug only. Every drop is in its lifecycle either way (GET /tx/:id answers `dropped` with the reason).
   */
  const dropped = (out: DroppedEntry[], at: number, quiet = false) => {
    if (out.length === 0) return;
    const reasons: Record<string, number> = {};
    for (const e of out) {
      remember(e.tx, e.receivedAt, e.reason, e.code);
      reasons[e.reason] = (reasons[e.reason] ?? 0) + 1;
      d.log.debug(
        { id: e.tx.id, from: e.tx.from, nonce: e.tx.nonce, reason: e.reason, pendingMs: at - e.receivedAt },
        'tx dropped',
      );
    }
    // One line per batch at info: under overload a line per transaction was thousands a minute (each one still at
    // debug, and in its lifecycle: GET /tx/:id answers `dropped` with the reason).
    if (!quiet) d.log.info({ count: out.length, reasons }, 'transactions dropped from the mempool');
  };

  return behaviorOf<MempoolMsg, MempoolReplies>({
    async admit({ tx, keyHash }) {
      const acc = await d.readAccount(tx.from);
      const now = d.now();
      let refused = d.pool.admit(tx, acc, keyHash, now);
      dropped(d.pool.takeEvicted(), now, true);
      // A resubmission racing its own inclusion: the block took it after admission's check.
      if (refused?.code === REFUSAL.nonceUsed.code && (await d.inChain(tx.id))) refused = REFUSAL.known;
      const verdict: AdmitVerdict = refused
        ? { accepted: false, id: tx.id, reason: refused.reason, code: refused.code }
        : { accepted: true, id: tx.id };
      if (refused) d.log.debug({ id: tx.id, reason: refused.reason, code: refused.code }, 'tx refused');
      else {
        admissions++;
        admitted(tx.id);
      }
      return verdict;
    },
    collectCandidates: () => ({ version: d.pool.version, queues: d.pool.bySenderSorted() }),
    blockCommitted(msg) {
      const now = d.now();
      for (const id of msg.included) d.pool.remove(id, now, true);
      // Nonces the block used with transactions this pool did not hold (a peer's block).
      for (const [from, nonce] of msg.nonces ?? []) d.pool.rebase(from, nonce + 1, now);
      for (const { id, reason, code, internal } of msg.dropped) {
        const e = d.pool.get(id);
        if (!e) continue;
        d.pool.remove(id, now);
        remember(e.tx, e.receivedAt, reason, code);
        if (internal !== undefined)
          d.log.error(
            { id, reason, code, error: internal },
            'tx dropped: its execution threw (a bug in this node; please report it with this line)',
          );
        else d.log.info({ id, reason, code }, 'tx dropped');
      }
    },
    async readmit({ txs }) {
      const summary = { back: 0, included: 0, dropped: 0 };
      // In chain order (each sender's nonces ascending): every one finds its predecessor already back.
      for (const tx of txs) {
        const acc = await d.readAccount(tx.from);
        const now = d.now();
        const refused = d.pool.admit(tx, acc, pqKeyHashOf(tx), now, true);
        dropped(d.pool.takeEvicted(), now, true);
        if (!refused) admitted(tx.id);
        // Still pending, or included again by the branch that replaced its block: not dropped.
        const kept =
          refused === undefined ||
          refused.code === REFUSAL.known.code ||
          (refused.code === REFUSAL.nonceUsed.code && (await d.inChain(tx.id)));
        if (!kept) remember(tx, now, refused.reason, refused.code);
        summary[refused === undefined ? 'back' : kept ? 'included' : 'dropped']++;
        d.log.debug(
          { id: tx.id, readmitted: refused === undefined, reason: refused?.reason, code: refused?.code },
          kept ? 'tx of an undone block' : 'tx of an undone block dropped: no longer valid on the new chain',
        );
      }
      if (txs.length > 0)
        d.log.info(
          summary,
          'transactions of undone blocks: back in the mempool, in the new chain already, or dropped (no longer valid)',
        );
    },
    async expire(msg) {
      // A nonce used outside this pool's view (a relayed inner transaction) may make a sender
      // look gapped when it is not: read the head before expiring on that ground.
      for (const sender of d.pool.dueGappedSenders(msg.now)) {
        const acc = await d.readAccount(sender);
        d.pool.rebase(sender, acc?.nonce ?? 0, msg.now, true);
      }
      dropped(d.pool.expire(msg.now), msg.now);
    },
    nextNonce: (msg) => d.pool.nextNonce(msg.address, msg.accountNonce),
    lookup(msg) {
      const e = d.pool.get(msg.id);
      if (e) return { tx: e.tx, receivedAt: e.receivedAt, pending: true } satisfies MempoolLookup;
      return d.recent.get(msg.id);
    },
    list: (msg) => ({ size: d.pool.size, entries: d.pool.list(msg.limit) }),
    stats: () => ({ size: d.pool.size, cap: d.pool.opts.cap, admitted: admissions }),
  });
}

/**
 * The pool's expiry on a timer: often enough that a gapped transaction outlives its lifetime
 * by at most a quarter of it (every 1 s to 60 s). Returns the function that stops it.
 */
export function startExpiry(
  mempool: Pick<ActorRef<MempoolMsg, MempoolReplies>, 'send'>,
  gappedLifetimeMs: number,
  now: () => number,
): () => void {
  const everyMs = Math.min(60_000, Math.max(1_000, Math.floor(gappedLifetimeMs / 4)));
  const timer = setInterval(() => mempool.send({ type: 'expire', now: now() }), everyMs);
  return () => clearInterval(timer);
}
