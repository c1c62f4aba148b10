import type { ExecState } from './execState';
import { recordKey } from './records';
import type { Address, TxType } from './types';

/**
 * A weighted multisig permission on an account (docs/PROTOCOL.md "Permissions and multisig"):
 * its key holders' weights, the weight an action needs, the operations it governs and the
 * timelock of a change to it. `version` grows with every install, so a change or an operation
 * proposed under an older permission can no longer be approved or applied.
 *   perm/<account> → Permission
 */
export interface PermissionSpec {
  keys: Record<Address, number>;
  threshold: number;
  operations: TxType[];
  timelockBlocks: number;
}
export interface Permission extends PermissionSpec {
  version: number;
}

/**
 * What a permission may authorise: native and asset moves and the staking choices. The VM
 * types are left out (they run through the EVM's own path, not a module handler) and so are
 * the permission types (a permission changes only through its timelocked path).
 */
export const AUTHORISABLE = ['TRANSFER', 'STAKE', 'UNSTAKE', 'VOTE', 'TOKEN_TRANSFER', 'TOKEN_APPROVE', 'NFT_TRANSFER', 'NAME_TRANSFER'] as const satisfies readonly TxType[];
export type AuthorisableType = (typeof AUTHORISABLE)[number];

export const permissionKey = (account: Address): string => recordKey('permission', account);
export const getPermission = (s: ExecState, account: Address): Promise<Permission | undefined> => s.getRecord<Permission>(permissionKey(account));

/** Installs `spec` on `account` (null removes the permission); keeps the account's `permissioned` flag in step. */
export async function setPermission(s: ExecState, account: Address, spec: PermissionSpec | null): Promise<void> {
  const before = await getPermission(s, account);
  const acc = await s.getAccount(account);
  if (!acc) throw new Error(`setPermission: account ${account} does not exist`);
  if (spec === null) await s.deleteRecord(permissionKey(account));
  else await s.putRecord(permissionKey(account), { ...spec, version: (before?.version ?? 0) + 1 } satisfies Permission);
  acc.permissioned = spec !== null;
  await s.putAccount(account, acc);
}

/**
 * Why the account's own key may not send this type (applyTx asks only for permissioned
 * accounts, so ordinary ones pay no extra read), or undefined.
 */
export async function governedRefusal(s: ExecState, account: Address, type: TxType): Promise<string | undefined> {
  if (type === 'PERMISSION_UPDATE') return 'the account has a permission: change it with PERMISSION_PROPOSE';
  const p = await getPermission(s, account);
  return p?.operations.includes(type) ? `${type} from ${account} needs its multisig permission (MULTISIG_PROPOSE)` : undefined;
}

/** Σ weights of `keys` under `p`. */
export const weightOf = (p: PermissionSpec, keys: readonly Address[]): number => keys.reduce((w, k) => w + (p.keys[k] ?? 0), 0);
