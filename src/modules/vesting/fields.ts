import type { Hex } from '../../primitives/hex';
import type { Field, OptionalField } from '../tx/entry';
import { integerField, txIdField } from '../tx/fields';

/** Field kinds of the vesting types. */

/** The longest schedule and cliff, in blocks. */
export const MAX_VESTING_BLOCKS = 1_000_000_000;

/** A number of blocks, min..MAX_VESTING_BLOCKS. */
export const blocksField = (min: number, doc: string): Field<number> =>
  integerField(`must be an integer from ${min} to ${MAX_VESTING_BLOCKS} (blocks)`, doc, min, MAX_VESTING_BLOCKS);

/** An optional number of blocks (absent: 0). */
export const optionalBlocksField = (doc: string): OptionalField<number> => ({
  ...blocksField(0, doc),
  optional: true,
  read: (v) => (v === undefined ? 0 : (v as number)),
});

/** VESTING_CLAIM data.vestingId: the VESTING_CREATE transaction id, read in lower case. */
export const vestingIdField = (doc: string): Field<Hex, string> => txIdField('a vesting', 'VESTING_CREATE', doc);
