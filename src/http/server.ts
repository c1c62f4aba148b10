import { randomBytes } from 'node:crypto';
import HyperExpress, { type Request, type Response } from 'hyper-express';
import type { Logger } from 'pino';
import type { AlertSource, PeerInfo } from '../api/ports';
import type { ChainReader } from '../api/chainReader';
import type { Admission } from '../api/ports';
import { AdminAuth } from './admin';
import { AddressList, clientKey, normalizeIp, resolveClientIp } from './clientIp';
import { Gateway, routeLabel } from './gateway';
import { Guard, offenceOf, type GuardOptions } from './guard';
import { HttpError } from './httpError';
import type { MetricsSource } from './metrics';
import { defaultRateLimitOptions, RateLimiter, retryAfterSeconds, type RateLimitOptions } from './rateLimit';
import { registerChainRoutes } from './routes/chain';
import { registerAccountRoutes } from './routes/accounts';
import { registerTxRoutes } from './routes/txs';
import { registerIndexRoute } from './routes/index';
import { registerVmRoutes } from './routes/vm';
import { registerContractRoutes } from './routes/contract';
import { registerOpsRoutes } from './routes/ops';
import { registerAdminRoutes } from './routes/admin';
import { registerAssetRoutes } from './routes/assets';
import type { SolcCompiler } from '../contracts/compiler';
import type { ContractMetadata } from '../contracts/verify';

export interface HttpDeps {
  reader: ChainReader;
  compiler: SolcCompiler;
  saveContract(addr: string, m: ContractMetadata): Promise<void>;
  admission: Admission;
  log: Logger;
  now: () => number;
  /** False while the node is starting: every route answers 503 with Retry-After. Default: always ready. */
  ready?: () => boolean;
  /** `x-admin-token` of GET /peers and GET /security/alerts; null/undefined disables them (403). */
  adminToken?: string | null;
  /** The security sentinel (GET /security/alerts); none: an empty list. */
  alerts?: AlertSource;
  /** Peers for /peers, /gateway and cairn_peers; none: a single node, []. */
  peers?: () => PeerInfo[];
  /** Per-client request limit; defaults: defaultRateLimitOptions (240 per 10 000 ms, nobody exempt). */
  rateLimit?: Partial<RateLimitOptions>;
  /** Auto-mitigation; defaults: defaultGuardOptions (enabled). */
  guard?: Partial<GuardOptions>;
  /** Chain gauges and node histograms for /metrics (height and finalized height default to the reader's head). */
  metrics?: MetricsSource;
}

/** Largest accepted request body: a full envelope with a 64 KiB data field fits with room to spare. */
export const MAX_BODY_BYTES = 512 * 1024;
/** Contract verification carries Solidity sources (up to 1,000,000 characters). */
export const CONTRACT_BODY_BYTES = 2 * 1024 * 1024;
export const bodyLimitFor = (path: string): number => (path.startsWith('/contract/') ? CONTRACT_BODY_BYTES : MAX_BODY_BYTES);
const BACKSTOP_BODY_BYTES = 16 * 1024 * 1024;
/** Retry-After (s) of a 503 while the node starts or a dependency is briefly unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 1;

export type Handler = (req: Request, res: Response) => Promise<unknown>;

/** Short, process-unique request ids: a random per-process prefix and a counter. */
const ID_PREFIX = randomBytes(3).toString('hex');
let idSeq = 0;
const nextRequestId = () => `${ID_PREFIX}-${(++idSeq).toString(36)}`;
/** An x-request-id a trusted proxy may pass on (anything else is replaced by our own). */
const FORWARDED_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export const requestIdOf = (req: Request): string | undefined => req.locals.requestId as string | undefined;

/** The logger for a failed request: the server's, with the request id and route. */
export const requestLog = (log: Logger, req: Request): Logger =>
  log.child({ reqId: requestIdOf(req), route: routeLabel(req), client: req.locals.clientIp as string | undefined });

/** Wraps a handler so that every failure leaves as `{error}` with its status. */
export function route(log: Logger, h: (req: Request, res: Response) => Promise<unknown>): Handler {
  return async (req, res) => {
    try {
      const body = await h(req, res);
      if (!res.completed && body !== undefined) res.json(body);
    } catch (e) {
      if (res.completed) return;
      if (e instanceof HttpError) {
        if (e.status === 503) res.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
        return void res.status(e.status).json({ error: e.message });
      }
      requestLog(log, req).error({ err: e }, 'request failed');
      res.status(500).json({ error: 'internal error' });
    }
  };
}

function refuse(res: Response, status: number, retryAfterS: number, error: string): void {
  res.status(status).header('retry-after', String(retryAfterS)).json({ error });
}

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

  // Ingress, in order: request id → client address → accounting → guard block → rate
  // limit → readiness → body size. Exempt clients skip the guard and the rate limit.
  app.use((req, res, next) => {
    const t0 = performance.now();
    const now = d.now();
    const socket = normalizeIp(req.ip) ?? req.ip;
    const viaProxy = trusted.has(socket);
    const ip = viaProxy ? resolveClientIp(socket, req.headers['x-forwarded-for'], trusted) : socket;
    const key = clientKey(ip);
    const incomingId = viaProxy ? req.headers['x-request-id'] : undefined;
    const id = incomingId && FORWARDED_ID.test(incomingId) ? incomingId : nextRequestId();
    req.locals.requestId = id;
    req.locals.clientIp = ip;
    res.header('x-request-id', id);
    const isExempt = exempt.has(ip);

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
  registerIndexRoute(app, r);
  registerChainRoutes(app, r, d);
  registerAccountRoutes(app, r, d);
  registerTxRoutes(app, r, d);
  registerVmRoutes(app, r, d);
  registerContractRoutes(app, r, d);
  registerAssetRoutes(app, r, d);
  const protection = { limiter, guard, gateway, exempt, trusted, admin, rateLimit: rl };
  registerOpsRoutes(app, r, d, { ...protection, peers });
  registerAdminRoutes(app, r, { admin, peers, alerts: d.alerts });
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

export type RouteWrap = (h: Parameters<typeof route>[1]) => Handler;
export type Protection = ReturnType<typeof createHttpServer>['protection'];
