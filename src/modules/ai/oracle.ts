import { Type } from '@sinclair/typebox';
import { credit, debit } from '../../protocol/accounts';
import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { AI_ESCROW_ADDRESS } from '../../protocol/params';
import { queueUnbonding } from '../staking';
import { coinsFlag, textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import type { OptionalField } from '../tx/entry';
import { check, optionalTextField } from '../tx/fields';
import { AI } from './errors';
import { addToOracleList, getOracle, newOracle, putOracle } from './oracles';

const leaveField: OptionalField<boolean, boolean> = {
  checks: [check(Type.Literal(true), 'must be true (or absent)', (got) => `must be true, got ${got}`)],
  optional: true,
  read: (v) => v === true,
  doc:
    'true: leave — the whole stake goes to the unbonding queue for ORACLE_UNBONDING_BLOCKS ' +
    '(amount "0"; refused while the oracle has open duties)',
};

/**
 * ORACLE_REGISTER: stakes `amount` as an oracle (the first time at least MIN_ORACLE_STAKE; later
 * ones add to it, e.g. to top up after a slash), with an optional `data.endpoint`. With
 * `data.leave: true` and amount "0" the oracle leaves: once it has no open duty its whole stake
 * unbonds like an UNSTAKE (liquid ORACLE_UNBONDING_BLOCKS later); it may register again later.
 */
export const oracleRegister = defineTx({
  type: 'ORACLE_REGISTER',
  module: 'ai',
  summary:
    'stakes amount as an oracle (at least MIN_ORACLE_STAKE in all), or adds to its stake; data.leave: true ' +
    'starts leaving (stake unbonds)',
  to: { kind: 'none' },
  amount: { kind: 'any' },
  fields: {
    endpoint: optionalTextField(256, "where the oracle's operator can be reached (shown on /ai/oracles)"),
    leave: leaveField,
  },
  rules: [
    (tx) => {
      const leave = (tx.data as { leave?: unknown } | null)?.leave === true;
      if (leave && tx.amount !== '0') return 'ORACLE_REGISTER with data.leave moves no coins: amount must be "0"';
      if (!leave && tx.amount === '0') return 'ORACLE_REGISTER amount is the stake to add and must be positive';
      return undefined;
    },
  ],
  energy: 500n,
  cli: {
    command: 'oracle register',
    about: `Registers as an oracle by staking --amount (at least MIN_ORACLE_STAKE in all), or adds
to your stake (e.g. to top up after a slash). --leave (with no --amount) starts leaving: with
no open duty left, the whole stake unbonds and is liquid ORACLE_UNBONDING_BLOCKS later.`,
    summary: 'stake as an oracle: --amount [--endpoint <url>] | --leave',
    flags: [
      { ...coinsFlag('amount', 'stake to lock'), optional: true },
      { ...textFlag('endpoint', '<url>', 'where your operator can be reached (public)'), optional: true },
      { flag: 'leave', field: 'leave', kind: 'switch', help: 'leave: unbond the whole stake (no open duties allowed)' },
    ],
    example: 'cairn oracle register --amount 500000000 --endpoint https://oracle.example --wait included',
  },
  async run({ state, height, sender, tx }, d) {
    const p = await loadParams(state);
    const o = await getOracle(state, sender);
    if (d.leave) {
      if (!o || o.leftAt !== null) throw new TxFailure(AI.AI_NOT_ORACLE({ oracle: sender, hint: false }));
      if (o.duties > 0) throw new TxFailure(AI.AI_ORACLE_BUSY({ oracle: sender, duties: o.duties }));
      const stake = BigInt(o.stake);
      if (stake > 0n) {
        await debit(state, AI_ESCROW_ADDRESS, stake);
        await queueUnbonding(state, sender, stake, height + Number(p.ORACLE_UNBONDING_BLOCKS), height);
      }
      await putOracle(state, { ...o, stake: '0', leftAt: height });
      return;
    }
    const amount = BigInt(tx.amount);
    const base =
      o && o.leftAt === null
        ? o
        : { ...(o ?? newOracle(sender, height, null)), registeredAt: height, leftAt: null, stake: '0' };
    const stake = BigInt(base.stake) + amount;
    if (stake < p.MIN_ORACLE_STAKE) throw new TxFailure(AI.AI_STAKE_TOO_LOW({ min: p.MIN_ORACLE_STAKE, stake }));
    await debit(state, sender, amount);
    await credit(state, AI_ESCROW_ADDRESS, amount, height);
    await putOracle(state, { ...base, stake: stake.toString(), endpoint: d.endpoint ?? base.endpoint });
    await addToOracleList(state, sender);
  },
});
