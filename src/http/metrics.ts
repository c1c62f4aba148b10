import {
  BLOCK_SECONDS_BUCKETS,
  family,
  formatValue,
  Histogram,
  labelText,
  VERIFY_SECONDS_BUCKETS,
} from '../web/histogram';
import type { Gateway } from '../web/gateway';

/**
 * GET /metrics: Prometheus text exposition format 0.0.4. The HTTP series come from the
 * gateway's counters; chain gauges and the two node histograms come from the node through
 * `MetricsSource` (small callbacks and histogram objects the composition root wires).
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Histograms the node observes into (created by the composition root, shared with http/). */
export interface NodeMetrics {
  /** Seconds to build, execute and commit one block (the producer). */
  blockProductionSeconds: Histogram;
  /** Seconds per signature verification job (the verify pool). */
  verifySeconds: Histogram;
}

export const createNodeMetrics = (): NodeMetrics => ({
  blockProductionSeconds: new Histogram(BLOCK_SECONDS_BUCKETS),
  verifySeconds: new Histogram(VERIFY_SECONDS_BUCKETS),
});

/** What /metrics reads from the node. Every field is optional: a missing gauge is left out. */
export interface MetricsSource {
  height?: () => number;
  finalizedHeight?: () => number;
  /** Resident mempool size (may ask an actor). */
  mempoolSize?: () => number | Promise<number>;
  /** Connected peers. */
  peers?: () => number;
  /** Peers that answered their last status poll within 10 s. */
  peersReachable?: () => number;
  /** Blocks behind the best peer. */
  syncBehind?: () => number;
  /** Blocks per second of the last sync page. */
  syncBlocksPerSecond?: () => number;
  /** Slots that passed without a block on this chain, and those of them that were this validator's. */
  missedSlots?: () => number;
  ownMissedSlots?: () => number;
  node?: NodeMetrics;
  /** The state trie's node cache: nodes and bytes held (its budget is `--state-cache-mb`). */
  stateCache?: () => { nodes: number; bytes: number } | undefined;
  /** The on-chain machines' views: open instances by status, transitions seen (actors/machineViewActor.ts). */
  machines?: () => Promise<readonly { machine: string; open: Record<string, number>; transitions: number }[]>;
  /** The node-local lifecycles' actors (transactions, blocks): open instances by state, finished ones still held. */
  lifecycles?: () => Promise<readonly { machine: string; open: Record<string, number>; finished: number }[]>;
  /** The main thread's load and the admission's shedding for it (node/loadGauge.ts). */
  load?: () =>
    | { utilization: number; lagMs: number; commitLateMs: number; shedShare: number; shed: number }
    | undefined;
  /** The supervised actors: mailbox length, drops, restarts (actors/supervisor.ts status()). */
  actors?: () => readonly {
    name: string;
    running: boolean;
    restarts: number;
    queued: number;
    processed: number;
    dropped: number;
  }[];
}

/** Counters of the ingress protection (from server.ts). */
export interface ProtectionCounters {
  rateLimited: number;
  rateLimitClients: number;
  guardBlocksActive: number;
  guardBlocksTotal: number;
  guardRejected: number;
}

