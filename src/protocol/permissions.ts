import type { ExecState } from './execState';
import { recordKey } from './records';
import { refusals, type Refusal } from './refusal';
import type { Address, SignedTx, TxType } from './types';

/**
 * A weighted multisig permission on an account (docs/PROTOCOL.md "Weighted multisig permissions"):
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
export const AUTHORISABLE = [
  'TRANSFER',
  'STAKE',
  'UNSTAKE',
  'VOTE',
  'TOKEN_TRANSFER',
  'TOKEN_APPROVE',
  'NFT_TRANSFER',
  'NAME_TRANSFER',
] as const satisfies readonly TxType[];
export type AuthorisableType = (typeof AUTHORISABLE)[number];

export const permissionKey = (account: Address): string => recordKey('permission', account);
export const getPermission = (s: ExecState, account: Address): Promise<Permission | undefined> =>
  s.getRecord<Permission>(permissionKey(account));

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
 * The governable types that move what an account holds to another account, or let another
 * move it. A permission governing any of them makes the account's value multisig-only, so its
 * own key may send no Ethereum-envelope transaction: that envelope is signed by the
 * secp256k1 key alone, and the EVM moves the account's coins (value) and whatever it holds in
 * contracts, which no native type names and no multisig approval can reach.
 */
export const VALUE_MOVING = [
  'TRANSFER',
  'TOKEN_TRANSFER',
  'TOKEN_APPROVE',
  'NFT_TRANSFER',
  'NAME_TRANSFER',
] as const satisfies readonly AuthorisableType[];

/** The EVM's types: they move the sender's coins as their value, in either envelope. */
const VM_TYPES: readonly TxType[] = ['VM_DEPLOY', 'VM_CALL', 'VM_TRANSFER'];

/**
 * The permissions module's refusals of what a permissioned account's own key sends (here, not
 * in modules/permissions/errors.ts: applyTx and admission ask governedRefusal, and protocol/
 * may not import modules/).
 */
export const GOVERNED = refusals('permissions', {
  /** PERMISSION_UPDATE from an account that has a permission. */
  PERMISSION_EXISTS: (_: { account: Address }) => 'the account has a permission: change it with PERMISSION_PROPOSE',
  /** The account's own key sends a type its permission governs. */
  PERMISSION_GOVERNED: (m: { account: Address; type: TxType }) =>
    `${m.type} from ${m.account} needs its multisig permission (MULTISIG_PROPOSE)`,
  /** An Ethereum-envelope transaction from an account whose permission governs a VALUE_MOVING type (`governs`). */
  PERMISSION_ETH_ENVELOPE_GOVERNED: (m: { account: Address; governs: readonly TxType[] }) =>
    `Ethereum-envelope transactions from ${m.account} are refused: its permission ` +
    `governs ${m.governs.join(', ')} (value moves only through MULTISIG_PROPOSE)`,
  /** A VM transaction carrying value from an account whose permission governs TRANSFER. */
  PERMISSION_VM_VALUE_GOVERNED: (m: { account: Address; type: TxType }) =>
    `${m.type} from ${m.account} sends value, and its permission governs TRANSFER (MULTISIG_PROPOSE)`,
});

/**
 * Why `account`'s own key may not send `tx`, or undefined: the one check of every path that
 * runs a transaction as its signer — applyTx for the sender, META_TX for the user of its inner
 * transaction, admission for both (docs/PROTOCOL.md "Weighted multisig permissions"). Reads
 * nothing for an account without a permission. Refused: what the permission governs; any
 * Ethereum-envelope transaction when it governs a VALUE_MOVING type; a hybrid VM transaction
 * carrying value when it governs TRANSFER.
 */
export async function governedRefusal(
  s: ExecState,
  account: Address,
  tx: Pick<SignedTx, 'type' | 'envelope' | 'amount'>,
): Promise<Refusal | undefined> {
  const acc = await s.getAccount(account);
  if (!acc?.permissioned) return undefined;
  if (tx.type === 'PERMISSION_UPDATE') return GOVERNED.PERMISSION_EXISTS({ account });
  const p = await getPermission(s, account);
  if (!p) return undefined;
  if (p.operations.includes(tx.type)) return GOVERNED.PERMISSION_GOVERNED({ account, type: tx.type });
  const guarded = p.operations.filter((t) => (VALUE_MOVING as readonly TxType[]).includes(t));
  if (tx.envelope === 'eth' && guarded.length > 0)
    return GOVERNED.PERMISSION_ETH_ENVELOPE_GOVERNED({ account, governs: guarded });
  if (VM_TYPES.includes(tx.type) && BigInt(tx.amount) > 0n && p.operations.includes('TRANSFER')) {
    return GOVERNED.PERMISSION_VM_VALUE_GOVERNED({ account, type: tx.type });
  }
  return undefined;
}

/** Σ weights of `keys` under `p`. */
export const weightOf = (p: PermissionSpec, keys: readonly Address[]): number =>
  keys.reduce((w, k) => w + (p.keys[k] ?? 0), 0);
