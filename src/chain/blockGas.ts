import { gasLimitOf } from '../modules/vm/vm';
import { paramOf } from '../protocol/governable';
import type { ExecState } from '../protocol/execState';
import type { SignedTx } from '../protocol/types';

/**
 * A block's execution budget (docs/PROTOCOL.md "Block gas"): the sum of its VM transactions'
 * DECLARED gas limits may not exceed BLOCK_GAS_LIMIT as it stands in the parent state.
 * Declared, not used: the producer decides before executing a transaction (nothing executed
 * is thrown away), an importer refuses from the block body before executing anything, and
 * the bound on EVM work is exact (no transaction runs past its gas limit, refunds aside).
 * Non-VM transactions are outside it: they are bounded by the block's transaction count.
 */
const VM_TYPES: ReadonlySet<string> = new Set(['VM_DEPLOY', 'VM_CALL', 'VM_TRANSFER']);

/** Gas a transaction draws from its block's budget: its gas limit if it is a VM type, else 0. */
export function blockGasOf(tx: SignedTx): bigint {
  if (!VM_TYPES.has(tx.type)) return 0n;
  try {
    const g = gasLimitOf(tx);
    return g > 0n ? g : 0n;
  } catch {
    return 0n; // a malformed gas limit: the transaction's own checks refuse it with their reason
  }
}

/** The budget of the block built on `parentState`. */
export const blockGasLimit = (parentState: ExecState): Promise<bigint> => paramOf(parentState, 'BLOCK_GAS_LIMIT');

/** Why `txs` cannot be one block on `parentState` by their gas, or undefined. */
export async function blockGasRefusal(parentState: ExecState, txs: readonly SignedTx[]): Promise<string | undefined> {
  let sum = 0n;
  for (const tx of txs) sum += blockGasOf(tx);
  if (sum === 0n) return undefined;
  const limit = await blockGasLimit(parentState);
  return sum > limit
    ? `block gas ${sum} exceeds BLOCK_GAS_LIMIT ${limit} (the sum of its VM transactions' gas limits)`
    : undefined;
}
