import { LRUCache } from 'lru-cache';
import type { Request, Response } from 'hyper-express';
import type { Logger } from 'pino';
import type { AddressList } from './clientIp';
import { clientKey, normalizeIp, resolveClientIp } from './clientIp';
import type { Gateway } from './gateway';
import { routeLabel } from './gateway';
import type { Guard, Offence } from './guard';
import { offenceOf } from './guard';
import type { RateLimiter, RateLimitOptions } from './rateLimit';
import { retryAfterSeconds } from './rateLimit';
import type { Cors } from './cors';
import { extraUnitsOf, FORWARDED_ID, nextRequestId, UNAVAILABLE_RETRY_AFTER_S, type Gate } from './request';

const SYNCING_RETRY_AFTER_S = 5;

export function refuse(res: Response, status: number, retryAfterS: number, error: string): void {
  res.status(status).header('retry-after', String(retryAfterS)).json({ error });
}

/** The part of uWS's response that a HEAD answer needs. */
interface RawResponse {
  writeHeader(name: string, value: string): unknown;
  endWithoutBody(...args: unknown[]): unknown;
  getRemoteAddress?(): ArrayBuffer;
}

/**
 * Makes `res` answer a HEAD request: whatever answers (a route, a refusal, the not-found
 * handler) sends its status and headers with the Content-Length its body would have had, and
 * no body. hyper-express ends a body-less answer with a custom length through uWS's
 * endWithoutBody(length), which leaves a kept-alive connection unusable in this uWS version;
 * endWithoutBody() with no argument does not, so the length is written as a header of our own.
 */
function headersOnly(res: Response): void {
  const raw = res.raw as unknown as RawResponse;
  const endWithoutBody = raw.endWithoutBody;
  let length: string | undefined;
  raw.endWithoutBody = () => {
    raw.writeHeader('content-length', length ?? '0');
    return endWithoutBody.call(raw);
  };
  const send = res.send.bind(res);
  // hyper-express may call send() again (corked, or once the request body is in) with no body: the first length stays.
  res.send = ((body?: string | Buffer | ArrayBuffer, close?: boolean) => {
    if (body !== undefined) length = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    res.header('content-length', length ?? '0', true); // makes send() end through endWithoutBody
    return send(undefined, close);
  }) as typeof res.send;
}

/**
 * The socket's address as uWS holds it (binary), read without hyper-express's `req.ip`,
 * which decodes its text form on every request: a third of a cached read's CPU (55 % of
 * a bare server's rate with it, 71 % without; bench/reads.ts). Only a key into the peer
 * cache; undefined where hyper-express's internals differ (then `req.ip` keys it).
 */
function socketKey(req: Request): string | number | undefined {
  const ab = (req as unknown as { _raw_response?: RawResponse })._raw_response?.getRemoteAddress?.();
  if (!ab || ab.byteLength % 4 !== 0) return undefined;
  const w = new Uint32Array(ab);
  if (w.length === 1) return w[0];
  if (w.length !== 4) return undefined;
  // IPv4 (as uWS reports it: IPv4-mapped IPv6) keys by its 32 bits, with no string built;
  // other IPv6 addresses by their words (a number key never collides with a string one).
  return w[0] === 0 && w[1] === 0 && w[2] === IPV4_MAPPED_WORD ? w[3] : `#${w[0]}:${w[1]}:${w[2]}:${w[3]}`;
}

/** ::ffff: as the third 32-bit word of an IPv4-mapped IPv6 address, read in this machine's byte order. */
const IPV4_MAPPED_WORD = new Uint32Array(new Uint8Array([0, 0, 0xff, 0xff]).buffer)[0];

export interface IngressDeps {
  cors: Cors;
  exempt: AddressList;
  trusted: AddressList;
  limiter: RateLimiter;
  rateLimit: RateLimitOptions;
  guard: Guard;
  gateway: Gateway;
  log: Logger;
  now: () => number;
  ready: () => boolean;
  syncing?: () => number | null;
  /** The paths still served while the node syncs far behind (the others answer 503). */
  servedWhileSyncing: RegExp;
  /** The largest body a request to `path` may carry (a larger Content-Length: 413 before it is read). */
  bodyLimit: (path: string) => number;
}

/**
 * A trusted proxy's X-Forwarded-For with a hop that is not an address: the client is unknown (400, counted against
 * nobody).
 */
const MALFORMED_FORWARDED = 'malformed X-Forwarded-For: a hop is not an IP address';

