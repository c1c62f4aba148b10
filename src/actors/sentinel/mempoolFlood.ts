import type { Detector, DetectorContext } from './detector';

/** Weight of the newest sample in the admission-rate baseline (exponential moving average). */
const BASELINE_ALPHA = 0.1;
/** Rate samples needed before a spike can be judged against the baseline. */
const BASELINE_SAMPLES = 5;

/**
 * `mempool_flood`: the resident pool reached `floodFraction` of its cap (reason 'size'), or
 * the admission rate jumped over `rateSpikeFactor` × its running baseline (reason 'rate').
 * One alert per episode of each.
 */
export function mempoolFloodDetector(ctx: DetectorContext): Detector {
  const o = ctx.options;
  let flooded = false;
  let spiking = false;
  let lastStats: { at: number; admitted: number } | undefined;
  let baseline = 0;
  let samples = 0;

  return {
    mempool(s, now) {
      const limit = o.floodFraction * s.cap;
      if (s.size >= limit) {
        if (!flooded) {
          flooded = true;
          ctx.raise('mempool_flood', 'warning', `mempool holds ${s.size} of ${s.cap} transactions`, {
            reason: 'size',
            size: s.size,
            cap: s.cap,
          });
        }
      } else if (s.size < 0.9 * limit) flooded = false;

      if (!lastStats || s.admitted < lastStats.admitted || now <= lastStats.at) {
        lastStats = { at: now, admitted: s.admitted }; // first sample, or the mempool actor restarted
        return;
      }
      const rate = ((s.admitted - lastStats.admitted) * 1000) / (now - lastStats.at);
      lastStats = { at: now, admitted: s.admitted };
      if (samples >= BASELINE_SAMPLES && rate >= o.rateSpikeMin && rate > o.rateSpikeFactor * baseline) {
        if (!spiking) {
          spiking = true;
          ctx.raise(
            'mempool_flood',
            'warning',
            `admission rate ${Math.round(rate)}/s is over ${o.rateSpikeFactor}× the ` +
              `usual ${Math.round(baseline * 10) / 10}/s`,
            {
              reason: 'rate',
              ratePerSec: Math.round(rate),
              baselinePerSec: Math.round(baseline * 10) / 10,
              size: s.size,
              cap: s.cap,
            },
          );
        }
      } else if (rate <= o.rateSpikeFactor * baseline || rate < o.rateSpikeMin) spiking = false;
      baseline = samples === 0 ? rate : baseline + BASELINE_ALPHA * (rate - baseline);
      samples++;
    },
  };
}
