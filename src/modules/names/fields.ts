import { NAME_RE } from '../../protocol/params';
import { refuse } from '../assets/define';

/** Data of every name-service type: { name }. Upper case is refused, never folded. */
export function readName(type: string, d: Record<string, unknown>): { name: string } {
  const v = d.name;
  if (typeof v === 'string' && NAME_RE.test(v)) return { name: v };
  if (typeof v === 'string' && NAME_RE.test(v.toLowerCase())) refuse(`${type} data.name must be lower case (names are not case-folded)`);
  refuse(`${type} data.name must be 3 to 32 characters of a-z, 0-9 and "-", not starting or ending with "-"`);
}
