import type { Address } from '../protocol/types';
import { parseAddress } from '../crypto/address';
import { badRequest } from './httpError';

/**
 * Pagination, the same on every feed: `limit` defaults to DEFAULT_LIMIT and may not exceed
 * the feed's maximum (MAX_LIMIT, or MAX_CHAIN_PAGE for /chain); `before` and `from` are
 * heights. A malformed or out-of-range value is a 400, never silently clamped.
 */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export function intParam(q: Record<string, string>, name: string, opts: { def?: number; min?: number; max?: number } = {}): number | undefined {
  const raw = q[name];
  if (raw === undefined || raw === '') return opts.def;
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name} must be a non-negative integer`);
  const n = Number(raw);
  if (opts.min !== undefined && n < opts.min) throw badRequest(`${name} must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw badRequest(`${name} must be at most ${opts.max}`);
  return n;
}

export const limitParam = (q: Record<string, string>, max = MAX_LIMIT, def = DEFAULT_LIMIT): number =>
  intParam(q, 'limit', { def, min: 1, max })!;

function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined; // a malformed %-escape is a bad address, not a server error
  }
}

/** An address already in its canonical form (what clients and the explorer send): taken as is. */
const CANONICAL_ADDRESS = /^0x[0-9a-f]{40}$/;

export function addressParam(s: string | undefined): Address {
  if (s !== undefined && CANONICAL_ADDRESS.test(s)) return s as Address;
  const raw = s === undefined ? undefined : decodeSegment(s);
  const a = raw === undefined ? undefined : parseAddress(raw);
  if (!a) throw badRequest('invalid address: expected 0x followed by 40 hex digits or a cairn1… native address');
  return a;
}

/** An optional enumerated filter (status words are upper case, other words lower case); anything else is a 400 naming the choices. */
export function oneOfParam<T extends string>(q: Record<string, string>, name: string, all: readonly T[], upper: boolean): T | undefined {
  const raw = q[name];
  if (raw === undefined || raw === '') return undefined;
  const v = upper ? raw.toUpperCase() : raw.toLowerCase();
  if (!all.includes(v as T)) throw badRequest(`${name} must be one of ${all.join(', ')}`);
  return v as T;
}

/**
 * The machine feeds' `since` and `final` (/ai/tasks, /bridge/transfers). A `since` above the
 * head is a 400: an empty list for a height not yet processed would read as "nothing happened".
 */
export function feedParams(q: Record<string, string>, head: number): { since: number | undefined; final: boolean } {
  const f = q.final;
  const final = f === undefined || f === '' ? false : f === 'true' || f === '1' ? true : f === 'false' || f === '0' ? false : undefined;
  if (final === undefined) throw badRequest('final must be true or false');
  const since = intParam(q, 'since');
  if (since !== undefined && since > head) throw badRequest(`since (${since}) is above this node's head (${head}): it has not processed that height yet`);
  return { since, final };
}
