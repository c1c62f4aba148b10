import type { Hex } from '../primitives/hex';

/**
 * Fork choice above the finalized height: the higher chain wins; at equal heights the tip
 * with the lower hash wins, so two equal forks always resolve the same way on every node
 * without an operator.
 */
export function prefers(a: { height: number; hash: Hex }, b: { height: number; hash: Hex }): boolean {
  if (a.height !== b.height) return a.height > b.height;
  return a.hash.toLowerCase() < b.hash.toLowerCase();
}

/**
 * What to do with a branch that forks after height `forkAt` and ends at `tip`, against the
 * chain ending at `head`: a fork below the finalized height is refused (final blocks are never
 * undone; the reason says why), a tip fork choice does not prefer is `stale`, else `take` it.
 */
export function branchChoice(
  tip: { height: number; hash: Hex },
  forkAt: number,
  head: { height: number; hash: Hex; finalizedHeight: number },
): 'take' | 'stale' | { refused: string } {
  if (forkAt < head.finalizedHeight)
    return { refused: `branch forks at ${forkAt}, below the finalized height ${head.finalizedHeight}` };
  return prefers(tip, head) ? 'take' : 'stale';
}
