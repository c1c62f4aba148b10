import { Type } from '@sinclair/typebox';
import type { Hex } from '../../primitives/hex';
import type { Field, OptionalField } from '../tx/entry';
import { check, integerField } from '../tx/fields';

/** Field kinds of the vesting types. */

/** The longest schedule and cliff, in blocks. */
export const MAX_VESTING_BLOCKS = 1_000_000_000;

/** A number of blocks, min..MAX_VESTING_BLOCKS. */
export const blocksField = (min: number, doc: string): Field<number> =>
  integerField(`must be an integer from ${min} to ${MAX_VESTING_BLOCKS} (blocks)`, doc, min, MAX_VESTING_BLOCKS);

/** An optional number of blocks (absent: 0). */
export const optionalBlocksField = (doc: string): OptionalField<number> => ({ ...blocksField(0, doc), optional: true, read: (v) => (v === undefined ? 0 : (v as number)) });

/** VESTING_CLAIM data.vestingId: the VESTING_CREATE transaction id, read in lower case. */
export function vestingIdField(doc: string): Field<Hex, string> {
  const reason = 'must be a vesting id (0x + 64 hex digits: the VESTING_CREATE transaction id)';
  return {
    checks: [check(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }), reason, (got) => `${reason}, got ${got}`)],
    read: (v) => (v as string).toLowerCase() as Hex,
    input: { convert: (v) => (typeof v === 'string' ? v.toLowerCase() : undefined), refused: (got) => `${reason}, got ${got}` },
    doc,
  };
}
