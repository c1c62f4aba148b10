import { Type } from '@sinclair/typebox';
import { parseAddress } from '../../crypto/address';
import { OPTIONS, type VoteOption } from './options';
import { PARAM_NAMES, type ParamName } from '../../protocol/governable';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import type { Field, OptionalField } from '../tx/entry';
import { ADDRESS_INPUT, check, txIdField } from '../tx/fields';

/** GOV_PROPOSE data.param: the name of a governable parameter. */
export function paramNameField(doc: string): OptionalField<ParamName | null, string> {
  const reason = `must be a governable parameter: ${PARAM_NAMES.join(', ')}`;
  return {
    checks: [check(Type.Union(PARAM_NAMES.map((n) => Type.Literal(n))), reason, (got) => `${reason}, got ${got}`)],
    optional: true,
    read: (v) => (v === undefined ? null : (v as ParamName)),
    doc,
  };
}

/** GOV_PROPOSE data.value: an integer string (its bounds are the parameter's: a data rule). */
export function paramValueField(doc: string): OptionalField<string | null, string | bigint> {
  const reason = 'must be an integer string';
  return {
    checks: [check(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' }), reason, (got) => `${reason}, got ${got}`)],
    optional: true,
    read: (v) => (v === undefined ? null : (v as string)),
    input: {
      convert: (v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v : undefined),
      refused: (got) => `${reason}, got ${got}`,
    },
    doc,
  };
}

/** GOV_PROPOSE data.spend: {to, amount} paid from the treasury. */
export function spendField(
  doc: string,
): OptionalField<{ to: Address; amount: bigint } | null, { to: string; amount: string | bigint }> {
  const reason = 'must be {to: 0x address, amount: positive integer string}';
  return {
    checks: [
      check(
        Type.Object(
          {
            to: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
            amount: Type.String({ pattern: '^[1-9][0-9]{0,77}$' }),
          },
          { additionalProperties: false },
        ),
        reason,
        (got) => `${reason}, got ${got}`,
      ),
    ],
    optional: true,
    read: (v) =>
      v === undefined
        ? null
        : { to: (v as { to: string }).to.toLowerCase() as Address, amount: BigInt((v as { amount: string }).amount) },
    input: {
      convert: (v) => {
        if (v === null || typeof v !== 'object') return undefined;
        const { to, amount } = v as { to?: unknown; amount?: unknown };
        const a = typeof to === 'string' ? parseAddress(to) : undefined;
        const n = typeof amount === 'bigint' ? amount.toString() : typeof amount === 'string' ? amount : undefined;
        return a && n ? { to: a, amount: n } : undefined;
      },
      refused: (got) => `${reason}, got ${got} (${ADDRESS_INPUT(got)})`,
    },
    doc,
  };
}

/** GOV_VOTE data.proposalId: the id of the GOV_PROPOSE transaction. */
export const proposalIdField = (doc: string): Field<Hex, string> => txIdField('a proposal', 'GOV_PROPOSE', doc);

/** GOV_VOTE data.vote. */
export function voteOptionField(doc: string): Field<VoteOption, string> {
  const reason = `must be one of ${OPTIONS.map((o) => `"${o}"`).join(', ')}`;
  return {
    checks: [check(Type.Union(OPTIONS.map((o) => Type.Literal(o))), reason, (got) => `${reason}, got ${got}`)],
    read: (v) => v as VoteOption,
    doc,
  };
}
