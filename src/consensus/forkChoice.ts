import type { Hex } from '../primitives/hex';

/**
 * A chain's tip as fork choice weighs it: its last justified checkpoint's height (0 when unknown), height, hash, and
 * whether its block reached this node after its slot ended (consensus/slots.ts `arrivedLate`; absent where neither
 * side knows it, as for a peer's status).
 */
export interface Tip {
  justifiedHeight?: number;
  height: number;
  hash: Hex;
  late?: boolean;
}

/**
 * Fork choice above the finalized height: whether tip `a` is strictly better than tip `b`. The
 * chain with the later justified checkpoint wins (consensus/checkpoints.ts) — an honest
 * validator never votes from an older source than it did, so a chain with an older one could
 * hold back every validator that saw the newer, and finality with them; then the higher chain;
 * at equal heights the tip whose block came in its slot over one that came late, then the lower
 * hash, so two equal forks resolve the same way on every node without an operator.
 *
 * In time before hash: a producer that withholds its block and publishes it once the next
 * producer has filled its place won half of those ties by hash, and the blocks built on the one
 * it replaced were undone with their producers' finality votes (the simulator, seed 6089, 9
 * validators: final again 52 slots after the heal, bound 42). Neither of the two simpler rules
 * held: keeping the head seen first left two halves of the set on equal forks for slots, each
 * extending its own (finality fell behind over 40 seeds), and the later block gives every tie to
 * a clock running ahead (`--scenario clock-skew`: nothing final).
 */
export function prefers(a: Tip, b: Tip): boolean {
  const ja = a.justifiedHeight ?? 0;
  const jb = b.justifiedHeight ?? 0;
  if (ja !== jb) return ja > jb;
  if (a.height !== b.height) return a.height > b.height;
  if (Boolean(a.late) !== Boolean(b.late)) return !a.late;
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
