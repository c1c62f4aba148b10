import type { Detector, DetectorContext } from './detector';

/** `reorg`: the head replaced blocks already looked at; critical when it undid a finalized one. */
export function reorgDetector(ctx: DetectorContext): Detector {
  return {
    reorg({ prev, head: h, fork }) {
      const depth = prev.height - fork;
      const belowFinality = fork < prev.finalizedHeight;
      ctx.raise(
        'reorg',
        belowFinality ? 'critical' : 'warning',
        `reorganization: head ${prev.hash} at ${prev.height} replaced by ${h.hash} at ${h.height} ` +
          `(${depth} block(s) undone)${belowFinality ? ', below the finalized height' : ''}`,
        {
          oldHeight: prev.height,
          oldHash: prev.hash,
          newHeight: h.height,
          newHash: h.hash,
          commonAncestor: fork,
          depth,
          finalizedHeight: prev.finalizedHeight,
        },
      );
    },
  };
}
