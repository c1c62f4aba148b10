import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { SignedTx, TxType } from '../../protocol/types';
import type { TxHandler } from '../../protocol/handler';
import type { DataMessages, DataOf, Fields, RunCtx, ToOf, ToRule, TxEntry, TxSpec } from './entry';

/**
 * defineTx: the one declaration form of a transaction type. A spec (entry.ts) becomes an
 * entry whose handler the node runs:
 *
 * - `validate` (stateless, at admission and before every execution — applyTx never executes
 *   what it refuses) checks, in this order: the envelope, a zero native amount, the `to`
 *   rule, then the data object (its keys, the amount and envelope rules, each field's
 *   checks in order with its refinement, the data rules). The first broken rule is the
 *   refusal, worded as the spec says. An accepted transaction costs one compiled TypeBox
 *   check of its data plus the rules; the field-by-field walk that names the broken rule
 *   only runs for a refused one.
 * - `execute` reads the typed data (no re-check) and runs the spec with the typed `to`.
 * - `maxEnergy` and the energy charged are the spec's `energy`, success or failure, unless
 *   `run` reports its own outcome (the VM: gas used).
 */

/** The asset modules' wording of data-object refusals (the default). */
export const ASSET_MESSAGES: DataMessages = {
  notObject: (type, required) => `${type} needs a data object with ${required.join(', ')}`,
  missing: (type, key) => `${type} data.${key} is required`,
  unknown: (type, key) => `${type} data has unknown field "${key}"`,
  field: (type, key, reason) => `${type} data.${key} ${reason}`,
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The refusal of the `to` rule, or undefined. */
export function toRefusal(type: TxType, rule: ToRule, to: string | null): string | undefined {
  if (rule.kind === 'none' && to !== null) return rule.reason ?? `${type} takes no to address (to must be null)`;
  if (rule.kind === 'required' && to === null) return rule.reason ?? `${type} needs the ${rule.role} address in to`;
  return undefined;
}

/** The one schema of a field: its checks together (what the fast path checks). */
export const fieldSchema = (checks: readonly { schema: TSchema }[]): TSchema =>
  checks.length === 1 ? checks[0].schema : Type.Intersect(checks.map((c) => c.schema));

export function defineTx<const T extends TxType, const R extends ToRule, F extends Fields = Record<never, never>>(
  spec: TxSpec<T, R, F>,
): TxEntry<T, R, F> {
  const { type, fields } = spec;
  const messages = spec.messages ?? ASSET_MESSAGES;
  const envelope = spec.envelope ?? 'hybrid';
  const amount = spec.amount ?? { kind: 'zero' };
  const energy = spec.energy;
  const energyOf = typeof energy === 'bigint' ? () => energy : energy.most;

  const names = fields ? (Object.keys(fields) as (keyof F & string)[]) : [];
  const required = names.filter((k) => !fields![k].optional);
  const order = spec.checkOrder ?? names;
  const checks = Object.fromEntries(
    names.map((k) => [k, fields![k].checks.map((c) => ({ ok: TypeCompiler.Compile(c.schema), reason: c.reason }))]),
  );
  const whole = fields
    ? TypeCompiler.Compile(
        Type.Object(
          Object.fromEntries(
            names.map((k) => [
              k,
              fields[k].optional ? Type.Optional(fieldSchema(fields[k].checks)) : fieldSchema(fields[k].checks),
            ]),
          ),
          { additionalProperties: false },
        ),
      )
    : undefined;

  /** A type whose fields are all optional takes a null (absent) data as {}. */
  const dataOf = (tx: SignedTx): unknown =>
    required.length === 0 && names.length > 0 && (tx.data === null || tx.data === undefined) ? {} : tx.data;

  /** The typed data of checked data. */
  const read = (d: unknown): DataOf<F> => {
    const out: Record<string, unknown> = {};
    const obj = d as Record<string, unknown>;
    for (const k of names) out[k] = fields![k].read(obj[k]);
    return out as DataOf<F>;
  };

  /** Amount and envelope rules: checked after the data's keys, before its fields. */
  const envelopeRules = (tx: SignedTx): string | undefined => {
    if (amount.kind === 'positive' && BigInt(tx.amount) === 0n) return amount.reason;
    if (amount.kind === 'exactly' && tx.amount !== amount.value.toString()) return amount.reason;
    for (const rule of spec.rules ?? []) {
      const r = rule(tx);
      if (r !== undefined) return r;
    }
    return undefined;
  };

  /** Refinements and data rules, over data whose fields all passed. */
  const dataRules = (tx: SignedTx, d: DataOf<F>): string | undefined => {
    for (const k of order) {
      const r = fields![k].refine?.(tx, d[k]);
      if (r !== undefined) return r;
    }
    for (const rule of spec.dataRules ?? []) if (rule.broken(d)) return rule.reason;
    return undefined;
  };

  /** Every data rule in order, naming the first broken one (the slow path: refused data). */
  const walk = (tx: SignedTx): string | undefined => {
    const d = dataOf(tx);
    if (!isObject(d)) return messages.notObject(type, required);
    if (messages.missing) for (const k of required) if (!(k in d)) return messages.missing(type, k);
    for (const k of Object.keys(d)) if (!names.includes(k as keyof F & string)) return messages.unknown(type, k);
    const e = envelopeRules(tx);
    if (e !== undefined) return e;
    for (const k of order) {
      const v = d[k];
      if (v === undefined && fields![k].optional) continue;
      for (const c of checks[k]) if (!c.ok.Check(v)) return messages.field(type, k, c.reason);
      const r = fields![k].refine?.(tx, fields![k].read(v) as DataOf<F>[typeof k]);
      if (r !== undefined) return r;
    }
    const all = read(d);
    for (const rule of spec.dataRules ?? []) if (rule.broken(all)) return rule.reason;
    return undefined;
  };

  const dataRefusal = (tx: SignedTx): string | undefined => {
    if (!whole) return envelopeRules(tx);
    const d = dataOf(tx);
    if (!whole.Check(d)) return walk(tx);
    return envelopeRules(tx) ?? dataRules(tx, read(d));
  };

  const handler: TxHandler & { type: T } = {
    type,
    validate(tx) {
      if (tx.envelope === 'eth') {
        if (envelope === 'hybrid') return `${type} is a hybrid-envelope type`;
        return undefined; // decoded and checked from the raw Ethereum transaction
      }
      if (typeof envelope === 'object') return envelope.reason;
      if (amount.kind === 'zero' && tx.amount !== '0') return `${type} moves no native coins: amount must be "0"`;
      if (!messages.toLast) {
        const r = toRefusal(type, spec.to, tx.to);
        if (r !== undefined) return r;
      }
      const r = dataRefusal(tx);
      if (r !== undefined) return r;
      return messages.toLast ? toRefusal(type, spec.to, tx.to) : undefined;
    },
    maxEnergy: energyOf,
    async execute(ctx) {
      // applyTx ran validate first, so the data reads as typed and `to` obeys the rule. An
      // Ethereum-born transaction (VM types) has no data object: its run reads the raw fields.
      const c: RunCtx<R> = { ...ctx, to: ctx.tx.to as ToOf<R>, events: [] };
      const out = await spec.run(c, fields && ctx.tx.envelope !== 'eth' ? read(dataOf(ctx.tx)) : ({} as DataOf<F>));
      return out ?? { energy: energyOf(ctx.tx), events: c.events };
    },
  };
  return { ...spec, handler, readData: (tx: SignedTx) => read(dataOf(tx)) };
}
