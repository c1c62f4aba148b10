import { credit, debit } from '../../protocol/accounts';
import type { ExecState } from '../../protocol/execState';
import { UNBONDING_ADDRESS } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import { unbondingDueKey, unbondingKey, type UnbondingEntry } from './records';

/**
 * The unbonding queue: UNSTAKE moves coins from the account's stake into the unbonding
 * account (0x…7c) with an entry maturing UNBONDING_BLOCKS later; the end of the block at that
 * height pays them back to the account's liquid balance. Coins in the queue stay in the
 * supply, earn nothing and vote for nobody.
 */
export async function queueUnbonding(
  s: ExecState,
  who: Address,
  amount: bigint,
  matures: number,
  height: number,
): Promise<void> {
  await credit(s, UNBONDING_ADDRESS, amount, height);
  const q = (await s.getRecord<UnbondingEntry[]>(unbondingKey(who))) ?? [];
  await s.putRecord(unbondingKey(who), [...q, { amount: amount.toString(), matures }]);
  const due = (await s.getRecord<Address[]>(unbondingDueKey(matures))) ?? [];
  if (!due.includes(who)) await s.putRecord(unbondingDueKey(matures), [...due, who].sort());
}

/** Pays out the entries maturing at `height` (end of block). */
export async function matureUnbonding(s: ExecState, height: number): Promise<void> {
  const due = await s.getRecord<Address[]>(unbondingDueKey(height));
  if (!due) return;
  await s.deleteRecord(unbondingDueKey(height));
  for (const who of due) {
    const q = (await s.getRecord<UnbondingEntry[]>(unbondingKey(who))) ?? [];
    const ripe = q.filter((e) => e.matures <= height);
    const rest = q.filter((e) => e.matures > height);
    const amount = ripe.reduce((n, e) => n + BigInt(e.amount), 0n);
    if (amount > 0n) {
      await debit(s, UNBONDING_ADDRESS, amount);
      await credit(s, who, amount, height);
    }
    if (rest.length) await s.putRecord(unbondingKey(who), rest);
    else await s.deleteRecord(unbondingKey(who));
  }
}

export const unbondingOf = async (s: ExecState, who: Address): Promise<UnbondingEntry[]> =>
  (await s.getRecord<UnbondingEntry[]>(unbondingKey(who))) ?? [];
