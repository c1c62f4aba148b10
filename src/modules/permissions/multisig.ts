import { TxFailure, type ExecContext, type HandlerOutcome, type TxHandler } from '../../protocol/handler';
import { AUTHORISABLE } from '../../protocol/permissions';
import { wrapRefusal } from '../../protocol/refusal';
import type { Address, HybridTx, SignedTx } from '../../protocol/types';
import { defineTx } from '../tx/define';
import { innerHandler } from '../tx/inner';
import { addressesIn, addressField, txIdField } from '../tx/fields';
import { PERMISSIONS } from './errors';
import { operationField, type Operation } from './fields';
import { APPROVAL_WINDOW_BLOCKS, getMultisig, keyHolder, putMultisig, type MultisigProposal } from './records';

/**
 * MULTISIG_PROPOSE / MULTISIG_APPROVE: operations a permission governs, sent as the
 * permissioned account once the weights of the approving keys reach its threshold. The
 * operation is checked at admission by its own type's rules, and runs through its own
 * type's handler with the account as sender, in the transaction whose approval reaches the
 * threshold (whose sender pays its energy). It runs once: the proposal id, not the
 * account's nonce, prevents a replay.
 */

const BASE_ENERGY = { propose: 500n, approve: 300n };

/**
 * The transaction the account would have sent: the operation in the proposing envelope's frame (signatures are not
 * checked for it: the approvals authorise it).
 */
function innerTx(outer: SignedTx, account: Address, op: Operation): HybridTx {
  const o = outer as HybridTx;
  return {
    ...o,
    envelope: undefined,
    type: op.type,
    from: account,
    to: op.to,
    amount: op.amount,
    data: op.data,
    nonce: 0,
    fee: '0',
  };
}

// AUTHORISABLE types are all registered (a test checks)
const handlerOf = (op: Operation): TxHandler => innerHandler(op.type)!;

/** The operation's energy at most: its type's own rule. */
const opEnergy = (outer: SignedTx, account: Address, op: Operation): bigint =>
  handlerOf(op).maxEnergy(innerTx(outer, account, op));

/** The most any authorisable operation may cost (MULTISIG_APPROVE carries only an id). */
const MAX_OP_ENERGY = (): bigint =>
  AUTHORISABLE.reduce((m, t) => {
    const h = innerHandler(t)!;
    const e = h.maxEnergy({ type: t, amount: '1', data: null } as SignedTx);
    return e > m ? e : m;
  }, 0n);

/**
 * Runs the approved operation as the account; its failure fails the approving transaction (nothing recorded, so it can
 * be retried).
 */
async function execute(ctx: ExecContext, p: MultisigProposal): Promise<HandlerOutcome> {
  const tx = innerTx(ctx.tx, p.account, p.op);
  const h = handlerOf(p.op);
  try {
    return await h.execute({ ...ctx, sender: p.account, tx });
  } catch (e) {
    if (e instanceof TxFailure) throw new TxFailure(wrapRefusal(e.refusal, 'the approved operation failed: '));
    throw e;
  }
}

/** Records `sender`'s approval; executes the operation when the threshold is reached. Returns the energy and events. */
async function approve(ctx: ExecContext, p: MultisigProposal, weight: number, base: bigint): Promise<HandlerOutcome> {
  const next: MultisigProposal = { ...p, approvals: [...p.approvals, ctx.sender].sort(), weight: p.weight + weight };
  const { permission } = await keyHolder(ctx.state, p.account, ctx.sender);
  if (next.weight < permission.threshold) {
    await putMultisig(ctx.state, next);
    return { energy: base, events: [] };
  }
  await putMultisig(ctx.state, { ...next, executedAt: ctx.height });
  const out = await execute(ctx, next);
  return { energy: base + out.energy, events: out.events ?? [] };
}

