import type { CliFlag } from '../tx/entry';
import { nsNameField } from '../tx/fields';

/** Data of every name-service type: { name }. Upper case is refused, never folded. */
export const NAME_FIELDS = {
  name: nsNameField('3 to 32 characters of a-z, 0-9 and "-", not starting or ending with "-"'),
};

export const NAME_ARG: CliFlag = { flag: '<name>', field: 'name', kind: 'text', help: 'the name' };
