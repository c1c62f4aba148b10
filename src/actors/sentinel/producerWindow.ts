import type { Address } from '../../protocol/types';
import type { DetectorContext } from './detector';

/**
 * Blocks per producer in the window, in order of first appearance; undefined when the
 * window says nothing about shares (one active validator, or the window not full yet).
 */
export function producerCounts(ctx: DetectorContext): Map<Address, number> | undefined {
  if (ctx.validators.length <= 1 || ctx.producers.length < ctx.options.window) return undefined;
  const counts = new Map<Address, number>();
  for (const p of ctx.producers) counts.set(p, (counts.get(p) ?? 0) + 1);
  return counts;
}
