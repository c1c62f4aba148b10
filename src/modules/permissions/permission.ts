import { createInstance, loadInstance, sendEvent } from '../../machines/instance';
import { permissionChangeDef } from './machine';
import { TxFailure } from '../../protocol/handler';
import { setPermission } from '../../protocol/permissions';
import { defineTx } from '../tx/define';
import { addressesIn, addressField, txIdField } from '../tx/fields';
import { changeField, permissionField } from './fields';
import { PERMISSIONS } from './errors';
import { APPROVAL_WINDOW_BLOCKS, keyHolder } from './records';

/**
 * PERMISSION_UPDATE installs a weighted multisig permission on the sender's account. From
 * then on the account's own key cannot send the governed operations (applyTx refuses them:
 * protocol/permissions.ts governedRefusal) nor change the permission: changes go through
 * PERMISSION_PROPOSE → PERMISSION_APPROVE → timelock → applied, and one key holder's
 * PERMISSION_VETO cancels them (modules/permissions/machine.ts).
 */
export const permissionUpdate = defineTx({
  type: 'PERMISSION_UPDATE',
  module: 'permissions',
  summary: "installs a weighted multisig permission (data.permission) on the sender's account, which has none yet",
  to: { kind: 'none' },
  fields: {
    permission: permissionField(
      '{keys: {address: weight 1..100} (1 to 16 keys), threshold (≤ Σ weights), operations: governed types, ' +
        'timelockBlocks 1..1,000,000}',
    ),
  },
  energy: 500n,
  async run({ state, sender }, { permission }) {
    await setPermission(state, sender, permission);
  },
});

const changeIdField = (doc: string) => txIdField('a permission change', 'PERMISSION_PROPOSE', doc);

/**
 * PERMISSION_PROPOSE: a key holder of data.account proposes a new permission (or its removal); its weight is the first
 * approval.
 */
export const permissionPropose = defineTx({
  type: 'PERMISSION_PROPOSE',
  module: 'permissions',
  summary:
    "a key holder proposes a change to data.account's permission (a new one, or {remove: true}); id = this " +
    'transaction id',
  to: { kind: 'none' },
  parties: (tx) => addressesIn(tx.data, ['account']),
  fields: {
    account: addressField('the permissioned account'),
    change: changeField("the new permission (as PERMISSION_UPDATE's), or {remove: true}"),
  },
  energy: 500n,
  async run({ state, height, sender, tx, events }, { account, change }) {
    const { permission, weight } = await keyHolder(state, account, sender);
    const created = await createInstance(
      state,
      permissionChangeDef,
      tx.id,
      {
        account,
        change,
        proposer: sender,
        threshold: permission.threshold,
        timelock: permission.timelockBlocks,
        baseVersion: permission.version,
        createdAt: height,
        expiresAt: height + APPROVAL_WINDOW_BLOCKS,
      },
      height,
    );
    const approved = await sendEvent(
      state,
      permissionChangeDef,
      tx.id,
      { type: 'APPROVE', key: sender, weight, height },
      height,
    );
    events.push(...created.events, ...approved.events);
  },
});

/** The change, checked against the permission it was proposed under; and the sender's weight now. */
async function changeFor(state: Parameters<typeof keyHolder>[0], id: string, sender: Parameters<typeof keyHolder>[2]) {
  const snap = await loadInstance(state, permissionChangeDef, id);
  if (!snap) throw new TxFailure(PERMISSIONS.PERMISSION_CHANGE_MISSING({ change: id }));
  const { account, baseVersion } = snap.context;
  const { permission, weight } = await keyHolder(state, account, sender);
  if (permission.version !== baseVersion)
    throw new TxFailure(PERMISSIONS.PERMISSION_CHANGE_OUTDATED({ account, change: id, applying: false }));
  return { snap, weight };
}

/** PERMISSION_APPROVE: another key holder adds its weight; reaching the threshold starts the timelock. */
export const permissionApprove = defineTx({
  type: 'PERMISSION_APPROVE',
  module: 'permissions',
  summary: 'a key holder approves a pending permission change; reaching the threshold starts its timelock',
  to: { kind: 'none' },
  fields: { changeId: changeIdField('the change (its PERMISSION_PROPOSE transaction id)') },
  energy: 300n,
  async run({ state, height, sender, events }, { changeId }) {
    const { weight } = await changeFor(state, changeId, sender);
    events.push(
      ...(
        await sendEvent(state, permissionChangeDef, changeId, { type: 'APPROVE', key: sender, weight, height }, height)
      ).events,
    );
  },
});

/** PERMISSION_VETO: any key holder cancels a change that is pending or in its timelock. */
export const permissionVeto = defineTx({
  type: 'PERMISSION_VETO',
  module: 'permissions',
  summary: 'any key holder cancels a permission change that is pending or in its timelock',
  to: { kind: 'none' },
  fields: { changeId: changeIdField('the change (its PERMISSION_PROPOSE transaction id)') },
  energy: 300n,
  async run({ state, height, sender, events }, { changeId }) {
    await changeFor(state, changeId, sender);
    events.push(
      ...(await sendEvent(state, permissionChangeDef, changeId, { type: 'VETO', key: sender }, height)).events,
    );
  },
});
