import type { Hex } from '../primitives/hex';

/** A chain's tip as fork choice weighs it: its last justified checkpoint's height (0 when unknown), height, hash. */
export interface Tip {
  justifiedHeight?: number;
  height: number;
  hash: Hex;
}

/**
 * Fork choice above the finalized height: the chain with the later justified checkpoint wins
 * (consensus/checkpoints.ts) — an honest validator never votes from an older source than it
 * did, so a chain with an older one could hold back every validator that saw the newer, and
 * finality with them; then the higher chain; at equal heights the tip with the lower hash, so
 * two equal forks always resolve the same way on every node without an operator.
 */
export function prefers(a: Tip, b: Tip): boolean {
  const ja = a.justifiedHeight ?? 0;
  const jb = b.justifiedHeight ?? 0;
  if (ja !== jb) return ja > jb;
  if (a.height !== b.height) return a.height > b.height;
  return a.hash.toLowerCase() < b.hash.toLowerCase();
}

/**
 * What to do with a branch that forks after height `forkAt` and ends at `tip`, against the
 * chain ending at `head`: a fork below the finalized height is refused (final blocks are never
 * undone; the reason says why), a tip fork choice does not prefer is `stale`, else `take` it.
 */
export function branchChoice(
  tip: Tip,
  forkAt: number,
  head: Tip & { finalizedHeight: number },
): 'take' | 'stale' | { refused: string } {
  if (forkAt < head.finalizedHeight)
    return { refused: `branch forks at ${forkAt}, below the finalized height ${head.finalizedHeight}` };
  return prefers(tip, head) ? 'take' : 'stale';
}
