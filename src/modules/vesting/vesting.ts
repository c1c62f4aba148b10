import { credit, debit } from '../../protocol/accounts';
import { TxFailure } from '../../protocol/handler';
import { VESTING } from './errors';
import { VESTING_ESCROW_ADDRESS } from '../../protocol/params';
import { defineTx } from '../tx/define';
import { addressFlag, coinsFlag, textFlag } from '../tx/cli';
import { blocksField, optionalBlocksField, vestingIdField } from './fields';
import { cliffHeight, getVesting, putVesting, vestedAt } from './records';

/**
 * Linear vesting with a cliff, counted in blocks. VESTING_CREATE moves `amount` from the
 * sender to the vesting escrow (0x…7b: an account no key controls, so Σ balances stays the
 * supply); from its inclusion height `start`, nothing vests before start + cliff, then
 * total × min(height − start, duration) / duration (floored) has vested. VESTING_CLAIM pays
 * the beneficiary what has vested and was not yet claimed; the last claim gets the rounding
 * remainder, so the claims sum to the total exactly.
 */
export const vestingCreate = defineTx({
  type: 'VESTING_CREATE',
  module: 'vesting',
  summary:
    'locks amount in the vesting escrow for `to`, vesting linearly over data.durationBlocks after a cliff of ' +
    'data.cliffBlocks (id = this transaction id)',
  to: { kind: 'required', role: 'beneficiary' },
  amount: { kind: 'positive', reason: 'VESTING_CREATE amount is the coins locked and must be positive' },
  fields: {
    durationBlocks: blocksField(1, 'integer, 1 to 10^9: blocks from the inclusion height until everything has vested'),
    cliffBlocks: optionalBlocksField(
      'integer, 0 to 10^9 (at most durationBlocks): blocks from the inclusion height before anything vests; default 0',
    ),
  },
  dataRules: [
    {
      broken: (d) => d.cliffBlocks > d.durationBlocks,
      reason: 'VESTING_CREATE data.cliffBlocks must not exceed data.durationBlocks',
      sdk: { field: 'cliffBlocks', message: 'must not exceed durationBlocks' },
    },
  ],
  energy: 500n,
  cli: {
    command: 'vesting create',
    about: `Locks --amount of your balance in the vesting escrow for --to. From the inclusion
height, nothing vests for --cliff blocks; everything has vested after --duration blocks,
linearly. The schedule's id is this transaction's id.`,
    summary: '--to --amount --duration [--cliff]',
    flags: [
      addressFlag('to', 'the beneficiary, 0x… or cairn1…'),
      coinsFlag('amount', 'coins to lock'),
      {
        flag: 'duration',
        field: 'durationBlocks',
        kind: 'int',
        metavar: '<blocks>',
        help: 'blocks until everything has vested, 1 to 10^9',
      },
      {
        flag: 'cliff',
        field: 'cliffBlocks',
        kind: 'int',
        metavar: '<blocks>',
        optional: true,
        help: 'blocks before anything vests (default 0, at most --duration)',
      },
    ],
    example: 'cairn vesting create --to cairn1… --amount 100000000 --duration 100000 --cliff 10000',
  },
  async run({ state, height, sender, to, tx }, d) {
    const total = BigInt(tx.amount);
    await debit(state, sender, total);
    await credit(state, VESTING_ESCROW_ADDRESS, total, height);
    await putVesting(state, {
      id: tx.id,
      from: sender,
      beneficiary: to,
      total: total.toString(),
      claimed: '0',
      start: height,
      cliff: d.cliffBlocks,
      duration: d.durationBlocks,
    });
  },
});

/** VESTING_CLAIM: pays the beneficiary (the sender) what has vested of data.vestingId and was not claimed yet. */
export const vestingClaim = defineTx({
  type: 'VESTING_CLAIM',
  module: 'vesting',
  summary: 'pays the sender, the beneficiary of data.vestingId, what has vested and was not claimed yet',
  to: { kind: 'none' },
  fields: { vestingId: vestingIdField('the schedule (its VESTING_CREATE transaction id)') },
  energy: 200n,
  cli: {
    command: 'vesting claim',
    about: 'Pays you, the beneficiary, what has vested of a schedule and was not claimed yet.',
    summary: '--id <tx id> (beneficiary)',
    flags: [textFlag('id', '<tx id>', "the schedule: its VESTING_CREATE transaction's id", 'vestingId')],
    example: 'cairn vesting claim --id 0x…',
  },
  async run({ state, height, sender }, { vestingId: id }) {
    const v = await getVesting(state, id);
    if (!v) throw new TxFailure(VESTING.VESTING_UNKNOWN({ id }));
    if (v.beneficiary !== sender)
      throw new TxFailure(VESTING.VESTING_NOT_BENEFICIARY({ id, beneficiary: v.beneficiary, sender }));
    if (height < cliffHeight(v))
      throw new TxFailure(VESTING.VESTING_BEFORE_CLIFF({ id, cliff: cliffHeight(v), height }));
    if (v.claimed === v.total) throw new TxFailure(VESTING.VESTING_FULLY_CLAIMED({ id }));
    const vested = vestedAt(v, height);
    const due = vested - BigInt(v.claimed);
    if (due === 0n) throw new TxFailure(VESTING.VESTING_NOTHING_DUE({ id, height }));
    await debit(state, VESTING_ESCROW_ADDRESS, due);
    await credit(state, sender, due, height);
    await putVesting(state, { ...v, claimed: vested.toString() });
  },
});
