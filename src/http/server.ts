import { LRUCache } from 'lru-cache';
import HyperExpress, { type Request, type Response } from 'hyper-express';
import { AdminAuth } from './admin';
import { AddressList, clientKey, normalizeIp, resolveClientIp } from './clientIp';
import { Gateway, routeLabel } from './gateway';
import { Guard, offenceOf } from './guard';
import { defaultRateLimitOptions, RateLimiter, retryAfterSeconds, type RateLimitOptions } from './rateLimit';
import { cors } from '../api/cors';
import { BACKSTOP_BODY_BYTES, bodyLimitFor, nextRequestId, FORWARDED_ID, requestLog, route, UNAVAILABLE_RETRY_AFTER_S, type HttpDeps } from './route';
import { registerChainRoutes } from './routes/chain';
import { registerAccountRoutes } from './routes/accounts';
import { registerTxRoutes } from './routes/txs';
import { registerIndexRoute } from './routes/index';
import { registerOpenApiRoute } from './routes/openapi';
import { registerVmRoutes } from './routes/vm';
import { registerContractRoutes } from './routes/contract';
import { registerOpsRoutes } from './routes/ops';
import { registerAdminRoutes } from './routes/admin';
import { registerAssetRoutes } from './routes/assets';
import { registerGovernanceRoutes } from './routes/governance';
import { registerAiRoutes } from './routes/ai';
import { registerBridgeRoutes } from './routes/bridge';
import { registerMachineRoutes } from './routes/machines';
import { registerDevRoutes } from './routes/dev';

function refuse(res: Response, status: number, retryAfterS: number, error: string): void {
  res.status(status).header('retry-after', String(retryAfterS)).json({ error });
}

export type { HttpDeps } from './route';

