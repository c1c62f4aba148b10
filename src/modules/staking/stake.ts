import { loadSupply, saveSupply, type ExecState } from '../../protocol/execState';
import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { TX } from '../../protocol/txRefusals';
import type { Address } from '../../protocol/types';
import { booleanField } from '../tx/fields';
import { defineTx } from '../tx/define';
import { coinsFlag } from '../tx/cli';
import { optionalCommissionField, signingKeysField } from './fields';
import { CANDIDATES_KEY, getCandidate, getCandidates, getVoter, putCandidate, type CandidateRecord } from './records';
import { queueUnbonding } from './unbonding';
import { JOINING_ROUNDS } from './schedule';
import { standings } from './election';
import { unjailCandidate } from './jail';
import { STAKING } from './errors';

/** Commission of a candidate that does not name one, in basis points. */
export const DEFAULT_COMMISSION_BPS = 1_000;

/** Moves `delta` into (or, negative, out of) the chain's staked counter. */
export async function addStaked(s: ExecState, delta: bigint): Promise<void> {
  const sup = await loadSupply(s);
  await saveSupply(s, { ...sup, staked: sup.staked + delta });
}

/** Registers a candidate record (genesis validators and STAKE with data.candidate). */
export async function registerCandidate(
  s: ExecState,
  c: Omit<CandidateRecord, 'received' | 'accPerVote' | 'pendingCommission'>,
): Promise<void> {
  await putCandidate(s, { ...c, pendingCommission: null, received: '0', accPerVote: '0' });
  const list = await getCandidates(s);
  await s.putRecord(CANDIDATES_KEY, [...list, c.address].sort());
}

/**
 * STAKE: locks `amount` of the sender's balance as stake (energy, voting power). With
 * `data.candidate: true` the sender also stands for election: it binds its block-signing keys
 * (`data.signingKeys`, or the keys that signed this transaction) and needs MIN_CANDIDATE_STAKE
 * of own stake after this one. Staking alone never gives a validator slot. A candidate jailed
 * for downtime sends it again to ask back in (jail.ts).
 */
export const stake = defineTx({
  type: 'STAKE',
  module: 'staking',
  summary:
    'locks amount of the balance as stake; data.candidate: true also registers the sender as a validator candidate',
  to: { kind: 'none' },
  amount: { kind: 'positive', reason: 'STAKE amount must be positive' },
  fields: {
    candidate: booleanField(
      'stand for election (needs MIN_CANDIDATE_STAKE of own stake after this STAKE); default false',
      false,
    ),
    signingKeys: signingKeysField(
      '{secp256k1, mldsa44}: the block-signing public keys a candidate binds; default: the keys signing this ' +
        'transaction',
    ),
    commission: optionalCommissionField(
      "a candidate's commission in basis points (0..10000); default 1000 (10%)",
      DEFAULT_COMMISSION_BPS,
    ),
  },
  energy: 300n,
  cli: {
    command: 'stake add',
    about: `Locks --amount of your balance as stake: energy capacity and voting power. With
--candidate you also stand for election as a validator: you need MIN_CANDIDATE_STAKE of
own stake after this one, and the keys signing this transaction become your block-signing
keys. Staking alone never gives a validator slot: voters elect (cairn stake vote).`,
    summary: 'stake coins: --amount [--candidate [--commission <bps>]]',
    flags: [
      coinsFlag('amount', 'coins to stake'),
      {
        flag: 'candidate',
        field: 'candidate',
        kind: 'switch',
        help: 'also stand for election as a validator candidate',
      },
      {
        flag: 'commission',
        field: 'commission',
        kind: 'int',
        metavar: '<bps>',
        optional: true,
        help: "a candidate's commission in basis points, 0 to 10000 (default 1000)",
      },
    ],
    example: 'cairn stake add --amount 10000000000 --candidate --commission 500 --wait included',
    acceptedNote: (data) =>
      data?.candidate === true
        ? `You stand for election. Once elected, a node must sign blocks with this key (docs/VALIDATOR.md): an ` +
          `elected member is pending — it has slots but does not count for finality — until its first block is ` +
          `final, and is jailed for downtime if it produces nothing for ${JOINING_ROUNDS} rounds of the set.`
        : undefined,
  },
  async run({ state, height, sender, tx }, d) {
    const acc = await state.getAccount(sender);
    const amount = BigInt(tx.amount);
    if (!acc || acc.balance < amount) throw new TxFailure(TX.TX_INSUFFICIENT_BALANCE());
    acc.balance -= amount;
    acc.staked += amount;
    await state.putAccount(sender, acc);
    await addStaked(state, amount);
    if (!d.candidate) return;
    const existing = await getCandidate(state, sender);
    if (existing?.jailed?.reason === 'double-sign')
      throw new TxFailure(STAKING.STAKING_SLASHED_FOR_DOUBLE_SIGN({ address: sender }));
    if (existing && !existing.jailed) throw new TxFailure(STAKING.STAKING_ALREADY_CANDIDATE({ address: sender }));
    const min = (await loadParams(state)).MIN_CANDIDATE_STAKE;
    if (acc.staked < min)
      throw new TxFailure(STAKING.STAKING_CANDIDATE_STAKE_TOO_LOW({ address: sender, min, staked: acc.staked }));
    // A candidate jailed for downtime asks back in: eligible again from the next election, keys unchanged.
    if (existing) return unjailCandidate(state, sender);
    const keys = d.signingKeys ?? (tx.envelope === 'eth' ? null : tx.publicKeys);
    if (!keys) throw new TxFailure(STAKING.STAKING_SIGNING_KEYS_MISSING({ address: sender }));
    await registerCandidate(state, {
      address: sender,
      signingKeys: keys,
      commissionBps: d.commission,
      registeredAt: height,
    });
  },
});

