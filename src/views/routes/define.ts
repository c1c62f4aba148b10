import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { parseAddress } from '../../crypto/address';
import { SYMBOL_RE } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';

/**
 * A route of the native HTTP API as data: method, path, parameters (TypeBox schemas), the
 * view it answers, its errors and its words. The server binds a handler to it
 * (http/routes/), the OpenAPI document, the SDK client's method, the CLI's read command and
 * the `/` index are derived from it — so a route is declared once (routes/).
 *
 * The contract lives here and not beside its handler because the SDK and the CLI import it:
 * they must not pull the server in.
 */

/** A parameter the request named wrongly: answered 400 `{error}` with this message. */
export class ParamError extends Error {}

/**
 * One path or query parameter: its JSON Schema (with its description: the OpenAPI parameter,
 * and through Static the SDK's argument type) and how the server reads the raw string.
 * `read` throws ParamError with the reason.
 */
export interface Param<S extends TSchema = TSchema, Out = unknown> {
  schema: S;
  /** Query parameters only (path parameters are always required). */
  required?: boolean;
  /** `?k=a&k=b`: refused (400) unless the route takes the first. */
  repeated?: 'first';
  read(raw: string | undefined, name: string): Out;
}

export type Params = Record<string, Param>;

/**
 * The 200 answer: a view type of src/views by name (T is that type), a text media type, or the index's HTML-or-JSON.
 */
export type Ok<T = unknown> =
  | { view: string; __type?: T }
  | { text: string; description: string; __type?: T }
  | { html: true; json: string; __type?: T };

export const view = <T>(name: string): Ok<T> => ({ view: name });
export const text = (mediaType: string, description: string): Ok<string> => ({ text: mediaType, description });

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503;

/** The names of a path's parameters, in order: `/tokens/:id/holders` → ['id']. */
export type PathNames<S extends string> = S extends `${string}:${infer N}/${infer Rest}`
  ? [N, ...PathNames<`/${Rest}`>]
  : S extends `${string}:${infer N}`
    ? [N]
    : [];

export interface RouteSpec<Path extends string = string, Q extends Params = Params, T = unknown> {
  method: 'GET' | 'POST';
  /** hyper-express form: `/tokens/:id/holders`. */
  path: Path;
  /** One per path parameter, by name. */
  params?: { [K in PathNames<Path>[number]]: Param };
  query?: Q;
  /** The request body's view type (POST); `optional`: an empty body is accepted. */
  body?: { view: string; optional?: boolean };
  ok: Ok<T>;
  /** One line: the `/` index and the OpenAPI summary. */
  summary: string;
  /** More than the summary says (OpenAPI description). */
  description?: string;
  /** Statuses this route answers with `{error}` beyond those of every route (429, 500, 503), with when. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** A non-200 answer that is not `{error}` (GET /health/ready: 503 with the readiness view). */
  otherwise?: { status: 503; view: string; description: string };
  /** x-admin-token: required (admin routes), or optional (it shows more). */
  admin?: 'required' | 'optional';
  /** The SDK method answers null for a 404 (a lookup: "no such thing" is an answer, not a failure). */
  nullIfMissing?: boolean;
  /** The CLI read command over this route (`cairn <group> <verb>`), with what its help adds to the summary. */
  cli?: { command: string; help?: string; example?: string };
}

export const defineRoute = <
  const Path extends string,
  P extends { [K in PathNames<Path>[number]]: Param },
  Q extends Params = Record<never, never>,
  T = unknown,
>(
  r: RouteSpec<Path, Q, T> & { params?: P },
): RouteSpec<Path, Q, T> & { params?: P } => r;

// ---- Types derived from a route ----

type ReadOf<P> = { [K in keyof P]: P[K] extends Param<TSchema, infer O> ? O : never };
type ArgOf<Q extends Params> = { [K in keyof Q]?: Static<Q[K]['schema']> };

/** What a handler is given: the parameters as read. */
export interface RouteInput<R> {
  params: R extends { params?: infer P } ? ReadOf<NonNullable<P>> : Record<string, never>;
  query: R extends RouteSpec<string, infer Q, unknown> ? ReadOf<Q> : Record<string, never>;
}

/** The 200 answer's type. */
export type ViewOf<R> = R extends RouteSpec<string, Params, infer T> ? T : never;

/**
 * The SDK method of a route: its path parameters in order, then the query (an object of the
 * parameters by name), then the body (POST: an object, or JSON text as is).
 */
