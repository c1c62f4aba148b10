import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/**
 * How hard the node's main thread works, and how much of its clients' new load it sheds because of it.
 *
 * A node that cannot keep up shows it first in its event loop: its timers run late (the slot tick, a gossip
 * validation, a block import all wait behind one another). A network of such nodes builds its blocks late, takes
 * its peers' blocks late and forks, and its finality stalls (issue 50: four validators offered 200 tx/s on two
 * cores stalled 168 s). So each window the gauge reads the event-loop delay, and while it is above `highLagMs` the
 * share of clients' new transactions turned away (503 with Retry-After, before they are even decoded: a refusal
 * costs next to nothing) grows by SHED_STEP_UP; below `lowLagMs` it falls by SHED_STEP_DOWN. A node sheds at its own
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
  /** The share of clients' new transactions refused now (0 to MAX_SHED). */
  shedShare: number;
  /** Transactions refused for load since the node started. */
  shed: number;
}

export interface LoadGauge {
  /** Whether to refuse this client transaction for load (counts it). */
  shedNow(): boolean;
  reading(): LoadReading;
  stop(): void;
}

export const LOAD_WINDOW_MS = 1_000;
/** The most a node sheds: a trickle of new transactions still goes in, so the share can be seen to fall. */
export const MAX_SHED = 0.95;
const SHED_STEP_UP = 0.2;
const SHED_STEP_DOWN = 0.1;
/** The delay histogram's resolution; the lag read is beyond it. */
const RESOLUTION_MS = 10;

/** The controller alone (one window at a time), for tests and the simulator. */
export function nextShedShare(share: number, lagMs: number, o: { highLagMs: number; lowLagMs: number }): number {
  if (lagMs >= o.highLagMs) return Math.min(MAX_SHED, share + SHED_STEP_UP);
  if (lagMs < o.lowLagMs) return Math.max(0, Number((share - SHED_STEP_DOWN).toFixed(2)));
  return share;
}

/**
 * Lag thresholds by slot length: a loop running a tenth of a slot late on average has no room left for a block's
 * work in its slot (a 500 ms slot: shed above 50 ms, stop below 25 ms).
 */
export const lagThresholds = (slotMs: number) => ({
  highLagMs: Math.max(20, slotMs / 10),
  lowLagMs: Math.max(10, slotMs / 20),
});

export function startLoadGauge(o: { slotMs: number; log: Logger; windowMs?: number }): LoadGauge {
  const thresholds = lagThresholds(o.slotMs);
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let elu = performance.eventLoopUtilization();
  let last: LoadReading = { utilization: 0, lagMs: 0, shedShare: 0, shed: 0 };
  // Refusals spread evenly: each transaction adds the share, and one is refused each time the sum passes 1.
  let owed = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, elu);
    elu = now;
    const lagMs = Number.isNaN(delay.mean) ? 0 : Math.max(0, delay.mean / 1e6 - RESOLUTION_MS);
    delay.reset();
    const shedShare = nextShedShare(last.shedShare, lagMs, thresholds);
    if (shedShare > 0 !== last.shedShare > 0)
      o.log.warn(
        { lagMs: Math.round(lagMs), utilization: Number(window.utilization.toFixed(2)), shed: last.shed },
        shedShare > 0
          ? "overloaded: the event loop runs late; turning away a share of clients' new transactions (503)"
          : "keeping up again: clients' transactions admitted as before",
      );
    last = { utilization: window.utilization, lagMs, shedShare, shed: last.shed };
  }, o.windowMs ?? LOAD_WINDOW_MS);
  timer.unref();
  return {
    shedNow() {
      if (last.shedShare === 0) return false;
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
