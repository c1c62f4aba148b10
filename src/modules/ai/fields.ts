import { Type } from '@sinclair/typebox';
import type { Hex } from '../../primitives/hex';
import type { Field, OptionalField } from '../tx/entry';
import { check, hexField, txIdField, utf8Max } from '../tx/fields';
import type { Aggregate } from './aggregate';

/** Data fields of the AI types. Texts are bounded in UTF-8 bytes; the transaction's data is bounded as a whole too. */
export const MAX_PROMPT_BYTES = 8_192;
export const MAX_OUTPUT_BYTES = 4_096;
export const MAX_SALT_BYTES = 256;

/** data.taskId: the AI_TASK transaction's id. */
export const taskIdField = (doc = 'the task (its AI_TASK transaction id)'): Field<Hex, string> =>
  txIdField('a task', 'AI_TASK', doc);

/** A required text of 1 to `max` UTF-8 bytes (outputs, prompts, salts, target transaction ids). */
export function textField(max: number, doc: string): Field<string> {
  const reason = `must be a non-empty string of at most ${max} UTF-8 bytes`;
  return {
    checks: [
      check(Type.String({ minLength: 1 }), reason, (got) => `must be a non-empty string, got ${got}`),
      check(Type.String({ format: utf8Max(max) }), reason, () => `must be at most ${max} bytes of UTF-8`),
    ],
    read: (v) => v as string,
    doc,
  };
}
/** AI_TASK data.quorum: commit-reveal with this many reveals needed (≥ 2; at most AI_MAX_COMMITTERS, a state rule). */
export function quorumField(doc: string): OptionalField<number | null, number> {
  return {
    checks: [
      check(
        Type.Integer({ minimum: 2, maximum: 64 }),
        'must be an integer from 2 to 64',
        (got) => `must be an integer from 2 to 64, got ${got}`,
      ),
    ],
    optional: true,
    read: (v) => (v === undefined ? null : (v as number)),
    doc,
  };
}

/** AI_TASK data.open: true for an auction. */
export function openField(doc: string): OptionalField<boolean, boolean> {
  return {
    checks: [check(Type.Literal(true), 'must be true (or absent)', (got) => `must be true, got ${got}`)],
    optional: true,
    read: (v) => v === true,
    doc,
  };
}

export function aggregateField(doc: string): OptionalField<Aggregate, Aggregate> {
  const reason = 'must be "exact" or "median"';
  return {
    checks: [
      check(Type.Union([Type.Literal('exact'), Type.Literal('median')]), reason, (got) => `${reason}, got ${got}`),
    ],
    optional: true,
    read: (v) => (v === undefined ? 'exact' : (v as Aggregate)),
    doc,
  };
}

export const commitField = (doc: string): Field<Hex, string> => {
  const f = hexField('must be 0x + 64 hex digits (keccak-256 of the canonical {oracle, output, salt, taskId})', doc);
  return {
    ...f,
    checks: [check(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }), f.checks[0].reason, f.checks[0].sdk)],
    read: (v) => (v as string).toLowerCase() as Hex,
  };
};

export function verdictField(doc: string): Field<'uphold' | 'overturn'> {
  const reason = 'must be "uphold" or "overturn"';
  return {
    checks: [
      check(Type.Union([Type.Literal('uphold'), Type.Literal('overturn')]), reason, (got) => `${reason}, got ${got}`),
    ],
    read: (v) => v as 'uphold' | 'overturn',
    doc,
  };
}