export type ClientMethod<R> =
  R extends RouteSpec<infer Path, infer Q, infer T>
    ? (
        ...args: [...PathArgs<PathNames<Path>>, ...QueryTail<Q>, ...BodyTail<R>]
      ) => Promise<R extends { nullIfMissing: true } ? T | null : T>
    : never;

type PathArgs<N extends string[]> = { [I in keyof N]: string | number };
type QueryTail<Q extends Params> = [keyof Q] extends [never] ? [] : [query?: ArgOf<Q>];
type BodyTail<R> = R extends { body: { optional: true } }
  ? [body?: unknown]
  : R extends { body: object }
    ? [body: unknown]
    : [];

// ---- Parameter kinds: the readers every route shares ----

const raw = (s: string | undefined) => (s === undefined || s === '' ? undefined : s);

/** A non-negative integer (a height, an offset); `def` when absent or empty. */
export function int(description: string, opts: { def?: number; min?: number; max?: number } = {}) {
  const schema = Type.Integer({
    minimum: opts.min ?? 0,
    ...(opts.max !== undefined ? { maximum: opts.max } : {}),
    ...(opts.def !== undefined ? { default: opts.def } : {}),
    description,
  });
  return {
    schema,
    read(s: string | undefined, name: string): number | undefined {
      const v = raw(s);
      if (v === undefined) return opts.def;
      if (!/^\d{1,15}$/.test(v)) throw new ParamError(`${name} must be a non-negative integer`);
      const n = Number(v);
      if (opts.min !== undefined && n < opts.min) throw new ParamError(`${name} must be at least ${opts.min}`);
      if (opts.max !== undefined && n > opts.max) throw new ParamError(`${name} must be at most ${opts.max}`);
      return n;
    },
  } satisfies Param;
}

/** An integer with a default: never undefined when read. */
export function intDefault(description: string, def: number, min = 0) {
  const p = int(description, { def, min });
  return {
    schema: p.schema,
    read: (s: string | undefined, name: string): number => p.read(s, name) as number,
  } satisfies Param;
}

/** A feed's page size: its default and maximum, and how `capped` names them. */
export interface PageRule {
  def: number;
  max: number;
  /** The maximum as `capped` names it (a constant's name); its value when absent. */
  maxName?: string;
  /** What the page holds, as `capped` names it; `items` when absent. */
  items?: string;
}

export interface PageSize {
  /** The page size served. */
  limit: number;
  /** Why it is smaller than the limit asked for (see CappedPage); absent when it is not. */
  capped?: string;
}

/**
 * A feed's `limit`: absent or empty = the default; above the maximum, the maximum, with a
 * `capped` note for the page (a page is capped, not refused). Not a decimal integer, or 0, is a 400.
 */
export function limit(rule: PageRule, what = 'Page size') {
  const asked = int('', { def: rule.def, min: 1 });
  return {
    schema: Type.Integer({
      minimum: 1,
      default: rule.def,
      description:
        `${what} (${rule.def} when absent or empty); ` +
        `above ${rule.maxName ? `${rule.maxName} (${rule.max})` : rule.max} the page is served capped ` +
        `at ${rule.max} and says so in \`capped\`; 0 or not an integer is a 400`,
    }),
    read(s: string | undefined, name: string): PageSize {
      const n = asked.read(s, name) as number;
      if (n <= rule.max) return { limit: n };
      return {
        limit: rule.max,
        capped:
          `limit ${n} is above ${rule.maxName ?? rule.max}: at most ${rule.max} ${rule.items ?? 'items'} ` +
          `are served`,
      };
    },
  } satisfies Param;
}

/** A string taken as it comes (the handler reads it: a reference, a cursor, a search). */
export function str<S extends TSchema = ReturnType<typeof Type.String>>(description: string, schema?: S) {
  return {
    schema: (schema ? { ...schema, description } : Type.String({ description })) as S,
    read: (s: string | undefined): string | undefined => s,
  } satisfies Param;
}

/** A path segment as a string (always present). */
export function segment(description: string, schema = Type.String({ description })) {
  return { schema, read: (s: string | undefined): string => s ?? '' } satisfies Param;
}

export function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined; // a malformed %-escape is a bad address, not a server error
  }
}

/** An address already in its canonical form (what clients and the explorer send): taken as is. */
const CANONICAL_ADDRESS = /^0x[0-9a-f]{40}$/;

/** 0x + 40 hex digits (any case) or the native cairn1… form. */
export function readAddress(s: string | undefined): Address {
  if (s !== undefined && CANONICAL_ADDRESS.test(s)) return s as Address;
  const decoded = s === undefined ? undefined : decodeSegment(s);
  const a = decoded === undefined ? undefined : parseAddress(decoded);
  if (!a) throw new ParamError('invalid address: expected 0x followed by 40 hex digits or a cairn1… native address');
  return a;
}

