import { finalityThreshold } from '../../consensus/finality';
import type { Head } from '../../storage/chainStore';
import type { Detector, DetectorContext } from './detector';

/**
 * `finality_stall`: the head has not advanced for `stallFactor` × the expected block time
 * (reason 'head'), or the head advances while the finalized height does not (reason
 * 'finality'). One alert per episode; progress re-arms it.
 */
export function finalityStallDetector(ctx: DetectorContext): Detector {
  const o = ctx.options;
  // Progress clocks start when the sentinel starts: a node restarted after downtime is not stalled.
  const start = ctx.now();
  let headAt = start;
  let finalized = ctx.head.finalizedHeight;
  let finalizedAt = start;
  let headWhenFinalized = ctx.head.height;
  let headStalled = false;
  let finalityStalled = false;

  function noteFinality(h: Head): void {
    if (h.finalizedHeight > finalized) {
      finalized = h.finalizedHeight;
      finalizedAt = ctx.now();
      headWhenFinalized = h.height;
      finalityStalled = false;
    }
  }

  return {
    head(h, prev) {
      const now = ctx.now();
      if (h.height !== prev.height || h.hash !== prev.hash) {
        headAt = now;
        headStalled = false;
      }
      noteFinality(h);
    },
    headRepeated: noteFinality,
    tick(now) {
      const head = ctx.head;
      const headLimit = o.stallFactor * o.expectedBlockMs;
      if (!headStalled && now - headAt > headLimit) {
        headStalled = true;
        ctx.raise(
          'finality_stall',
          'critical',
          `the head has not advanced for ${Math.round((now - headAt) / 1000)} s (height ${head.height})`,
          {
            reason: 'head',
            headHeight: head.height,
            finalizedHeight: head.finalizedHeight,
            sinceMs: now - headAt,
            limitMs: headLimit,
          },
        );
      }
      // Finality moves by checkpoints (one per epoch of n blocks) once ⌊2n/3⌋+1 have voted in the next epoch.
      const n = Math.max(1, ctx.validators.length);
      const finalityLimit = o.stallFactor * o.expectedBlockMs * (n + finalityThreshold(n) + 1);
      if (!finalityStalled && !headStalled && head.height > headWhenFinalized && now - finalizedAt > finalityLimit) {
        finalityStalled = true;
        // The members with no block above the final one (of the blocks the sentinel looked at): the ones finality waits
        // for.
        const above = new Set(ctx.producers.slice(-Math.max(0, head.height - finalized)));
        const notProducing = ctx.validators.filter((v) => !above.has(v));
        const who = notProducing.length
          ? `; members not producing since block ${finalized}: ${notProducing.join(', ')}`
          : '';
        ctx.raise(
          'finality_stall',
          'critical',
          `finalizedHeight stuck at ${finalized} for ${Math.round((now - finalizedAt) / 1000)} s while the ` +
            `head advanced to ${head.height}${who}`,
          {
            reason: 'finality',
            headHeight: head.height,
            finalizedHeight: finalized,
            sinceMs: now - finalizedAt,
            limitMs: finalityLimit,
            notProducing,
          },
        );
      }
    },
  };
}
