import { headerHash, verifyHeader } from '../../crypto/blockHeader';
import { credit } from '../../protocol/accounts';
import type { ExecState } from '../../protocol/execState';
import { bps, loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { BURN_PER_ENERGY, TREASURY_ADDRESS } from '../../protocol/params';
import { recordKey } from '../../protocol/records';
import type { Address, SignedTx } from '../../protocol/types';
import { defineTx } from '../tx/define';
import { STAKING } from './errors';
import { evidenceField } from './fields';
import { jailCandidate } from './jail';
import { getCandidate, getVoter, putCandidate, putVoter, sortedKeys, type VoterRecord } from './records';
import { settle } from './rewards';
import { addStaked } from './stake';

/**
 * SLASH_DOUBLE_SIGN (docs/PROTOCOL.md "Slashing double signs"): anyone proves that a
 * validator candidate signed two different blocks at one height. The evidence is the two
 * signed headers; `run` checks they are one producer's, at one height, two blocks, each
 * hashed and signed as blocks are (the candidate's bound block-signing keys), and that this
 * (producer, height) was not slashed before: the nullifier `slash/<producer>/<height>`.
 *
 * Penalty: SLASH_DOUBLE_SIGN_BPS of the producer's own stake (`AccountState.staked`, at the
 * time of the slash) goes to the treasury, taken in this order:
 *  1. stake that backs neither its VOTE allocation nor its DELEGATE_RESOURCE loans;
 *  2. stake that backs its votes: the allocation is cut to what stays staked (its rewards
 *     settled first, so none are lost) — its votes for itself first, then the others in
 *     ascending candidate address;
 *  3. its liquid balance (a producer reporting itself keeps what applyTx may still burn);
 *  4. what is still missing is not collected: stake lent by DELEGATE_RESOURCE is never taken
 *     (the loans stay whole), nor are coins already unbonding.
 * The supply is unchanged (the coins move), the staked counter loses what left the stake.
 * Then the candidate is jailed for good (jail.ts: out of the elected set at once; STAKE
 * never lets it stand again). A later offence at another height is slashed again.
 */

/** Two ML-DSA-44 (+ secp256k1) verifications: twice META_TX's inner signature check (500). */
export const SLASH_DOUBLE_SIGN_ENERGY = 1_000n;

export const slashedKey = (producer: Address, height: number): string => recordKey('slashed', producer, height);

/** The nullifier record of a slashed offence. */
export interface SlashedRecord {
  /** Height of the block that slashed it. */
  at: number;
  reporter: Address;
  /** Base units taken to the treasury. */
  penalty: string;
}

/** Cuts `v`'s allocation by `cut` (votes for `self` first, then by ascending address); `v` is settled. */
async function cutVotes(s: ExecState, voter: Address, v: VoterRecord, cut: bigint): Promise<void> {
  await settle(s, v);
  let left = cut;
  const order = [...(v.votes[voter] !== undefined ? [voter] : []), ...sortedKeys(v.votes).filter((c) => c !== voter)];
  for (const c of order) {
    if (left === 0n) break;
    const had = BigInt(v.votes[c]);
    const d = had < left ? had : left;
    left -= d;
    if (d === had) {
      delete v.votes[c];
      delete v.debts[c];
    } else v.votes[c] = (had - d).toString();
    const cand = await getCandidate(s, c);
    if (cand) await putCandidate(s, { ...cand, received: (BigInt(cand.received) - d).toString() });
  }
  v.total = (BigInt(v.total) - cut).toString();
  await putVoter(s, voter, v);
}

/**
 * Takes the penalty from `producer` to the treasury (the order above); returns what was taken and how much of it came
 * from stake.
 */
async function takePenalty(
  s: ExecState,
  producer: Address,
  height: number,
  tx: SignedTx,
): Promise<{ penalty: bigint; fromStake: bigint }> {
  const acc = await s.getAccount(producer);
  if (!acc) return { penalty: 0n, fromStake: 0n };
  const due = bps(acc.staked, (await loadParams(s)).SLASH_DOUBLE_SIGN_BPS);
  // Steps 1 and 2: stake, down to what is lent (never taken).
  const takeable = acc.staked - acc.delegatedOut;
  const fromStake = due < takeable ? due : takeable > 0n ? takeable : 0n;
  const v = await getVoter(s, producer);
  const stays = acc.staked - fromStake;
  if (BigInt(v.total) > stays) await cutVotes(s, producer, v, BigInt(v.total) - stays);
  // Step 3: the liquid balance, less what the sender's own transaction may still burn.
  const reserve = tx.from === producer ? maxBig(BigInt(tx.fee), SLASH_DOUBLE_SIGN_ENERGY * BURN_PER_ENERGY) : 0n;
  const spendable = acc.balance > reserve ? acc.balance - reserve : 0n;
  const rest = due - fromStake;
  const fromBalance = rest < spendable ? rest : spendable;

  acc.staked -= fromStake;
  acc.balance -= fromBalance;
  await s.putAccount(producer, acc);
  if (fromStake > 0n) await addStaked(s, -fromStake);
  const penalty = fromStake + fromBalance;
  if (penalty > 0n) await credit(s, TREASURY_ADDRESS, penalty, height);
  return { penalty, fromStake };
}

const maxBig = (x: bigint, y: bigint): bigint => (x > y ? x : y);

export const slashDoubleSign = defineTx({
  type: 'SLASH_DOUBLE_SIGN',
  module: 'staking',
  summary:
    'proves that a validator candidate signed two different blocks at one height (data.evidence): ' +
    'SLASH_DOUBLE_SIGN_BPS of its stake goes to the treasury and it is jailed for good',
  to: { kind: 'none' },
  fields: {
    evidence: evidenceField(
      'object {a, b}: two signed block headers of one producer at one height, as blocks carry them (each ' +
        '{height, parentHash, timestamp, producer, txRoot, stateRoot, txCount, hash, signatures: {secp256k1, ' +
        'mldsa44}})',
    ),
  },
  energy: SLASH_DOUBLE_SIGN_ENERGY,
  cli: {
    command: 'stake slash',
    about: `Proves that a validator signed two different blocks at one height: SLASH_DOUBLE_SIGN_BPS
of its own stake goes to the treasury and it is jailed for good. Anyone may send it; one
offence (producer and height) is slashed once. The node's sentinel raises a "double_sign"
alert that carries both signed headers: save it from GET /security/alerts (admin token),
e.g. jq '.alerts[] | select(.kind == "double_sign")', and pass the file as it is.`,
    summary: '--evidence <file> (prove a double sign)',
    flags: [
      {
        flag: 'evidence',
        field: 'evidence',
        kind: 'json',
        metavar: '<file>',
        help:
          "a JSON file: the two signed headers {a, b}, or the node's double_sign\nalert " +
          '(an element of GET /security/alerts), or that alert\'s "details"',
      },
    ],
    example: 'cairn stake slash --evidence double-sign-alert.json --wait included',
  },
  report: (events) => ({ penalty: events.find((e) => e.kind === 'validators.slash')?.penalty }),
  async run({ state, height, sender, tx, events }, { evidence: { a, b } }) {
    if (a.producer !== b.producer)
      throw new TxFailure(STAKING.STAKING_EVIDENCE_PRODUCERS_DIFFER({ a: a.producer, b: b.producer }));
    if (a.height !== b.height)
      throw new TxFailure(STAKING.STAKING_EVIDENCE_HEIGHTS_DIFFER({ a: a.height, b: b.height }));
    if (a.hash === b.hash) throw new TxFailure(STAKING.STAKING_EVIDENCE_SAME_BLOCK({ hash: a.hash }));
    for (const [name, h] of [
      ['a', a],
      ['b', b],
    ] as const) {
      if (headerHash(h) !== h.hash)
        throw new TxFailure(STAKING.STAKING_EVIDENCE_HASH_MISMATCH({ header: name, hash: h.hash }));
    }
    const producer = a.producer;
    const cand = await getCandidate(state, producer);
    if (!cand) throw new TxFailure(STAKING.STAKING_NOT_CANDIDATE({ role: 'producer', address: producer }));
    const nullifier = slashedKey(producer, a.height);
    if ((await state.getRecord<SlashedRecord>(nullifier)) !== undefined)
      throw new TxFailure(STAKING.STAKING_ALREADY_SLASHED({ producer, height: a.height }));
    for (const [name, h] of [
      ['a', a],
      ['b', b],
    ] as const) {
      if (verifyHeader(h, cand.signingKeys) !== undefined)
        throw new TxFailure(STAKING.STAKING_EVIDENCE_BAD_SIGNATURE({ header: name, producer }));
    }

    const { penalty, fromStake } = await takePenalty(state, producer, height, tx);
    await state.putRecord(nullifier, {
      at: height,
      reporter: sender,
      penalty: penalty.toString(),
    } satisfies SlashedRecord);
    events.push({
      kind: 'validators.slash',
      address: producer,
      height: a.height,
      penalty: penalty.toString(),
      fromStake: fromStake.toString(),
      reporter: sender,
    });
    // Jailed for good; a candidate already jailed for an earlier double sign stays as it is.
    if (cand.jailed?.reason !== 'double-sign')
      events.push(...(await jailCandidate(state, producer, height, 'double-sign')));
  },
});