/**
 * UNSTAKE: moves `amount` of the sender's stake into the unbonding queue; it is liquid again
 * UNBONDING_BLOCKS later. Stake that backs votes or resource delegations cannot leave from
 * under them (re-VOTE or UNDELEGATE_RESOURCE first),
 * and no UNSTAKE may leave the chain without an eligible validator candidate.
 */
export const unstake = defineTx({
  type: 'UNSTAKE',
  module: 'staking',
  summary: 'moves amount of stake into the unbonding queue; liquid again UNBONDING_BLOCKS later',
  to: { kind: 'none' },
  amount: { kind: 'positive', reason: 'UNSTAKE amount must be positive' },
  energy: 300n,
  cli: {
    command: 'stake remove',
    about: `Moves --amount of your stake into the unbonding queue: it is liquid again
UNBONDING_BLOCKS later. Stake allocated by VOTE or lent by DELEGATE_RESOURCE cannot leave
(re-vote or take the loan back first).`,
    summary: 'unstake: --amount (liquid after UNBONDING_BLOCKS)',
    flags: [coinsFlag('amount', 'stake to unbond')],
    example: 'cairn stake remove --amount 1000000 --wait included',
  },
  async run({ state, height, sender, tx }) {
    const amount = BigInt(tx.amount);
    const acc = await state.getAccount(sender);
    if (!acc || acc.staked < amount)
      throw new TxFailure(STAKING.STAKING_INSUFFICIENT_STAKE({ address: sender, amount, staked: acc?.staked ?? 0n }));
    const allocated = BigInt((await getVoter(state, sender)).total);
    if (acc.staked - amount < allocated) {
      throw new TxFailure(STAKING.STAKING_STAKE_BACKS_VOTES({ address: sender, amount, allocated }));
    }
    if (acc.staked - amount < acc.delegatedOut) {
      throw new TxFailure(STAKING.STAKING_STAKE_BACKS_DELEGATIONS({ address: sender, amount, lent: acc.delegatedOut }));
    }
    const p = await loadParams(state);
    if (await getCandidate(state, sender)) {
      const eligible = (await standings(state, p.MIN_CANDIDATE_STAKE))
        .filter((c) => c.eligible)
        .map((c) => c.address as Address);
      if (eligible.length === 1 && eligible[0] === sender && acc.staked - amount < p.MIN_CANDIDATE_STAKE) {
        throw new TxFailure(STAKING.STAKING_LAST_ELIGIBLE_CANDIDATE({ address: sender, amount }));
      }
    }
    acc.staked -= amount;
    await state.putAccount(sender, acc);
    await addStaked(state, -amount);
    await queueUnbonding(state, sender, amount, height + Number(p.UNBONDING_BLOCKS), height);
  },
});
