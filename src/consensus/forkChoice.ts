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
