import canonicalizeJson from 'canonicalize';
import { utf8 } from './hex';

/** RFC 8785 (JCS) canonical JSON text of a value. Numbers must be safe integers. */
export function canonicalJson(value: unknown): string {
  const s = canonicalizeJson(value);
  if (s === undefined) throw new Error('value cannot be canonicalized');
  return s;
}

export const canonicalBytes = (value: unknown): Uint8Array => utf8(canonicalJson(value));
