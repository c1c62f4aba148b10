import type { Address } from '../protocol/types';

/** ⌊2n/3⌋+1 distinct active validators must have produced on top of a block. */
export const finalityThreshold = (n: number): number => Math.floor((2 * n) / 3) + 1;

/**
 * Highest final height given the producers of the newest blocks, newest first
 * (`producersDesc[0]` produced `head`). Never below `previous`: finality does not go back.
 */
export function finalizedHeightFrom(head: number, producersDesc: Address[], validatorCount: number, previous: number): number {
  const need = finalityThreshold(validatorCount);
  const seen = new Set<Address>();
  for (let i = 0; i < producersDesc.length && head - i >= 1; i++) {
    seen.add(producersDesc[i]);
    if (seen.size >= need) return Math.max(previous, head - i - 1);
  }
  return previous;
}