/** An account in the path. */
export function address(description = 'Account: 0x + 40 hex digits (any case) or the native cairn1… form') {
  return {
    schema: Type.String({ description }),
    read: (s: string | undefined): Address => readAddress(s),
  } satisfies Param;
}

/** An optional account in the query: absent or empty = none. */
export function addressFilter(description: string) {
  return {
    schema: Type.String({ description }),
    read: (s: string | undefined): Address | undefined => (raw(s) === undefined ? undefined : readAddress(s)),
  } satisfies Param;
}

/** 0x + 64 hex digits, lower-cased; anything else is a 400 with `invalid` as its message. */
export function id64(description: string, invalid: string) {
  return {
    schema: Type.String({ pattern: '^0[xX][0-9a-fA-F]{64}$', description }),
    read(s: string | undefined): string {
      const id = (s ?? '').toLowerCase();
      if (!/^0x[0-9a-f]{64}$/.test(id)) throw new ParamError(invalid);
      return id;
    },
  } satisfies Param;
}

/**
 * An optional enumerated filter (status words are upper case, other words lower case); anything else is a 400 naming
 * the choices.
 */
export function oneOf<T extends string>(values: readonly T[], description: string, upper: boolean) {
  return {
    schema: Type.Unsafe<T>({
      type: 'string',
      enum: [...values],
      description: `${description} (any case; one of ${values.join(', ')})`,
    }),
    read(s: string | undefined, name: string): T | undefined {
      const r = raw(s);
      if (r === undefined) return undefined;
      const v = upper ? r.toUpperCase() : r.toLowerCase();
      if (!values.includes(v as T)) throw new ParamError(`${name} must be one of ${values.join(', ')}`);
      return v as T;
    },
  } satisfies Param;
}

/** true/false or 1/0; absent or empty = false. */
export function flag(description: string) {
  return {
    schema: Type.Unsafe<boolean>({ type: 'string', enum: ['true', 'false', '1', '0'], description }),
    read(s: string | undefined, name: string): boolean {
      const r = raw(s);
      if (r === undefined || r === 'false' || r === '0') return false;
      if (r === 'true' || r === '1') return true;
      throw new ParamError(`${name} must be true or false`);
    },
  } satisfies Param;
}

/** A token or collection as a route names it: by id, or by symbol. */
export type AssetRef = { id: Hex } | { symbol: string };

const ASSET_ID = /^0x[0-9a-fA-F]{40}$/;

/** A token or collection: 0x + 40 hex digits (any case), or a symbol (any case). */
function readAssetRef(raw: string, what: string): AssetRef {
  if (ASSET_ID.test(raw)) return { id: raw.toLowerCase() as Hex };
  const symbol = raw.toUpperCase();
  if (SYMBOL_RE.test(symbol)) return { symbol };
  throw new ParamError(
    `invalid ${what}: expected 0x followed by 40 hex digits or a symbol (a letter, then up to 11 letters or digits)`,
  );
}

/** A token (or collection) in the path, by id or symbol. */
export function assetRef(what: string, description: string) {
  return {
    schema: Type.String({ description }),
    read: (s: string | undefined): AssetRef => readAssetRef(decodeSegment(s ?? '') ?? '', what),
  } satisfies Param;
}

/** A collection, or one of its items as `<collection>:<item>` (items from 1). */
export function nftRef(description: string) {
  return {
    schema: Type.String({ description }),
    read(s: string | undefined): { ref: AssetRef; item?: number } {
      const m = /^([^:]+)(?::(\d{1,15}))?$/.exec(decodeSegment(s ?? '') ?? '');
      if (!m)
        throw new ParamError(
          'invalid NFT id: expected <collection> or <collection>:<item> ' +
            '(collection: 0x + 40 hex digits or a symbol; item: a positive integer)',
        );
      const ref = readAssetRef(m[1], 'collection');
      if (m[2] === undefined) return { ref };
      const item = Number(m[2]);
      if (item < 1) throw new ParamError('invalid NFT id: items are numbered from 1');
      return { ref, item };
    },
  } satisfies Param;
}

/** Which query parameters of a route the `/` index line names: `GET /tokens?limit&before`. */
export const endpointLine = (r: RouteSpec): string => {
  const q = Object.keys(r.query ?? {});
  return `${r.method} ${r.path}${q.length ? `?${q.join('&')}` : ''}`;
};
