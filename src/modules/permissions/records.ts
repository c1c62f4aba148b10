import type { ExecState } from '../../protocol/execState';
import { getPermission, type Permission } from '../../protocol/permissions';
import { TxFailure } from '../../protocol/handler';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { PERMISSIONS } from './errors';
import type { Operation } from './fields';

/**
 * Multisig operation proposals (MULTISIG_PROPOSE / MULTISIG_APPROVE):
 *   msig/<id> → MultisigProposal    id = the MULTISIG_PROPOSE transaction id
 * An operation executes in the transaction whose approval reaches the threshold, once.
 */
export interface MultisigProposal {
  id: Hex;
  account: Address;
  op: Operation;
  proposer: Address;
  approvals: Address[];
  weight: number;
  /** The permission version it was proposed under: a newer permission voids it. */
  permissionVersion: number;
  createdAt: number;
  expiresAt: number;
  executedAt: number | null;
}

/** Blocks a multisig proposal or a permission change waits for approvals before it expires. */
export const APPROVAL_WINDOW_BLOCKS = 10_000;

export const multisigKey = (id: string): string => recordKey('multisig', id);
export const getMultisig = (s: ExecState, id: string): Promise<MultisigProposal | undefined> =>
  s.getRecord<MultisigProposal>(multisigKey(id));
export const putMultisig = (s: ExecState, p: MultisigProposal): Promise<void> => s.putRecord(multisigKey(p.id), p);

/** The permission of `account` and the weight of `key` in it; TxFailure when there is none or `key` holds no weight. */
export async function keyHolder(
  s: ExecState,
  account: Address,
  key: Address,
): Promise<{ permission: Permission; weight: number }> {
  const permission = await getPermission(s, account);
  if (!permission) throw new TxFailure(PERMISSIONS.PERMISSION_MISSING({ account }));
  const weight = permission.keys[key] ?? 0;
  if (weight === 0) throw new TxFailure(PERMISSIONS.PERMISSION_NOT_KEY_HOLDER({ key, account }));
  return { permission, weight };
}
