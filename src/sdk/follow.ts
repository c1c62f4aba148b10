import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { CairnError } from '../errors/CairnError';
import type {
  Direction,
  ProposalView,
  TaskView,
  TransferStatus,
  TxSummary,
  BridgeTransferView,
  TaskStatus,
  ProposalStatus,
} from '../views';
import type { BlockRecord, CairnClient } from './client';

/**
 * Followers: the node pushes nothing, so a program polls. Each follower is an async iterator
 * over one feed that keeps a cursor (a height) and can store it, so a restarted program goes
 * on where it stopped. It waits out 429 (Retry-After), 503 (a syncing node) and transport
 * errors instead of failing.
 *
 * The guarantee: **every event is emitted once, and only once it is final** (its height is at
 * or below the finalized height). A reorganization can only replace blocks above finality, so
 * nothing emitted is ever taken back, and nothing is skipped: the cursor moves to a height only
 * after every event up to it was emitted. The cost is latency: events arrive when final
 * (a few blocks). A page's cursor is stored once its last event has been handed out and the
 * loop asks for the next one or ends (break, return, or an exception thrown in its body: handle
 * a failure inside the loop if the event must come again). A program killed while handling an
 * event sees that page again after its restart: at least once across crashes, exactly once
 * within a run.
 */

/** Where a follower keeps its cursor between runs. */
export interface CursorStore {
  load(): number | null | Promise<number | null>;
  save(cursor: number): void | Promise<void>;
}

/** A cursor in a JSON file, replaced atomically (a crash leaves the old one or the new one). */
export function fileCursor(path: string): CursorStore {
  return {
    load: () => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { cursor: number }).cursor : null),
    save: (cursor) => {
      writeFileSync(`${path}.tmp`, JSON.stringify({ cursor }));
      renameSync(`${path}.tmp`, path);
    },
  };
}

