import { createInstance, loadInstance, refusalOf, step } from '../../machines/instance';
import { stateName } from '../../machines/record';
import { getCommittee, type CommitteeRecord } from '../../protocol/bridge';
import type { ExecState } from '../../protocol/execState';
import { TxFailure } from '../../protocol/handler';
import type { Refusal } from '../../protocol/refusal';
import { BRIDGE_ESCROW_ADDRESS } from '../../protocol/params';
import { recordKey } from '../../protocol/records';
import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { addressFlag, coinsFlag, textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import type { Field } from '../tx/entry';
import { addressesIn, addressField, assetIdField, tokenAmountField } from '../tx/fields';
import { inboundDigest, quorumRefusal } from './committee';
import { BRIDGE } from './errors';
import {
  assetField,
  chainField,
  foreignAddressField,
  foreignTxField,
  signaturesField,
  transferIdField,
} from './fields';
import { lock, reserve, type Asset } from './pool';
import { transferDef, type TransferStatus } from './machine';

/** The refusal of a committee-checked type while there is no committee (admission gives it too). */
export const NO_COMMITTEE: Refusal = BRIDGE.BRIDGE_NO_COMMITTEE();

/** The committee in office, or the refusal every committee-checked type words the same way. */
export async function requireCommittee(s: ExecState): Promise<CommitteeRecord> {
  const c = await getCommittee(s);
  if (!c) throw new TxFailure(NO_COMMITTEE);
  return c;
}

/** Why `who` may not settle payouts: no committee, or not one of its members (BRIDGE_SETTLE's check, and `?for=`'s). */
export const settlerRefusal = (c: CommitteeRecord | undefined, who: Address): Refusal | undefined =>
  !c
    ? NO_COMMITTEE
    : c.members.some((m) => m.address === who)
      ? undefined
      : BRIDGE.BRIDGE_NOT_COMMITTEE_MEMBER({ sender: who, epoch: c.epoch });

const statusOf = async (s: ExecState, id: Hex): Promise<TransferStatus | undefined> => {
  const snap = await loadInstance(s, transferDef, id);
  return snap && (stateName(snap.value) as TransferStatus);
};

/** Replay protection: the inbound transfer a source transaction already released, by source chain and transaction. */
export const seenKey = (chain: string, sourceTx: string): string => recordKey('bridge', 'seen', chain, sourceTx);

const optional = <V, I>(f: Field<V, I>): Field<V | null, I> & { optional: true } => ({
  ...f,
  optional: true,
  read: (v: unknown) => (v === undefined ? null : f.read(v)),
});

/**
 * BRIDGE_OUT: locks `amount` coins, or `data.tokenAmount` of FT20 `data.token`, in the bridge
 * escrow for payout to `data.recipient` on `data.chain`. The transfer id is this
 * transaction's id; the committee pays on the other chain and marks it PAID (BRIDGE_SETTLE).
 */
export const bridgeOut = defineTx({
  type: 'BRIDGE_OUT',
  module: 'bridge',
  summary:
    'locks amount coins (or data.tokenAmount of data.token) in the bridge escrow for payout to data.recipient ' +
    'on data.chain; id = this transaction id',
  to: { kind: 'none' },
  amount: { kind: 'any' },
  fields: {
    chain: chainField('the target chain\'s name, e.g. "ethereum"'),
    recipient: foreignAddressField('the recipient on the target chain, in its own format'),
    token: optional(
      assetIdField('token', 'an FT20 token id to bridge instead of coins (with data.tokenAmount; amount "0")'),
    ),
    tokenAmount: optional(tokenAmountField("the token's base units to lock (with data.token)")),
  },
  rules: [
    (tx) => {
      const d = tx.data as { token?: unknown } | null;
      const token = d !== null && typeof d === 'object' && d.token !== undefined;
      if (token && tx.amount !== '0')
        return 'BRIDGE_OUT moves coins (amount) or a token (data.token), not both: amount must be "0" with data.token';
      if (!token && tx.amount === '0')
        return 'BRIDGE_OUT amount is the coins to lock and must be positive (or give data.token with data.tokenAmount)';
      return undefined;
    },
  ],
  dataRules: [
    {
      broken: (d) => (d.token === null) !== (d.tokenAmount === null),
      reason: 'BRIDGE_OUT data.token and data.tokenAmount go together',
      sdk: { field: 'tokenAmount', message: 'goes with token' },
    },
  ],
  energy: 500n,
  cli: {
    command: 'bridge out',
    about: `Locks coins (--amount) or a token (--token with --token-amount) in the bridge for payout to
--recipient on --chain. The transfer's id is this transaction's id; it is LOCKED until the
committee pays it on the other chain and marks it PAID ("cairn bridge show <id>").`,
    summary: '--chain --recipient, and --amount <coins> | --token <id> --token-amount <n>',
    flags: [
      textFlag('chain', '<name>', 'the target chain, e.g. ethereum'),
      textFlag('recipient', '<address>', 'the recipient on the target chain'),
      { ...coinsFlag('amount', 'coins to lock'), optional: true },
      {
        flag: 'token',
        field: 'token',
        kind: 'token',
        metavar: '<id|SYMBOL>',
        optional: true,
        help: 'a token to bridge instead of coins',
      },
      { ...textFlag('token-amount', '<n>', "the token's base units to lock", 'tokenAmount'), optional: true },
    ],
    example: 'cairn bridge out --chain ethereum --recipient 0xabc… --amount 25000000 --wait included',
  },
  async run({ state, height, sender, tx, events }, d) {
    const asset: Asset = d.token ?? 'native';
    const amount = d.token !== null ? d.tokenAmount! : BigInt(tx.amount);
    await lock({ state, height, events }, asset, sender, amount);
    const step = await createInstance(
      state,
      transferDef,
      tx.id,
      {
        direction: 'out',
        asset,
        amount: amount.toString(),
        chain: d.chain,
        from: sender,
        recipient: d.recipient,
        to: null,
        sourceTx: null,
        epoch: null,
        createdAt: height,
      },
      height,
    );
    events.push(...step.events);
  },
});

/** The digest a BRIDGE_IN's signatures are over, from its typed data. */
export const inboundOf = (
  d: { sourceChain: string; sourceTx: string; asset: Asset; to: Address; amount: bigint },
  chainId: number,
): Uint8Array =>
  inboundDigest(
    { sourceChain: d.sourceChain, sourceTx: d.sourceTx, asset: d.asset, to: d.to, amount: d.amount.toString() },
    chainId,
  );

/**
 * BRIDGE_IN: releases a deposit made on `data.sourceChain` to `data.to`, on the committee's
 * quorum of hybrid signatures over the inbound digest (modules/bridge/committee.ts). A source
 * transaction releases at most once (attested again only after a REFUSED attempt, which paid nothing); the amount must
 * be locked and not promised to another
 * transfer; the circuit breaker may delay it (DELAYED, with its release height). The transfer
 * id is this transaction's id. Anyone may send it (a relayer): the signatures are the proof.
 */
export const bridgeIn = defineTx({
  type: 'BRIDGE_IN',
  module: 'bridge',
  summary:
    'releases a deposit from data.sourceChain (data.sourceTx) to data.to on a committee quorum of hybrid ' +
    'signatures (data.signatures); id = this transaction id',
  to: { kind: 'none' },
  fields: {
    sourceChain: chainField('the chain the deposit was made on'),
    sourceTx: foreignTxField("the deposit's transaction there (released at most once)"),
    asset: assetField('"native" (coins) or the token id released'),
    to: addressField('the account paid on Cairn (0x address)'),
    amount: tokenAmountField('base units released (integer string)'),
    signatures: signaturesField(
      "[{signer, secp256k1, mldsa44}]: committee members' hybrid signatures of the inbound digest",
    ),
  },
  dataRules: [
    {
      broken: (d) => d.to === BRIDGE_ESCROW_ADDRESS,
      reason: 'BRIDGE_IN data.to cannot be the bridge escrow (0x…79)',
      sdk: { field: 'to', message: 'cannot be the bridge escrow (0x…79)' },
    },
  ],
  parties: (tx) => addressesIn(tx.data, ['to']),
  energy: 2_000n,
  cli: {
    command: 'bridge in',
    about: `Submits an inbound deposit with the committee's signatures (a relayer's job). --signatures
is a JSON file: the members' [{signer, secp256k1, mldsa44}] over the inbound digest ("cairn
bridge attest" makes one member's). Anyone may submit it: the signatures are the proof.`,
    summary: '--source-chain --source-tx --asset --to --amount --signatures <file.json>',
    flags: [
      textFlag('source-chain', '<name>', 'the chain the deposit was made on', 'sourceChain'),
      textFlag('source-tx', '<id>', 'the deposit transaction there', 'sourceTx'),
      textFlag('asset', '<native|token id>', 'native (coins) or the token id'),
      addressFlag('to', 'the account paid on Cairn, 0x… or cairn1…'),
      textFlag('amount', '<n>', 'base units released'),
      {
        flag: 'signatures',
        field: 'signatures',
        kind: 'json',
        metavar: '<file.json>',
        help: "the members' signatures: [{signer, secp256k1, mldsa44}]",
      },
    ],
    example:
      'cairn bridge in --source-chain ethereum --source-tx 0x9f… --asset native --to cairn1… --amount 5000000 ' +
      '--signatures sigs.json --wait included',
  },
  async run({ state, height, tx, events, network }, d) {
    const c = await requireCommittee(state);
    const seen = await state.getRecord<Hex>(seenKey(d.sourceChain, d.sourceTx));
    // A REFUSED transfer paid nothing: its deposit may be attested again (e.g. once the token is unpaused).
    if (seen && (await statusOf(state, seen)) !== 'REFUSED')
      throw new TxFailure(
        BRIDGE.BRIDGE_DEPOSIT_ALREADY_ATTESTED({ chain: d.sourceChain, sourceTx: d.sourceTx, transfer: seen }),
      );
    const refused = quorumRefusal(c, inboundOf(d, network.chainId), d.signatures, 'BRIDGE_IN');
    if (refused) throw new TxFailure(refused);
    await reserve(state, d.asset, d.amount);
    await state.putRecord(seenKey(d.sourceChain, d.sourceTx), tx.id);
    const step = await createInstance(
      state,
      transferDef,
      tx.id,
      {
        direction: 'in',
        asset: d.asset,
        amount: d.amount.toString(),
        chain: d.sourceChain,
        from: null,
        recipient: null,
        to: d.to,
        sourceTx: d.sourceTx,
        epoch: c.epoch,
        createdAt: height,
      },
      height,
    );
    events.push(...step.events);
  },
});

/**
 * BRIDGE_SETTLE: a committee member marks a LOCKED outbound transfer PAID, naming the payout's transaction on the
 * target chain.
 */
export const bridgeSettle = defineTx({
  type: 'BRIDGE_SETTLE',
  module: 'bridge',
  summary:
    'a committee member marks a LOCKED outbound transfer PAID, naming the payout transaction on the target ' +
    'chain (data.targetTx)',
  to: { kind: 'none' },
  fields: { transferId: transferIdField(), targetTx: foreignTxField("the payout's transaction on the target chain") },
  energy: 300n,
  cli: {
    command: 'bridge settle',
    about: 'Marks an outbound transfer PAID once you (a committee member) paid it on the target chain.',
    summary: '--transfer <id> --target-tx <id>',
    flags: [
      textFlag('transfer', '<id>', 'the transfer id (its BRIDGE_OUT transaction id)', 'transferId'),
      textFlag('target-tx', '<id>', 'the payout transaction on the target chain', 'targetTx'),
    ],
    example: 'cairn bridge settle --transfer 0x… --target-tx 0x9f… --wait included',
  },
  async run({ state, height, sender, events }, { transferId, targetTx }) {
    const notSettler = settlerRefusal(await getCommittee(state), sender);
    if (notSettler) throw new TxFailure(notSettler);
    const snap = await loadInstance(state, transferDef, transferId);
    if (!snap) throw new TxFailure(BRIDGE.BRIDGE_TRANSFER_MISSING({ transfer: transferId }));
    const event = { type: 'SETTLE', by: sender, targetTx, height } as const;
    const refused = refusalOf(transferDef, transferId, snap, event); // the machine's rules: outbound, LOCKED
    if (refused) throw new TxFailure(refused);
    // One payout settles one transfer: a payout named twice would mark two transfers PAID for one payment.
    const payoutKey = recordKey('bridge', 'payout', snap.context.chain, targetTx);
    const already = await state.getRecord<Hex>(payoutKey);
    if (already)
      throw new TxFailure(
        BRIDGE.BRIDGE_PAYOUT_ALREADY_SETTLED({ chain: snap.context.chain, targetTx, transfer: already }),
      );
    await state.putRecord(payoutKey, transferId);
    events.push(...(await step(state, transferDef, transferId, snap, event, height, 'tx')).events);
  },
});
