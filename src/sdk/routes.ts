import { ROUTES, type ClientMethod, type RouteName, type Routes, type RouteSpec } from '../views/routes';

/** One method per route of the node's table (views/routes), named as the table names the route. */
export type RouteMethods = { [K in RouteName]: ClientMethod<Routes[K]> };

/** `?k=v&…` of the defined entries (empty without any). */
export const queryString = (q: Record<string, unknown> = {}): string => {
  const parts = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
};

/** A route's request from a method's arguments: the path parameters in order, then the query, then the body. */
export function routeRequest(r: RouteSpec, args: readonly unknown[]): { path: string; body?: string } {
  let i = 0;
  // `:` may stand in a path segment (RFC 3986 pchar): `/nfts/STONE:3` reads as written.
  const path = r.path.replace(/:([A-Za-z]+)/g, () => encodeURIComponent(String(args[i++])).replaceAll('%3A', ':'));
  const query =
    r.query && Object.keys(r.query).length ? queryString(args[i++] as Record<string, unknown> | undefined) : '';
  const body = r.body ? args[i] : undefined;
  return {
    path: path + query,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  };
}

export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];
export { ROUTES };
export { ParamError } from '../views/routes';
export type { Param, RouteSpec } from '../views/routes';
