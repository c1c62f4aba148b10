/**
 * The soak's verdict rules (bench/soak.ts), apart so that they are tested: when warm-up ends, and how flat memory
 * stayed after it.
 */

/** What the rules read of a sample: its time and node 0's state cache bytes. */
export interface CacheSample {
  t: number;
  cache: number[];
}

/**
 * The end of the warm-up: when node 0 (never restarted) first dropped a generation of its state cache — it had
 * filled its whole budget (two generations of half of it each, src/state/trieNodes.ts) and from then on holds
 * between half and all of it. Before that the cache is meant to grow (~70 min at 20 tx/s with 128 MiB), and RSS with
 * it. Undefined if it never did.
 */
export function warmupEnd(samples: readonly CacheSample[], cacheBytes: number): number | undefined {
  let peak = 0;
  for (const s of samples) {
    const c = s.cache[0];
    if (!(c >= 0)) continue;
    if (peak >= 0.75 * cacheBytes && c <= peak - 0.25 * cacheBytes) return s.t;
    peak = Math.max(peak, c);
  }
  return undefined;
}

/**
 * How far apart a node's values stay, as a fraction of the lowest: (max − min) / min, the largest over `nodes` (per
 * window: rows[w][node]). Zero or missing values (a node down for the window) are left out; NaN without two values.
 */
export function band(rows: readonly number[][], nodes: readonly number[]): number {
  let worst = Number.NaN;
  for (const i of nodes) {
    const v = rows.map((r) => r[i]).filter((x) => x > 0);
    if (v.length < 2) continue;
    const b = (Math.max(...v) - Math.min(...v)) / Math.min(...v);
    if (!(worst >= b)) worst = b;
  }
  return worst;
}
