import type { Address } from '../protocol/types';
import { MAX_CHAIN_PAGE } from '../protocol/params';
import { parseAddress } from '../crypto/address';
import type { CappedPage } from '../views';
import { badRequest } from './httpError';

/**
 * Pagination, the same on every feed: `limit` defaults to the feed's default (DEFAULT_LIMIT
 * on most) and a larger one than its maximum (MAX_LIMIT on most, MAX_CHAIN_PAGE for /chain)
 * is served capped at the maximum, the page saying so in `capped` (pageSize); `before` and
 * `from` are heights. Any other malformed or out-of-range value is a 400.
 */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** A feed's page size: its default and maximum, and how `capped` names them. */
export interface PageRule {
  def: number;
  max: number;
  /** The maximum as `capped` names it (a constant's name); its value when absent. */
  maxName?: string;
  /** What the page holds, as `capped` names it; `items` when absent. */
  items?: string;
}
/** Most feeds. */
export const FEED_PAGE: PageRule = { def: DEFAULT_LIMIT, max: MAX_LIMIT, maxName: 'MAX_LIMIT' };
/** The feeds of small records kept by this node: /mempool, /logs, /guard. */
export const LONG_PAGE: PageRule = { def: 100, max: 1_000 };
/** /chain: full blocks, for sync. */
export const CHAIN_PAGE: PageRule = { def: 100, max: MAX_CHAIN_PAGE, maxName: 'MAX_CHAIN_PAGE', items: 'blocks' };

export interface PageSize {
  /** The page size served. */
  limit: number;
  /** Why it is smaller than the limit asked for (see CappedPage); absent when it is not. */
  capped?: string;
}

/**
 * `limit` of a paginated feed under `rule`: absent or empty = the default; above the maximum,
 * the maximum, with a `capped` note for the page (docs/API.md "Pagination": a page is capped by MAX_CHAIN_PAGE on
 * /chain "and similar paginated endpoints", not refused). Not a decimal integer, or 0, is a 400.
 */
export function pageSize(q: Record<string, string>, rule: PageRule = FEED_PAGE): PageSize {
  const asked = intParam(q, 'limit', { def: rule.def, min: 1 })!;
  if (asked <= rule.max) return { limit: asked };
  return { limit: rule.max, capped: `limit ${asked} is above ${rule.maxName ?? rule.max}: at most ${rule.max} ${rule.items ?? 'items'} are served` };
}

/** `page` as served with `size`: with its `capped` note, when the size was capped. */
export const sized = <T extends object>(size: PageSize, page: T): T & CappedPage => (size.capped === undefined ? page : { ...page, capped: size.capped });

export function intParam(q: Record<string, string>, name: string, opts: { def?: number; min?: number; max?: number } = {}): number | undefined {
  const raw = q[name];
  if (raw === undefined || raw === '') return opts.def;
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`${name} must be a non-negative integer`);
  const n = Number(raw);
  if (opts.min !== undefined && n < opts.min) throw badRequest(`${name} must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw badRequest(`${name} must be at most ${opts.max}`);
  return n;
}


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