/** A request refused before it is served: 429 with Retry-After and this error. */
export interface ClientRefusal {
  retryAfterS: number;
  error: string;
}

/**
 * The guard block and the rate limit for one request of client `key` (not exempt) weighing
 * `weight` units: the refusal, or undefined when it may be served. Shared by the HTTP API and the JSON-RPC port
 * (createClientGate), so both count against the same per-client budget and block.
 */
export function admitClient(
  d: Pick<IngressDeps, 'guard' | 'limiter' | 'rateLimit'>,
  key: string,
  now: number,
  weight = 1,
): ClientRefusal | undefined {
  const blockedMs = d.guard.check(key, now);
  if (blockedMs > 0) {
    const s = retryAfterSeconds(blockedMs);
    return {
      retryAfterS: s,
      error: `temporarily blocked for abusive behaviour: retry after ${s} s (a request before then extends the block)`,
    };
  }
  const r = d.limiter.hit(key, now, weight);
  if (r.ok) return undefined;
  const guardMs = d.guard.offence(key, 'rate_limited', now);
  const s = retryAfterSeconds(Math.max(r.retryAfterMs, guardMs));
  return {
    retryAfterS: s,
    error:
      `rate limit exceeded: ${d.rateLimit.max} requests per ${d.rateLimit.windowMs} ms; retry after ${s} s ` +
      `(a request before then extends the block)`,
  };
}

/**
 * The HTTP API's protection for another port (the JSON-RPC server): the same client address
 * resolution (trusted proxies), exemptions, guard and rate limiter, the same instances.
 * `enter` says whether a request may be served and under which client key; `offence`
 * scores a bad request (a body that is not JSON, one over the size limit) for the guard.
 */
export function createClientGate(
  d: Pick<IngressDeps, 'guard' | 'limiter' | 'rateLimit' | 'exempt' | 'trusted' | 'now'>,
) {
  return {
    enter(
      socketIp: string,
      forwardedFor: string | undefined,
    ): { refused: ClientRefusal } | { malformed: string } | { client: string; exempt: boolean } {
      const ip = resolveClientIp(socketIp, forwardedFor, d.trusted);
      if (ip === undefined) return { malformed: MALFORMED_FORWARDED };
      const key = clientKey(ip);
      if (d.exempt.has(ip)) return { client: key, exempt: true };
      const no = admitClient(d, key, d.now());
      return no ? { refused: no } : { client: key, exempt: false };
    },
    /**
     * Counts `units` more for a request already admitted with one, before it is served (a JSON-RPC batch weighs
     * its calls): the refusal, or undefined when the client may be served.
     */
    weigh(client: string, units: number): ClientRefusal | undefined {
      return units > 0 ? admitClient(d, client, d.now(), units) : undefined;
    },
    /** Charges `units` a served request weighed beyond what it was admitted with (a long answer). */
    charge(client: string, units: number): void {
      if (units > 0) d.limiter.charge(client, d.now(), units);
    },
    /** Scores an offence of a client that is not exempt. */
    offence(client: string, kind: Offence): void {
      d.guard.offence(client, kind, d.now());
    },
  };
}

export type ClientGate = ReturnType<typeof createClientGate>;

interface Visit {
  t0: number;
  id: string;
  ip: string;
  key: string;
  exempt: boolean;
}

/**
 * What every request passes through before its route, in order: CORS (preflights end here) →
 * request id → client address → accounting → guard block → rate limit → readiness → body
 * size; exempt clients skip the guard and the rate limit. And, once the route has answered
 * (or the client went away), the accounting: /gateway, the guard's offences, the request log.
 *
 * It runs inside each route's wrapper rather than as hyper-express middleware, and accounts
 * when the wrapper is done rather than on the response's 'close' event: a middleware hop and
 * a 'close' listener (which makes hyper-express build a stream.Writable per response) cost
 * more than a memoized read itself (bench/reads.ts).
 */
