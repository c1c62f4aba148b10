import type { ExecState } from '../../protocol/execState';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';

/**
 * Resource delegation state. The totals are on the accounts (`delegatedOut` of the lender,
 * `delegatedIn` of the receiver: what maxEnergy reads); the per-pair record says how much a
 * lender may take back from one receiver:
 *   res/<lender>/<receiver> → string   base units of stake lent (absent: none; never "0")
 */
export const delegationKey = (lender: Address, receiver: Address): string =>
  recordKey('resourceDelegation', lender, receiver);

/** Stake `lender` lends `receiver` (0n when none). */
export const getDelegation = async (s: ExecState, lender: Address, receiver: Address): Promise<bigint> =>
  BigInt((await s.getRecord<string>(delegationKey(lender, receiver))) ?? '0');

/** Stores the pair's amount, or deletes the record when it is 0. */
export async function putDelegation(s: ExecState, lender: Address, receiver: Address, amount: bigint): Promise<void> {
  if (amount === 0n) await s.deleteRecord(delegationKey(lender, receiver));
  else await s.putRecord(delegationKey(lender, receiver), amount.toString());
}
