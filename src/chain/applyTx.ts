import { keccakHex } from '../crypto/hash';
import { fromHex } from '../primitives/hex';
import { handlerFor } from '../modules/registry';
import { TxFailure } from './accounts';
import { chargeFor, energyCost } from './energy';
import type { ExecState } from './execState';
import type { SignedTx, TxResult } from './types';

/**
 * Outcome of trying a transaction against state:
 * - applied: it is in the block (success or failed); fee and nonce are settled either way;
 * - skip: it cannot be in this block and state is untouched. `permanent` means it never can
 *   (the mempool drops it); `gap` means an earlier nonce is missing (it waits).
 */
export type TxVerdict =
  | { kind: 'applied'; result: TxResult; burned: bigint }
  | { kind: 'skip'; reason: string; permanent: boolean; gap: boolean };

const skip = (reason: string, permanent: boolean, gap = false): TxVerdict => ({ kind: 'skip', reason, permanent, gap });

/**
 * The one place where a transaction's fee is debited and burned, its energy spent and its
 * nonce advanced, for every type (DESIGN.md §11 lessons). Deterministic: no clock, no floats.
 */
export async function applyTx(state: ExecState, tx: SignedTx, height: number): Promise<TxVerdict> {
  const sender = tx.from;
  const acc = await state.getAccount(sender);
  if (!acc) return skip('insufficient balance', false);
  if (tx.nonce < acc.nonce) return skip('nonce already used', true);
  if (tx.nonce > acc.nonce) return skip('nonce gap', false, true);
  const keyHash = keccakHex(fromHex(tx.publicKeys.mldsa44));
  if (acc.mldsaKeyHash !== null && acc.mldsaKeyHash !== keyHash) return skip('invalid signature', true);

  const amount = BigInt(tx.amount);
  const feeLimit = BigInt(tx.fee);
  if (acc.balance < amount + feeLimit) return skip('insufficient balance', false);
  const charge = chargeFor(acc, energyCost(tx.type), height);
  if (charge.burn > feeLimit) return skip('fee limit below the energy shortfall', false);

  acc.balance -= charge.burn;
  acc.energy = charge.energyLeft;
  acc.energyHeight = height;
  acc.nonce += 1;
  acc.mldsaKeyHash ??= keyHash;
  await state.putAccount(sender, acc);

  const base = { energyUsed: charge.energyUsed.toString(), burned: charge.burn.toString() };
  state.checkpoint();
  try {
    await handlerFor(tx.type).execute({ state, height, sender, tx });
    await state.commit();
    return { kind: 'applied', result: { status: 'success', ...base }, burned: charge.burn };
  } catch (e) {
    await state.revert();
    if (e instanceof TxFailure) return { kind: 'applied', result: { status: 'failed', error: e.reason, ...base }, burned: charge.burn };
    throw e; // a bug, not a transaction outcome: let the supervisor see it
  }
}
