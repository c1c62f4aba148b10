import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/**
 * How hard the node's main thread works, and how much of its clients' new load it sheds because of it.
 *
 * A node that cannot keep up shows it in two places: its event loop's timers run late (the slot tick, a gossip
 * validation, a block import all wait behind one another), and its blocks are committed late in their slots (made
 * or taken late: on a machine whose cores are all busy the loop may be idle yet wait for a core). A network of such
 * nodes builds its blocks late, takes its peers' blocks late and forks, and its finality stalls (issue 50: four
 * validators offered 200 tx/s on two cores stalled 168 s). So each window the gauge reads both, and while either is
 * above its high mark the share of clients' new transactions it admits is halved (503 with Retry-After for the rest,
 * before they are even decoded: a refusal costs next to nothing); once both are below their low marks it grows back
 * by ADMIT_STEP a window. Cut fast, restored slowly (AIMD, as TCP does): restored by 10 % a second, a 300 tx/s soak
 * went from shedding 95 % to none in ten seconds, the clients' queued retries came back at once, and the network
 * forked again a second later, over and over. A node sheds at its own
 * doors only: transactions its peers gossip were admitted by a node that judged its own load, and refusing them
 * here would only make this node fetch them when their block comes.
 *
 * Not consensus: which transactions a node admits is its own business; blocks never read this.
 */

export interface LoadReading {
  /** The share of the last window the main thread was busy (0–1). */
  utilization: number;
  /** The mean lateness of the event loop's timers over the last window, in ms. */
  lagMs: number;
  /** How far into their slots the blocks committed in the last window were, on average, in ms (0: none). */
  commitLateMs: number;
  /** The share of clients' new transactions refused now (0 to MAX_SHED). */
  shedShare: number;
  /** Transactions refused for load since the node started. */
  shed: number;
}

export interface LoadGauge {
  /** A block was committed `lateMs` after its slot began (its timestamp); one far behind (a sync) is not counted. */
  observeCommit(lateMs: number): void;
  /** Whether to refuse this client transaction for load, with `pending` transactions waiting (counts it). */
  shedNow(pending: number): boolean;
  reading(): LoadReading;
  stop(): void;
}

export const LOAD_WINDOW_MS = 1_000;
/**
 * Pending transactions below which nothing is shed, however late the node runs: with less than a block's worth
 * waiting, transactions are not what it is behind on (a start, a sync, a busy machine), and turning clients away would
 * not help it (the test tiers' nodes, on a busy machine with 100 ms slots, turned single transactions away).
 */
export const SHED_MIN_PENDING = 100;
/** The most a node sheds: a trickle of new transactions still goes in, so the share can be seen to fall. */
export const MAX_SHED = 0.95;
/** Share admitted again per calm window: from MAX_SHED to none in 19 windows. */
const ADMIT_STEP = 0.05;
/** The delay histogram's resolution; the lag read is beyond it. */
const RESOLUTION_MS = 10;

export interface LoadThresholds {
  highLagMs: number;
  lowLagMs: number;
  highCommitLateMs: number;
  lowCommitLateMs: number;
}

/** The controller alone (one window at a time), for tests. */
export function nextShedShare(share: number, w: { lagMs: number; commitLateMs: number }, o: LoadThresholds): number {
  const admitted = 1 - share;
  const round = (x: number) => Number(x.toFixed(4));
  if (w.lagMs >= o.highLagMs || w.commitLateMs >= o.highCommitLateMs)
    return round(Math.min(MAX_SHED, 1 - admitted / 2));
  if (w.lagMs < o.lowLagMs && w.commitLateMs < o.lowCommitLateMs) return round(Math.max(0, share - ADMIT_STEP));
  return share;
}

/**
 * Thresholds by slot length. A loop running a twentieth of a slot late on average is short of CPU (four validators on
 * two cores, 500 ms slots: 2–6 ms at 100 tx/s, which they hold; 40–90 ms at 200 tx/s, where they forked); blocks
 * committed on average after their slot ended came late to every node (fork choice ranks a late block below one in
 * time, and the next producer builds beside it). A 500 ms slot: shed above 25 ms of lag or 500 ms into the slot, stop
 * below 10 ms and 350 ms (a block is built in its slot's first 40 %, then gossiped and imported).
 */
export const loadThresholds = (slotMs: number): LoadThresholds => ({
  highLagMs: Math.max(25, slotMs / 20),
  lowLagMs: Math.max(10, slotMs / 50),
  highCommitLateMs: slotMs,
  lowCommitLateMs: 0.7 * slotMs,
});

export function startLoadGauge(o: { slotMs: number; log: Logger; windowMs?: number }): LoadGauge {
  const thresholds = loadThresholds(o.slotMs);
  // Commits of the window: a block more than a few slots behind came by a sync, not late from its producer.
  const commits = { sum: 0, count: 0 };
  const SYNCED_MS = 8 * o.slotMs;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let elu = performance.eventLoopUtilization();
  let last: LoadReading = { utilization: 0, lagMs: 0, commitLateMs: 0, shedShare: 0, shed: 0 };
  // Refusals spread evenly: each transaction adds the share, and one is refused each time the sum passes 1.
  let owed = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, elu);
    elu = now;
    const lagMs = Number.isNaN(delay.mean) ? 0 : Math.max(0, delay.mean / 1e6 - RESOLUTION_MS);
    delay.reset();
    const commitLateMs = commits.count > 0 ? commits.sum / commits.count : 0;
    commits.sum = commits.count = 0;
    const shedShare = nextShedShare(last.shedShare, { lagMs, commitLateMs }, thresholds);
    if (shedShare > 0 !== last.shedShare > 0)
      o.log.warn(
        {
          lagMs: Math.round(lagMs),
          commitLateMs: Math.round(commitLateMs),
          utilization: Number(window.utilization.toFixed(2)),
          shed: last.shed,
        },
        shedShare > 0
          ? "overloaded: the event loop or the blocks run late; turning away a share of clients' new transactions (503)"
          : "keeping up again: clients' transactions admitted as before",
      );
    last = { utilization: window.utilization, lagMs, commitLateMs, shedShare, shed: last.shed };
  }, o.windowMs ?? LOAD_WINDOW_MS);
  timer.unref();
  return {
    observeCommit(lateMs) {
      if (lateMs < 0 || lateMs > SYNCED_MS) return;
      commits.sum += lateMs;
      commits.count++;
    },
    shedNow(pending) {
      if (last.shedShare === 0 || pending < SHED_MIN_PENDING) return false;
      owed += last.shedShare;
      if (owed < 1) return false;
      owed -= 1;
      last.shed++;
      return true;
    },
    reading: () => ({ ...last }),
    stop() {
      clearInterval(timer);
      delay.disable();
    },
  };
}