/** The part of uWS's response that a HEAD answer needs. */
interface RawResponse {
  writeHeader(name: string, value: string): unknown;
  endWithoutBody(...args: unknown[]): unknown;
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

/** Sync (GET /chain, POST /blocks, /status), health, metrics and admin stay up while the node syncs. */
const SERVED_WHILE_SYNCING = /^\/(status|chain|blocks|health\/(live|ready)|metrics|gateway|peers|security\/alerts)?$/;
const SYNCING_RETRY_AFTER_S = 5;

export function createHttpServer(d: HttpDeps) {
  const rl: RateLimitOptions = { ...defaultRateLimitOptions, ...d.rateLimit };
  const exempt = new AddressList(rl.exempt);
  const trusted = new AddressList(rl.trustedProxies);
  const limiter = new RateLimiter(rl);
  const guard = new Guard(d.guard, (client, b) =>
    d.log.warn({ client, level: b.level, blockMs: b.periodMs, offences: b.offences }, 'guard blocked a client'));
  const gateway = new Gateway(d.now);
  const ready = d.ready ?? (() => true);
  const peers = d.peers ?? (() => []);
  const admin = new AdminAuth(d.adminToken);

  // hyper-express answers its own limit with an empty 413 before any handler runs, so its
  // limit is only a backstop (bodies without Content-Length); ours answers with {error}.
  const app = new HyperExpress.Server({ max_body_length: BACKSTOP_BODY_BYTES, fast_abort: false });

  // HEAD is GET without the body (RFC 9110 §9.3.2): every GET route below also answers HEAD,
  // with the same status and headers and the GET body's Content-Length, but no body.
  const registerGet = app.get.bind(app);
  app.get = ((...args: Parameters<typeof app.get>) => {
    registerGet(...args);
    app.head(...args);
    return app;
  }) as typeof app.get;

  // Ingress, in order: CORS (preflights end here) → request id → client address → accounting → guard block → rate
  // limit → readiness → body size. Exempt clients skip the guard and the rate limit.
  const corsPolicy = cors(d.corsOrigins ?? ['*'], ['retry-after', 'x-request-id']);
  /** CORS first: a preflight is answered here (never rate-limited or logged as an API call); true when it was one. */
  const corsAnswered = (req: Request, res: Response): boolean => {
    const origin = req.headers.origin;
    if (req.method === 'OPTIONS') {
      res.status(204);
      for (const [k, v] of Object.entries(corsPolicy.preflight(origin, 'GET, HEAD, POST, OPTIONS'))) res.header(k, v, true);
      res.send();
      return true;
    }
    const h = corsPolicy.headers(origin);
    for (const k in h) res.header(k, h[k], true);
    if (req.method === 'HEAD') headersOnly(res);
    return false;
  };

  /**
   * The socket's address as uWS holds it (binary), read without hyper-express's `req.ip`,
   * which decodes its text form on every request: a third of a cached read's CPU (55 % of
   * a bare server's rate with it, 71 % without; bench/reads.ts). Only a key into `sockets`;
   * undefined where hyper-express's internals differ (then `req.ip` keys it).
   */
  const socketKey = (req: Request): string | undefined => {
    const ab = (req as unknown as { _raw_response?: { getRemoteAddress?(): ArrayBuffer } })._raw_response?.getRemoteAddress?.();
    if (!ab || ab.byteLength % 4 !== 0) return undefined;
    const w = new Uint32Array(ab);
    return w.length === 4 ? `#${w[0]}:${w[1]}:${w[2]}:${w[3]}` : w.length === 1 ? `#${w[0]}` : undefined;
  };
  // What the socket address alone decides, once per address rather than per request
  // (normalising and matching CIDR lists cost more than answering a cached read).
  const sockets = new LRUCache<string, { socket: string; viaProxy: boolean; key: string; exempt: boolean }>({ max: 4096 });
  const peerOf = (req: Request) => {
    const bin = socketKey(req);
    let p = bin === undefined ? undefined : sockets.get(bin);
    if (!p) {
      const raw = req.ip;
      const socket = normalizeIp(raw) ?? raw;
      p = { socket, viaProxy: trusted.has(socket), key: clientKey(socket), exempt: exempt.has(socket) };
      sockets.set(bin ?? raw, p);
    }
    return p;
  };

  // One middleware, not one per concern: each hop through hyper-express's chain costs more than
  // the work of most of them (bench/reads.ts).
  app.use((req, res, next) => {
    if (corsAnswered(req, res)) return;
    const t0 = performance.now();
    const now = d.now();
    const peer = peerOf(req);
    const viaProxy = peer.viaProxy;
    const ip = viaProxy ? resolveClientIp(peer.socket, req.headers['x-forwarded-for'], trusted) : peer.socket;
    const key = viaProxy ? clientKey(ip) : peer.key;
    const incomingId = viaProxy ? req.headers['x-request-id'] : undefined;
    const id = incomingId && FORWARDED_ID.test(incomingId) ? incomingId : nextRequestId();
    req.locals.requestId = id;
    req.locals.clientIp = ip;
    res.header('x-request-id', id);
    const isExempt = viaProxy ? exempt.has(ip) : peer.exempt;

    gateway.begin();
    res.once('close', () => {
      const status = res.initiated ? (res.statusCode ?? 200) : 0;
      const label = routeLabel(req);
      const ms = performance.now() - t0;
      gateway.end(label, status, ms);
      if (!isExempt) {
        const offence = offenceOf(req) ?? (status === 413 ? 'malformed_body' : undefined);
        if (offence) guard.offence(key, offence, d.now());
      }
      // 500s are logged with their error where they happen (route, error handler); 503s are expected back-pressure
      if (status === 502) d.log.warn({ reqId: id, route: label, status, ms }, 'upstream service failed');
      else if (d.log.isLevelEnabled('debug')) d.log.debug({ reqId: id, client: ip, route: label, status, ms }, 'request');
    });

    if (!isExempt) {
      const blockedMs = guard.check(key, now);
      if (blockedMs > 0) {
        const s = retryAfterSeconds(blockedMs);
        return void refuse(res, 429, s, `temporarily blocked for abusive behaviour: retry after ${s} s (a request before then extends the block)`);
      }
      const r = limiter.hit(key, now);
      if (!r.ok) {
        const guardMs = guard.offence(key, 'rate_limited', now);
        const s = retryAfterSeconds(Math.max(r.retryAfterMs, guardMs));
        return void refuse(res, 429, s, `rate limit exceeded: ${rl.max} requests per ${rl.windowMs} ms; retry after ${s} s (a request before then extends the block)`);
      }
    }
    if (!ready()) return void refuse(res, 503, UNAVAILABLE_RETRY_AFTER_S, 'node is starting: retry shortly');
    // Far behind its peers, the node's answers would be stale: only what sync and operators need is served.
    const behind = d.syncing?.() ?? null;
    if (behind !== null && !SERVED_WHILE_SYNCING.test(req.path)) return void refuse(res, 503, SYNCING_RETRY_AFTER_S, `node is syncing: ${behind} blocks behind its peers`);

    // Refuse a body larger than any valid request before reading it, with the spec's {error}
    // (hyper-express's own limit stays as the backstop for bodies without Content-Length).
    const len = Number(req.headers['content-length'] ?? 0);
    const limit = bodyLimitFor(req.path);
    if (len > limit) return void res.status(413).json({ error: `request body exceeds ${limit} bytes` });
    next();
  });
  app.set_error_handler((req, res, err) => {
    requestLog(d.log, req).error({ err }, 'unhandled request error');
    if (!res.completed) res.status(500).json({ error: 'internal error' });
  });
  app.set_not_found_handler((req, res) => res.status(404).json({ error: `not found: ${req.method} ${req.path}` }));
  const r = (h: Parameters<typeof route>[1]) => route(d.log, h);
  registerIndexRoute(app, r, d.log);
  registerOpenApiRoute(app, r);
  registerChainRoutes(app, r, d);
  registerAccountRoutes(app, r, d);
  registerTxRoutes(app, r, d);
  registerVmRoutes(app, r, d);
  registerContractRoutes(app, r, d);
  registerAssetRoutes(app, r, d);
  registerGovernanceRoutes(app, r, d);
  registerAiRoutes(app, r, d);
  registerBridgeRoutes(app, r, d);
  registerMachineRoutes(app, r, d);
  const protection = { limiter, guard, gateway, exempt, trusted, admin, rateLimit: rl };
  registerOpsRoutes(app, r, d, { ...protection, peers });
  registerAdminRoutes(app, r, { admin, peers, alerts: d.alerts });
  registerDevRoutes(app, r, d, admin);
  return {
    app,
    /** The live protection state (for tests, benchmarks and the node's own views). */
    protection,
    async listen(host: string, port: number): Promise<void> {
      await app.listen(port, host);
    },
    /** The port actually bound (useful after listen(host, 0)). */
    get port(): number {
      return app.port;
    },
    async close(): Promise<void> {
      app.close();
    },
  };
}

export type Protection = ReturnType<typeof createHttpServer>['protection'];