export const multisigPropose = defineTx({
  type: 'MULTISIG_PROPOSE',
  module: 'permissions',
  summary:
    'a key holder proposes an operation (data.op) for data.account to send; it runs once approvals reach the ' +
    'threshold (id = this transaction id)',
  to: { kind: 'none' },
  parties: (tx) => [...addressesIn(tx.data, ['account']), ...addressesIn((tx.data as { op?: unknown }).op, ['to'])],
  fields: {
    account: addressField('the permissioned account that would send the operation'),
    op: {
      ...operationField(
        '{type, to, amount, data}: the transaction the account would send; type one of the authorisable types',
      ),
      // The operation must pass its own type's rules, with the account as its sender.
      refine: (tx: SignedTx, op: Operation) => {
        const account = `0x${String((tx.data as { account: string }).account)
          .slice(2)
          .toLowerCase()}` as Address;
        const r = handlerOf(op).validate(innerTx(tx, account, op));
        return r === undefined ? undefined : `MULTISIG_PROPOSE data.op: ${r}`;
      },
    },
  },
  energy: {
    most: (tx) => {
      const d = tx.data as { account: string; op: Operation };
      return BASE_ENERGY.propose + opEnergy(tx, d.account.toLowerCase() as Address, operationField('').read(d.op));
    },
    doc: "500, plus the operation's own energy when this proposal's weight alone executes it",
  },
  async run(ctx, { account, op }) {
    const { permission, weight } = await keyHolder(ctx.state, account, ctx.sender);
    if (!permission.operations.includes(op.type))
      throw new TxFailure(PERMISSIONS.MULTISIG_OPERATION_NOT_GOVERNED({ account, type: op.type }));
    const p: MultisigProposal = {
      id: ctx.tx.id,
      account,
      op,
      proposer: ctx.sender,
      approvals: [],
      weight: 0,
      permissionVersion: permission.version,
      createdAt: ctx.height,
      expiresAt: ctx.height + APPROVAL_WINDOW_BLOCKS,
      executedAt: null,
    };
    return approve(ctx, p, weight, BASE_ENERGY.propose);
  },
});

export const multisigApprove = defineTx({
  type: 'MULTISIG_APPROVE',
  module: 'permissions',
  summary: 'a key holder approves a multisig proposal; the approval that reaches the threshold executes its operation',
  to: { kind: 'none' },
  fields: {
    proposalId: txIdField(
      'a multisig proposal',
      'MULTISIG_PROPOSE',
      'the proposal (its MULTISIG_PROPOSE transaction id)',
    ),
  },
  energy: {
    most: () => BASE_ENERGY.approve + MAX_OP_ENERGY(),
    doc:
      "300, plus the operation's own energy when this approval executes it " +
      '(the limit checked against `fee`: 300 + the costliest authorisable type)',
  },
  async run(ctx, { proposalId: id }) {
    const p = await getMultisig(ctx.state, id);
    if (!p) throw new TxFailure(PERMISSIONS.MULTISIG_PROPOSAL_MISSING({ proposal: id }));
    if (p.executedAt !== null) throw new TxFailure(PERMISSIONS.MULTISIG_PROPOSAL_EXECUTED({ proposal: id }));
    if (ctx.height > p.expiresAt)
      throw new TxFailure(PERMISSIONS.MULTISIG_PROPOSAL_EXPIRED({ proposal: id, expiresAt: p.expiresAt }));
    const { permission, weight } = await keyHolder(ctx.state, p.account, ctx.sender);
    if (permission.version !== p.permissionVersion)
      throw new TxFailure(PERMISSIONS.MULTISIG_PROPOSAL_OUTDATED({ account: p.account, proposal: id }));
    if (p.approvals.includes(ctx.sender))
      throw new TxFailure(PERMISSIONS.MULTISIG_ALREADY_APPROVED({ key: ctx.sender, proposal: id }));
    return approve(ctx, p, weight, BASE_ENERGY.approve);
  },
});
