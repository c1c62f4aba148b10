/**
 * CORS for the node's two HTTP surfaces (the native API and JSON-RPC), from one setting
 * (`--cors-origins`): `*` (the default) lets any web page read the node; a list allows those
 * origins only (the answer names the origin, and every answer, allowed or not, says
 * `Vary: Origin` so a shared cache never hands one origin's answer to another); an empty list
 * sends no CORS headers. Credentials are never allowed, and `x-admin-token` is not an allowed
 * header, so a page on another origin can never call an admin endpoint.
 */
export interface Cors {
  /** Headers for an answer to a request from `origin` (none when it is not allowed). */
  headers(origin: string | undefined): Record<string, string>;
  /** Headers for the preflight (OPTIONS) of a request from `origin`. */
  preflight(origin: string | undefined, methods: string): Record<string, string>;
}

export function cors(origins: readonly string[], expose: readonly string[] = []): Cors {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const allow = (origin: string | undefined): string | undefined =>
    any ? '*' : origin !== undefined && allowed.has(origin) ? origin : undefined;
  // With a list, the answer depends on the Origin header even when it names none of them.
  const vary: Record<string, string> = !any && allowed.size > 0 ? { vary: 'Origin' } : {};
  const base = (origin: string | undefined): Record<string, string> => {
    const o = allow(origin);
    if (o === undefined) return { ...vary };
    return {
      'access-control-allow-origin': o,
      ...vary,
      ...(expose.length ? { 'access-control-expose-headers': expose.join(', ') } : {}),
    };
  };
  // Answers depend on the origin alone: computed once per origin (bounded: origins are client-chosen).
  const known = new Map<string | undefined, Record<string, string>>();
  const headers = (origin: string | undefined): Record<string, string> => {
    let h = known.get(origin);
    if (!h) {
      if (known.size >= 1024) known.clear();
      h = Object.freeze(base(origin)) as Record<string, string>;
      known.set(origin, h);
    }
    return h;
  };
  return {
    headers,
    preflight: (origin, methods) => {
      const h = base(origin);
      return h['access-control-allow-origin']
        ? {
            ...h,
            'access-control-allow-methods': methods,
            'access-control-allow-headers': 'content-type',
            'access-control-max-age': '600',
          }
        : h;
    },
  };
}
