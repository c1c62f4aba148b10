import { MACHINE } from '../../machines/refusals';
import type { Hex } from '../../primitives/hex';
import { refusals } from '../../protocol/refusal';
import type { Address, TxType } from '../../protocol/types';

/**
 * The permissions module's refusals (permission changes and multisig operations). What a
 * permissioned account's own key may not send is refused by protocol/permissions.ts GOVERNED.
 */
export const PERMISSIONS = refusals('permissions', {
  PERMISSION_MISSING: (m: { account: Address }) => `account ${m.account} has no permission`,
  /** The sender holds no weight in the account's permission. */
  PERMISSION_NOT_KEY_HOLDER: (m: { key: Address; account: Address }) =>
    `${m.key} holds no key of the permission of ${m.account}`,
  PERMISSION_CHANGE_MISSING: (m: { change: string }) => `permission change ${m.change} does not exist`,
  /**
   * An approval or veto of a change no longer open to it: the kit's words for a state that does not take an event,
   * under the change's own code.
   */
  PERMISSION_CHANGE_CLOSED: (m: { change: string; status: string; event: string }) =>
    MACHINE.MACHINE_EVENT_REFUSED({ machine: 'permissionChange', id: m.change, status: m.status, event: m.event })
      .reason,
  PERMISSION_CHANGE_ALREADY_APPROVED: (m: { key: Address; change: string }) =>
    `${m.key} already approved permission change ${m.change}`,
  /**
   * The account's permission was replaced since the change was proposed under it (`applying`: refused at its timelock's
   * end, not by a transaction naming it).
   */
  PERMISSION_CHANGE_OUTDATED: (m: { account: Address; change: string; applying: boolean }) =>
    `the permission of ${m.account} changed since ${m.applying ? 'this change' : `change ${m.change}`} was proposed`,
  /** The operation's type is not among those the account's permission governs. */
  MULTISIG_OPERATION_NOT_GOVERNED: (m: { account: Address; type: TxType }) =>
    `the permission of ${m.account} does not authorise ${m.type}`,
  MULTISIG_PROPOSAL_MISSING: (m: { proposal: Hex }) => `multisig proposal ${m.proposal} does not exist`,
  MULTISIG_PROPOSAL_EXECUTED: (m: { proposal: Hex }) => `multisig proposal ${m.proposal} was already executed`,
  MULTISIG_PROPOSAL_EXPIRED: (m: { proposal: Hex; expiresAt: number }) =>
    `multisig proposal ${m.proposal} expired at height ${m.expiresAt}`,
  /** The account's permission was replaced since the multisig proposal was made under it. */
  MULTISIG_PROPOSAL_OUTDATED: (m: { account: Address; proposal: Hex }) =>
    `the permission of ${m.account} changed since multisig proposal ${m.proposal} was made`,
  MULTISIG_ALREADY_APPROVED: (m: { key: Address; proposal: Hex }) =>
    `${m.key} already approved multisig proposal ${m.proposal}`,
});
