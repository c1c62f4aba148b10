import type { Hex } from '../primitives/hex';

/**
 * A chain's tip as fork choice weighs it: its last justified checkpoint's height (0 when unknown), height, timestamp
 * (0 when unknown), hash.
 */
export interface Tip {
  justifiedHeight?: number;
  height: number;
  timestamp?: number;
  hash: Hex;
}

/**
 * Fork choice above the finalized height: the chain with the later justified checkpoint wins
 * (consensus/checkpoints.ts) — an honest validator never votes from an older source than it
 * did, so a chain with an older one could hold back every validator that saw the newer, and
 * finality with them; then the higher chain; at equal heights the later tip (its timestamp, so its slot), then the
 * lower hash, so two equal forks always resolve the same way on every node without an operator.
 *
 * Later first: a block released late (a withholding producer, slots after its own) is at the height of the block its
 * slot's successor built meanwhile, and by hash alone it won half of those ties, undoing the blocks on the other and
 * their votes (the simulator's seed 6089). The later block is the one the network built on. What the rule gives a
 * producer — replacing the block of the slot just before its own by building on that block's parent — a hash rule
 * gave it too, by trying contents until its hash was the lower. A clock running ahead gains no ties: a block more
 * than half a slot early is refused (slots.ts clockToleranceMs).
 */
export function prefers(a: Tip, b: Tip): boolean {
  const ja = a.justifiedHeight ?? 0;
  const jb = b.justifiedHeight ?? 0;
  if (ja !== jb) return ja > jb;
  if (a.height !== b.height) return a.height > b.height;
  const ta = a.timestamp ?? 0;
  const tb = b.timestamp ?? 0;
  if (ta !== tb) return ta > tb;
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
