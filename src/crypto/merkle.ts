import { keccak256 } from './hash';
import { concatBytes, fromHex, toHex, type Hex } from '../primitives/hex';

const EMPTY = keccak256(new Uint8Array(0));

/** Binary keccak Merkle root over 32-byte leaves (odd node carried up). Empty list → keccak(""). */
export function merkleRoot(leaves: Hex[]): Hex {
  if (leaves.length === 0) return toHex(EMPTY);
  let level = leaves.map(fromHex);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? keccak256(concatBytes(level[i], level[i + 1])) : level[i]);
    }
    level = next;
  }
  return toHex(level[0]);
}

/** A block's tx root: the Merkle root of its transaction ids, in block order (the header commits to it). */
export const txRootOf = (txs: readonly { id: Hex }[]): Hex => merkleRoot(txs.map((t) => t.id));
