import type { Address } from '../../protocol/types';
import type { Detector, DetectorContext } from './detector';
import { producerCounts } from './producerWindow';

/**
 * `validator_degradation`: an active validator made fewer than `degradationFraction` of its
 * expected share of the window; once per episode.
 */
export function validatorDegradationDetector(ctx: DetectorContext): Detector {
  const degraded = new Set<Address>();
  return {
    head() {
      const counts = producerCounts(ctx);
      if (!counts) {
        degraded.clear();
        return;
      }
      const active = ctx.validators;
      const window = ctx.producers.length;
      const expected = window / active.length;
      for (const v of active) {
        const n = counts.get(v) ?? 0;
        if (n < ctx.options.degradationFraction * expected) {
          if (degraded.has(v)) continue;
          degraded.add(v);
          ctx.raise(
            'validator_degradation',
            'warning',
            `validator ${v} made ${n} of the last ${window} blocks (expected about ${Math.round(expected)})`,
            {
              validator: v,
              blocks: n,
              expected: Math.round(expected * 10) / 10,
              window,
              activeValidators: active.length,
            },
          );
        } else degraded.delete(v);
      }
      for (const v of degraded) if (!active.includes(v)) degraded.delete(v);
    },
  };
}