export interface FollowOptions {
  /** Start after this height when no stored cursor exists (default: 0, from genesis; `'final'`: from now). */
  since?: number | 'final';
  cursor?: CursorStore;
  /** Wait between polls that found nothing new (default 1,000 ms). */
  pollMs?: number;
  /** Stops the iterator (it returns at its next wait). */
  signal?: AbortSignal;
  /** Told about every wait on a 429, 503 or transport error. */
  onRetry?: (info: { code: string; waitMs: number }) => void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** Runs `f`, waiting out 429 (its Retry-After), 503 and transport errors; other errors are thrown. */
export async function retrying<T>(
  f: () => Promise<T>,
  o: { signal?: AbortSignal; onRetry?: FollowOptions['onRetry'] } = {},
): Promise<T> {
  for (;;) {
    try {
      return await f();
    } catch (e) {
      if (!(e instanceof CairnError) || o.signal?.aborted) throw e;
      const status = typeof e.meta.status === 'number' ? e.meta.status : 0;
      if (status !== 429 && status !== 503 && e.code !== 'NETWORK' && e.code !== 'TIMEOUT') throw e;
      const waitMs = typeof e.meta.retryAfterMs === 'number' ? e.meta.retryAfterMs : 1_000;
      o.onRetry?.({ code: e.code, waitMs });
      await sleep(waitMs, o.signal);
    }
  }
}

/**
 * The loop every follower shares: load the cursor, ask `page(cursor)` for the events after it
 * (final only) and the height they cover, emit them, store the new cursor, wait when idle.
 */
async function* follow<E>(
  client: CairnClient,
  o: FollowOptions,
  page: (cursor: number) => Promise<{ events: E[]; cursor: number }>,
): AsyncGenerator<E> {
  let cursor =
    (await o.cursor?.load()) ??
    (o.since === 'final' ? (await retrying(() => client.status(), o)).finalizedHeight : (o.since ?? 0));
  // The cursor a page reaches, stored once its last event has been handed out: on the next
  // request, or when the loop over the follower ends (break, return or a throw in its body).
  let reached = cursor;
  let stored = cursor;
  const store = async () => {
    if (reached !== stored) await o.cursor?.save(reached);
    stored = reached;
  };
  try {
    while (!o.signal?.aborted) {
      const got = await retrying(() => page(cursor), o);
      for (const [i, e] of got.events.entries()) {
        if (o.signal?.aborted) return;
        if (i === got.events.length - 1) reached = got.cursor;
        yield e;
      }
      reached = got.cursor;
      cursor = got.cursor;
      await store();
      if (got.events.length === 0) await sleep(o.pollMs ?? 1_000, o.signal);
    }
  } finally {
    await store();
  }
}

/** Final blocks in height order, from the block after the cursor. */
export function followBlocks(client: CairnClient, o: FollowOptions = {}): AsyncGenerator<BlockRecord> {
  return follow(client, o, async (cursor) => {
    const { finalizedHeight } = await client.status();
    const events: BlockRecord[] = [];
    for (let h = cursor + 1; h <= finalizedHeight && events.length < 50; h++) {
      const b = await client.block(h);
      if (!b) break;
      events.push(b);
    }
    return { events, cursor: events.length ? events[events.length - 1].height : cursor };
  });
}

/** An address's final transactions (sent or received), oldest first. */
export function followAccount(client: CairnClient, address: string, o: FollowOptions = {}): AsyncGenerator<TxSummary> {
  return follow(client, o, async (cursor) => {
    const { finalizedHeight } = await client.status();
    if (finalizedHeight <= cursor) return { events: [], cursor };
    // Pages come newest first, whole blocks each: read back until the cursor.
    const found: TxSummary[] = [];
    let before: number | undefined = finalizedHeight + 1;
    while (before !== undefined) {
      const p = await client.addressTxs(address, { limit: 100, before });
      for (const t of p.txs)
        if (t.blockHeight !== undefined && t.blockHeight > cursor && t.blockHeight <= finalizedHeight) found.push(t);
      const oldest = p.txs[p.txs.length - 1]?.blockHeight;
      before = p.nextBefore !== null && oldest !== undefined && oldest > cursor + 1 ? p.nextBefore : undefined;
    }
    found.sort((a, b) => a.blockHeight! - b.blockHeight! || (a.index ?? 0) - (b.index ?? 0));
    return { events: found, cursor: finalizedHeight };
  });
}

/** One transition of an on-chain machine instance, with the instance as it is now. */
export interface Transition<V> {
  id: string;
  from: string;
  to: string;
  event: string;
  height: number;
  /** The instance (task, proposal, transfer) as the node shows it when the page was read. */
  item: V;
}

/** AI task transitions (oracles' duties), final only, oldest first; filters as GET /ai/tasks. */
export function followTasks(
  client: CairnClient,
  o: FollowOptions & { status?: TaskStatus; oracle?: string } = {},
): AsyncGenerator<Transition<TaskView>> {
  return follow(client, o, async (cursor) => {
    const p = await client.tasks({ since: cursor, final: true, limit: 100, status: o.status, oracle: o.oracle });
    const byId = new Map(p.tasks.map((t) => [t.id as string, t]));
    return {
      events: (p.transitions ?? []).filter((x) => byId.has(x.id)).map((x) => ({ ...x, item: byId.get(x.id)! })),
      cursor: p.cursor,
    };
  });
}

/** Bridge transfer transitions (relayers), final only, oldest first; filters as GET /bridge/transfers. */
export function followBridgeTransfers(
  client: CairnClient,
  o: FollowOptions & { direction?: Direction; status?: TransferStatus } = {},
): AsyncGenerator<Transition<BridgeTransferView>> {
  return follow(client, o, async (cursor) => {
    const p = await client.bridgeTransfers({
      since: cursor,
      final: true,
      limit: 100,
      direction: o.direction,
      status: o.status,
    });
    const byId = new Map(p.transfers.map((t) => [t.id as string, t]));
    return {
      events: (p.transitions ?? []).filter((x) => byId.has(x.id)).map((x) => ({ ...x, item: byId.get(x.id)! })),
      cursor: p.cursor,
    };
  });
}

/**
 * Governance proposal transitions (participants), final only, oldest first. GET
 * /governance/proposals?since lists the proposals changed after a height with their whole
 * history; the transitions after the cursor and at most final are emitted.
 */
export function followProposals(
  client: CairnClient,
  o: FollowOptions & { status?: ProposalStatus } = {},
): AsyncGenerator<Transition<ProposalView>> {
  return follow(client, o, async (cursor) => {
    const p = await client.proposals({ since: cursor, status: o.status, limit: 100 });
    const top = Math.min(p.cursor, p.finalizedHeight);
    const events = p.proposals
      .flatMap((item) =>
        item.history.filter((h) => h.height > cursor && h.height <= top).map((h) => ({ id: item.id, ...h, item })),
      )
      .sort((a, b) => a.height - b.height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { events, cursor: Math.max(cursor, top) };
  });
}
