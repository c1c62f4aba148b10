import { newAccount } from '../../protocol/accounts';
import { energyAt } from '../../protocol/energy';
import type { ExecState } from '../../protocol/execState';
import { TxFailure } from '../../protocol/handler';
import { RESOURCE } from './errors';
import type { AccountState, Address } from '../../protocol/types';
import { defineTx } from '../tx/define';
import { addressFlag, coinsFlag } from '../tx/cli';
import { tokenAmountField } from '../tx/fields';
import { getDelegation, putDelegation } from './records';

/**
 * Resource delegation (TRON Stake 2.0 style): a staker lends the energy capacity of part of
 * its stake to another account (protocol/energy.ts: the cap counts staked − delegatedOut +
 * delegatedIn). Only capacity moves: the coins stay the lender's stake, so they still count
 * for its VOTE allocation, its weight in elections, its governance power and its fee
 * exemption; the receiver gains none of these. UNSTAKE cannot take lent stake back
 * (staking/stake.ts): UNDELEGATE_RESOURCE first.
 *
 * The lent stake is `data.amount`, not the envelope's `amount`: admission and applyTx require
 * the liquid balance to cover the envelope amount plus the fee, which is wrong for coins that
 * stay staked and never move (a staker with everything staked could never lend).
 */

/**
 * Brings `a`'s energy to `height` under its cap now: before a cap change, so the new cap never applies to past
 * regeneration; after it, to cap the stored energy at the new cap.
 */
function settle(a: AccountState, height: number): void {
  a.energy = energyAt(a, height);
  a.energyHeight = height;
}

/** Moves `delta` of lent capacity from `lender` to `receiver` (negative: back), both energies settled at `height`. */
async function shiftCapacity(
  s: ExecState,
  height: number,
  lender: Address,
  receiver: Address,
  delta: bigint,
): Promise<void> {
  const from = (await s.getAccount(lender))!; // the sender: applyTx found it
  const to = (await s.getAccount(receiver)) ?? newAccount(height);
  settle(from, height);
  settle(to, height);
  from.delegatedOut += delta;
  to.delegatedIn += delta;
  settle(from, height);
  settle(to, height);
  await s.putAccount(lender, from);
  await s.putAccount(receiver, to);
  await putDelegation(s, lender, receiver, (await getDelegation(s, lender, receiver)) + delta);
}

/** DELEGATE_RESOURCE: lends the energy capacity of data.amount of the sender's stake to `to`. */
export const delegateResource = defineTx({
  type: 'DELEGATE_RESOURCE',
  module: 'resources',
  summary: "lends the energy capacity (never the voting power) of data.amount of the sender's stake to `to`",
  to: { kind: 'required', role: 'receiver' },
  rules: [(tx) => (tx.to === tx.from ? 'DELEGATE_RESOURCE cannot delegate to the sender itself' : undefined)],
  fields: {
    amount: tokenAmountField(
      "integer string: base units of the sender's stake whose energy capacity is lent (1 to 2^256 − 1)",
    ),
  },
  energy: 300n,
  cli: {
    command: 'resource delegate',
    about: `Lends the energy capacity of --amount of your stake to --to. Only capacity moves:
the coins stay your stake, with its votes and governance power; UNSTAKE cannot take them
until you undelegate.`,
    summary: '--to --amount (lend energy capacity)',
    flags: [addressFlag('to', 'the receiver, 0x… or cairn1…'), coinsFlag('amount', 'stake whose capacity is lent')],
    example: 'cairn resource delegate --to cairn1… --amount 5000000',
  },
  async run({ state, height, sender, to }, { amount }) {
    const acc = (await state.getAccount(sender))!;
    const free = acc.staked - acc.delegatedOut;
    if (amount > free) {
      throw new TxFailure(
        RESOURCE.RESOURCE_STAKE_NOT_FREE({ amount, free, staked: acc.staked, lent: acc.delegatedOut }),
      );
    }
    await shiftCapacity(state, height, sender, to, amount);
  },
});

/** UNDELEGATE_RESOURCE: takes back data.amount of the capacity the sender lends `to`. */
export const undelegateResource = defineTx({
  type: 'UNDELEGATE_RESOURCE',
  module: 'resources',
  summary: 'takes back data.amount of the stake whose energy capacity the sender lends `to`',
  to: { kind: 'required', role: 'receiver' },
  rules: [(tx) => (tx.to === tx.from ? 'UNDELEGATE_RESOURCE cannot take back from the sender itself' : undefined)],
  fields: { amount: tokenAmountField('integer string: base units of lent stake to take back (1 to 2^256 − 1)') },
  energy: 300n,
  cli: {
    command: 'resource undelegate',
    about: 'Takes back --amount of the stake whose energy capacity you lend --to.',
    summary: '--to --amount (take capacity back)',
    flags: [addressFlag('to', 'the receiver, 0x… or cairn1…'), coinsFlag('amount', 'lent stake to take back')],
    example: 'cairn resource undelegate --to cairn1… --amount 5000000',
  },
  async run({ state, height, sender, to }, { amount }) {
    const lent = await getDelegation(state, sender, to);
    if (lent === 0n) throw new TxFailure(RESOURCE.RESOURCE_NOT_DELEGATED({ to }));
    if (amount > lent) throw new TxFailure(RESOURCE.RESOURCE_UNDELEGATE_EXCEEDS_LENT({ to, amount, lent }));
    await shiftCapacity(state, height, sender, to, -amount);
  },
});