export function createIngress(d: IngressDeps): Gate<Visit> {
  // What the socket address alone decides, once per address rather than per request
  // (normalising and matching CIDR lists cost more than answering a cached read).
  const sockets = new LRUCache<string | number, { socket: string; viaProxy: boolean; key: string; exempt: boolean }>({
    max: 4096,
  });
  const peerOf = (req: Request) => {
    const bin = socketKey(req);
    let p = bin === undefined ? undefined : sockets.get(bin);
    if (!p) {
      const raw = req.ip;
      const socket = normalizeIp(raw) ?? raw;
      p = { socket, viaProxy: d.trusted.has(socket), key: clientKey(socket), exempt: d.exempt.has(socket) };
      sockets.set(bin ?? raw, p);
    }
    return p;
  };

  /** CORS first: a preflight is answered here (never rate-limited or logged as an API call); true when it was one. */
  const corsAnswered = (req: Request, res: Response): boolean => {
    const origin = req.headers.origin;
    if (req.method === 'OPTIONS') {
      res.status(204);
      for (const [k, v] of Object.entries(d.cors.preflight(origin, 'GET, HEAD, POST, OPTIONS'))) res.header(k, v, true);
      res.send();
      return true;
    }
    const h = d.cors.headers(origin);
    for (const k in h) res.header(k, h[k], true);
    if (req.method === 'HEAD') headersOnly(res);
    return false;
  };

  const leave = (req: Request, res: Response, v: Visit): void => {
    const status = res.initiated ? (res.statusCode ?? 200) : 0; // 0: the client went away first
    const label = routeLabel(req);
    const ms = performance.now() - v.t0;
    d.gateway.end(label, status, ms);
    if (!v.exempt) {
      const offence = offenceOf(req) ?? (status === 413 ? 'malformed_body' : undefined);
      if (offence) d.guard.offence(v.key, offence, d.now());
      // What the answer weighed beyond its first unit (a long page): the client's next request may be refused.
      const extra = extraUnitsOf(req);
      if (extra > 0) d.limiter.charge(v.key, d.now(), extra);
    }
    // 500s are logged with their error where they happen (route, error handler); 503s are expected back-pressure
    if (status === 502) d.log.warn({ reqId: v.id, route: label, status, ms }, 'upstream service failed');
    else if (d.log.isLevelEnabled('debug'))
      d.log.debug({ reqId: v.id, client: v.ip, route: label, status, ms }, 'request');
  };

  /** Answers with a refusal and accounts for it: the route does not run. */
  const refused = (req: Request, res: Response, v: Visit, answer: () => void): undefined => {
    answer();
    leave(req, res, v);
    return undefined;
  };

  const enter = (req: Request, res: Response): Visit | undefined => {
    if (corsAnswered(req, res)) return undefined;
    const t0 = performance.now();
    const now = d.now();
    const peer = peerOf(req);
    const viaProxy = peer.viaProxy;
    const resolved = viaProxy ? resolveClientIp(peer.socket, req.headers['x-forwarded-for'], d.trusted) : peer.socket;
    if (resolved === undefined) {
      // A proxy's malformed X-Forwarded-For names no client: refused, and counted against nobody (not the proxy).
      res.status(400).json({ error: MALFORMED_FORWARDED });
      return undefined;
    }
    const ip = resolved;
    const key = viaProxy ? clientKey(ip) : peer.key;
    const incomingId = viaProxy ? req.headers['x-request-id'] : undefined;
    const id = incomingId && FORWARDED_ID.test(incomingId) ? incomingId : nextRequestId();
    req.locals.requestId = id;
    req.locals.clientIp = ip;
    res.header('x-request-id', id);
    const v: Visit = { t0, id, ip, key, exempt: viaProxy ? d.exempt.has(ip) : peer.exempt };
    d.gateway.begin();

    if (!v.exempt) {
      const no = admitClient(d, key, now);
      if (no) return refused(req, res, v, () => refuse(res, 429, no.retryAfterS, no.error));
    }
    if (!d.ready())
      return refused(req, res, v, () => refuse(res, 503, UNAVAILABLE_RETRY_AFTER_S, 'node is starting: retry shortly'));
    // Far behind its peers, the node's answers would be stale: only what sync and operators need is served.
    const behind = d.syncing?.() ?? null;
    if (behind !== null && !d.servedWhileSyncing.test(req.path))
      return refused(req, res, v, () =>
        refuse(res, 503, SYNCING_RETRY_AFTER_S, `node is syncing: ${behind} blocks behind its peers`),
      );

    // Refuse a body larger than any valid request before reading it, with the spec's {error}
    // (hyper-express's own limit stays as the backstop for bodies without Content-Length).
    const len = Number(req.headers['content-length'] ?? 0);
    const limit = d.bodyLimit(req.path);
    if (len > limit)
      return refused(req, res, v, () => void res.status(413).json({ error: `request body exceeds ${limit} bytes` }));
    return v;
  };

  return { enter, leave };
}
