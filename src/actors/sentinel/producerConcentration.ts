import type { Address } from '../../protocol/types';
import type { Detector, DetectorContext } from './detector';
import { producerCounts } from './producerWindow';

/** `producer_concentration`: one producer made more than `concentrationShare` of the window; once per episode. */
export function producerConcentrationDetector(ctx: DetectorContext): Detector {
  const concentrated = new Set<Address>();
  return {
    head() {
      const counts = producerCounts(ctx);
      if (!counts) {
        concentrated.clear();
        return;
      }
      const window = ctx.producers.length;
      for (const [p, n] of counts) {
        const share = n / window;
        if (share > ctx.options.concentrationShare) {
          if (concentrated.has(p)) continue;
          concentrated.add(p);
          ctx.raise('producer_concentration', 'warning', `producer ${p} made ${n} of the last ${window} blocks`, {
            producer: p,
            blocks: n,
            window,
            share: Math.round(share * 1000) / 1000,
            activeValidators: ctx.validators.length,
          });
        } else concentrated.delete(p);
      }
    },
  };
}
