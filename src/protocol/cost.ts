import type { SignedTx, TxType } from './types';

/**
 * Types whose envelope `amount` does not leave the liquid balance: UNSTAKE's amount comes out
 * of stake. Every other type's amount is spent from the balance (moved, locked as stake,
 * escrowed, or sent to the VM), so the balance must cover it.
 */
const AMOUNT_NOT_FROM_BALANCE: ReadonlySet<TxType> = new Set(['UNSTAKE']);

/** What a transaction commits of the sender's liquid balance at most: the amount it spends plus its fee limit. */
export function liquidCost(tx: SignedTx): bigint {
  return (AMOUNT_NOT_FROM_BALANCE.has(tx.type) ? 0n : BigInt(tx.amount)) + BigInt(tx.fee);
}
