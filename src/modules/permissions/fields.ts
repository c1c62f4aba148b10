import { Type } from '@sinclair/typebox';
import { parseAddress } from '../../crypto/address';
import { AUTHORISABLE, type PermissionSpec } from '../../protocol/permissions';
import type { Address, TxType } from '../../protocol/types';
import type { Field } from '../tx/entry';
import { addressKeys, check } from '../tx/fields';

/** Field kinds of the permission types. */

export const MAX_PERMISSION_KEYS = 16;
export const MAX_KEY_WEIGHT = 100;
export const MAX_TIMELOCK_BLOCKS = 1_000_000;

const SPEC_SHAPE = Type.Object(
  {
    keys: Type.Record(Type.String(), Type.Integer({ minimum: 1, maximum: MAX_KEY_WEIGHT }), {
      minProperties: 1,
      maxProperties: MAX_PERMISSION_KEYS,
    }),
    threshold: Type.Integer({ minimum: 1 }),
    operations: Type.Array(Type.Union(AUTHORISABLE.map((t) => Type.Literal(t))), { minItems: 1, uniqueItems: true }),
    timelockBlocks: Type.Integer({ minimum: 1, maximum: MAX_TIMELOCK_BLOCKS }),
  },
  { additionalProperties: false },
);
const SPEC_REASON =
  `must be {keys, threshold, operations, timelockBlocks}: keys maps 1 to ${MAX_PERMISSION_KEYS} addresses to ` +
  `weights 1..${MAX_KEY_WEIGHT}, ` +
  `threshold ≥ 1, operations lists distinct types of ${AUTHORISABLE.join(', ')}, timelockBlocks ` +
  `1..${MAX_TIMELOCK_BLOCKS}`;
const KEYS_REASON = 'has a key that is not an address (0x… or cairn1…)';

/** The spec as stored: keys in 0x lower case (two spellings of one address are one key: weights add up). */
function readSpec(v: unknown): PermissionSpec {
  const o = v as { keys: Record<string, number>; threshold: number; operations: TxType[]; timelockBlocks: number };
  const keys: Record<Address, number> = {};
  for (const [k, w] of Object.entries(o.keys)) {
    const a = parseAddress(k)!;
    keys[a] = (keys[a] ?? 0) + w;
  }
  const sorted = Object.fromEntries(Object.entries(keys).sort(([a], [b]) => (a < b ? -1 : 1))) as Record<
    Address,
    number
  >;
  return {
    keys: sorted,
    threshold: o.threshold,
    operations: [...o.operations].sort(),
    timelockBlocks: o.timelockBlocks,
  };
}

/** A threshold no set of keys can reach would lock the account's governed operations for good. */
export const unreachable = (p: PermissionSpec): boolean =>
  p.threshold > Object.values(p.keys).reduce((a, b) => a + b, 0);
export const UNREACHABLE = 'threshold exceeds the sum of the key weights';

/** A permission (PERMISSION_UPDATE's data.permission). */
export function permissionField(doc: string): Field<PermissionSpec, unknown> {
  const sdk = (got: string) => `${SPEC_REASON}, got ${got}`;
  return {
    checks: [check(SPEC_SHAPE, SPEC_REASON, sdk), check(Type.Object({ keys: addressKeys() }), KEYS_REASON, sdk)],
    read: readSpec,
    refine: (tx, p) => (unreachable(p) ? `${tx.type} data.permission ${UNREACHABLE}` : undefined),
    doc,
  };
}

/** PERMISSION_PROPOSE's data.change: a new permission, or {remove: true}. */
export function changeField(doc: string): Field<PermissionSpec | null, unknown> {
  const reason = `must be {remove: true} or a permission ${SPEC_REASON.replace(/^must be /, '')}`;
  const sdk = (got: string) => `${reason}, got ${got}`;
  return {
    checks: [
      check(
        Type.Union([SPEC_SHAPE, Type.Object({ remove: Type.Literal(true) }, { additionalProperties: false })]),
        reason,
        sdk,
      ),
      check(
        Type.Union([Type.Object({ keys: addressKeys() }), Type.Object({ remove: Type.Literal(true) })]),
        KEYS_REASON,
        sdk,
      ),
    ],
    read: (v) => ((v as { remove?: true }).remove === true ? null : readSpec(v)),
    refine: (tx, p) => (p !== null && unreachable(p) ? `${tx.type} data.change ${UNREACHABLE}` : undefined),
    doc,
  };
}

/** An operation a multisig proposes: what the account would send itself. */
export interface Operation {
  type: TxType;
  to: Address | null;
  amount: string;
  data: unknown;
}

export function operationField(doc: string): Field<Operation, unknown> {
  const reason =
    `must be {type, to, amount, data?}: type one of ${AUTHORISABLE.join(', ')}, to a 0x address or null, amount ` +
    `an integer string`;
  return {
    checks: [
      check(
        Type.Object(
          {
            type: Type.Union(AUTHORISABLE.map((t) => Type.Literal(t))),
            to: Type.Union([Type.Null(), Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })]),
            amount: Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' }),
            data: Type.Optional(Type.Unknown()),
          },
          { additionalProperties: false },
        ),
        reason,
        (got) => `${reason}, got ${got}`,
      ),
    ],
    read: (v) => {
      const o = v as { type: TxType; to: string | null; amount: string; data?: unknown };
      return {
        type: o.type,
        to: o.to === null ? null : (o.to.toLowerCase() as Address),
        amount: o.amount,
        data: o.data ?? null,
      };
    },
    doc,
  };
}
