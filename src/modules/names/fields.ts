import { NAME_RE } from '../../chain/params';

/** Data of every name-service type: { name }. Upper case is refused, never folded. */
export function parseName(type: string, d: Record<string, unknown>): { name: string } | string {
  const v = d.name;
  if (typeof v === 'string' && NAME_RE.test(v)) return { name: v };
  if (typeof v === 'string' && NAME_RE.test(v.toLowerCase())) return `${type} data.name must be lower case (names are not case-folded)`;
  return `${type} data.name must be 3 to 32 characters of a-z, 0-9 and "-", not starting or ending with "-"`;
}