export async function renderMetrics(src: MetricsSource, gateway: Gateway, p: ProtectionCounters): Promise<string> {
  const out: string[] = [];
  const gauge = (name: string, help: string, v: number | undefined) => {
    if (v === undefined || !Number.isFinite(v)) return;
    out.push(...family(name, 'gauge', help), `${name} ${formatValue(v)}`);
  };
  const counter = (name: string, help: string, v: number) =>
    out.push(...family(name, 'counter', help), `${name} ${formatValue(v)}`);
  const safe = async (f: (() => number | Promise<number>) | undefined): Promise<number | undefined> => {
    if (!f) return undefined;
    try {
      return await f();
    } catch {
      return undefined; // a gauge that cannot be read now is left out of this scrape
    }
  };

  gauge('cairn_height', 'Height of the chain head.', await safe(src.height));
  gauge('cairn_finalized_height', 'Highest finalized block height.', await safe(src.finalizedHeight));
  gauge('cairn_mempool_size', 'Transactions resident in the mempool.', await safe(src.mempoolSize));
  gauge('cairn_peers', 'Connected peers.', await safe(src.peers));
  gauge(
    'cairn_peers_reachable',
    'Peers that answered their last status poll within 10 s.',
    await safe(src.peersReachable),
  );
  gauge('cairn_sync_behind_blocks', 'Blocks behind the best peer.', await safe(src.syncBehind));
  gauge(
    'cairn_sync_blocks_per_second',
    'Blocks per second of the last sync page.',
    await safe(src.syncBlocksPerSecond),
  );
  const missed = await safe(src.missedSlots);
  if (missed !== undefined)
    counter(
      'cairn_missed_slots_total',
      'Slots that passed without a block since this node started ' +
        '(their producer down or late, or idle with nothing to produce).',
      missed,
    );
  const own = await safe(src.ownMissedSlots);
  if (own !== undefined)
    counter(
      'cairn_own_missed_slots_total',
      "Slots of this node's validator without its block since this node started.",
      own,
    );

  const load = src.load?.();
  if (load) {
    gauge(
      'cairn_event_loop_utilization',
      "Share of the last second the node's main thread was busy.",
      load.utilization,
    );
    gauge(
      'cairn_event_loop_lag_seconds',
      "Mean lateness of the main thread's timers over the last second.",
      load.lagMs / 1000,
    );
    gauge(
      'cairn_block_commit_late_seconds',
      'How far into their slots the blocks committed in the last second were, on average (0: none).',
      load.commitLateMs / 1000,
    );
    gauge(
      'cairn_admission_shed_share',
      "Share of clients' new transactions turned away (503) because the node is overloaded.",
      load.shedShare,
    );
    counter('cairn_admission_shed_total', 'Transactions turned away (503) for load since the node started.', load.shed);
  }

  const actors = src.actors?.() ?? [];
  if (actors.length > 0) {
    const each = (name: string, type: 'gauge' | 'counter', help: string, v: (a: (typeof actors)[number]) => number) => {
      out.push(...family(name, type, help));
      for (const a of actors) out.push(`${name}${labelText({ actor: a.name })} ${formatValue(v(a))}`);
    };
    each('cairn_actor_mailbox', 'gauge', "Messages waiting in the actor's mailbox.", (a) => a.queued);
    each('cairn_actor_running', 'gauge', '1 while the actor has a behaviour attached, 0 while it restarts.', (a) =>
      a.running ? 1 : 0,
    );
    each('cairn_actor_processed_total', 'counter', 'Messages the actor handled.', (a) => a.processed);
    each(
      'cairn_actor_dropped_total',
      'counter',
      "Messages refused because the actor's mailbox was full.",
      (a) => a.dropped,
    );
    each(
      'cairn_actor_restarts_total',
      'counter',
      'Times the supervisor restarted the actor after a crash.',
      (a) => a.restarts,
    );
  }

  /** Gauges per machine: its open instances by state (`by` names the label), then one figure each. */
  const perMachine = <M extends { machine: string; open: Record<string, number> }>(
    rows: readonly M[],
    open: [name: string, by: string, help: string],
    one: [name: string, help: string, v: (m: M) => number],
  ) => {
    if (rows.length === 0) return;
    out.push(...family(open[0], 'gauge', open[2]));
    for (const m of rows)
      for (const [state, n] of Object.entries(m.open).sort())
        out.push(`${open[0]}${labelText({ machine: m.machine, [open[1]]: state })} ${n}`);
    out.push(...family(one[0], 'gauge', one[1]));
    for (const m of rows) out.push(`${one[0]}${labelText({ machine: m.machine })} ${one[2](m)}`);
  };
  // Transitions are a gauge, not a counter: a reorganization takes the undone blocks' transitions back.
  perMachine(
    (await src.machines?.().catch(() => undefined)) ?? [],
    ['cairn_machine_open', 'status', 'Open (not final) instances of an on-chain machine, by status.'],
    [
      'cairn_machine_transitions',
      'Transitions of an on-chain machine in the blocks committed since the node started, less those of blocks undone.',
      (m) => m.transitions,
    ],
  );
  perMachine(
    (await src.lifecycles?.().catch(() => undefined)) ?? [],
    [
      'cairn_lifecycle_open',
      'state',
      'Instances of a node-local lifecycle (transactions, blocks) not finished, by state.',
    ],
    [
      'cairn_lifecycle_finished',
      'Finished instances a lifecycle actor still holds (drops, rejected and undone blocks; bounded).',
      (m) => m.finished,
    ],
  );

  const series = gateway.series();
  out.push(
    ...family(
      'cairn_http_requests_total',
      'counter',
      'HTTP requests answered, by route pattern and status (0 = aborted by the client).',
    ),
  );
  for (const s of series)
    for (const [status, n] of s.byStatus)
      out.push(`cairn_http_requests_total${labelText({ route: s.route, status: String(status) })} ${n}`);
  out.push(
    ...family('cairn_http_request_duration_seconds', 'histogram', 'HTTP request handling time, by route pattern.'),
  );
  for (const s of series) out.push(...s.seconds.lines('cairn_http_request_duration_seconds', { route: s.route }));
  gauge('cairn_http_requests_in_flight', 'HTTP requests being handled.', gateway.inFlight);

  counter('cairn_rate_limited_total', 'Requests refused with 429 by the rate limiter.', p.rateLimited);
  gauge('cairn_rate_limit_clients', 'Clients tracked by the rate limiter (bounded table).', p.rateLimitClients);
  gauge('cairn_guard_blocks_active', 'Clients currently blocked by the guard.', p.guardBlocksActive);
  counter('cairn_guard_blocks_total', 'Blocks imposed by the guard.', p.guardBlocksTotal);
  counter(
    'cairn_guard_rejected_total',
    'Requests refused with 429 because their client was blocked by the guard.',
    p.guardRejected,
  );

  if (src.node) {
    out.push(...family('cairn_block_production_seconds', 'histogram', 'Time to build, execute and commit a block.'));
    out.push(...src.node.blockProductionSeconds.lines('cairn_block_production_seconds'));
    out.push(...family('cairn_verify_seconds', 'histogram', 'Time per hybrid signature verification job.'));
    out.push(...src.node.verifySeconds.lines('cairn_verify_seconds'));
  }

  const cache = src.stateCache?.();
  gauge('cairn_state_cache_nodes', 'State trie nodes in the node cache.', cache?.nodes);
  gauge(
    'cairn_state_cache_bytes',
    "Bytes the state trie's node cache holds, as it counts them (--state-cache-mb).",
    cache?.bytes,
  );
  const mem = process.memoryUsage();
  gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', mem.rss);
  gauge('nodejs_heap_used_bytes', 'V8 heap used in bytes.', mem.heapUsed);
  gauge('nodejs_heap_total_bytes', 'V8 heap allocated in bytes.', mem.heapTotal);
  // Memory outside the V8 heap: Buffers and ArrayBuffers (a leak there does not show in the heap figure).
  gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript objects, in bytes.', mem.external);
  gauge('nodejs_array_buffers_bytes', 'Memory of ArrayBuffers and Buffers, in bytes.', mem.arrayBuffers);
  gauge('cairn_uptime_seconds', 'Seconds since the HTTP server started.', Math.floor(gateway.uptimeMs() / 1000));
  return `${out.join('\n')}\n`;
}
