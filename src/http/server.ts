import HyperExpress from 'hyper-express';
import { AdminAuth } from './admin';
import { AddressList } from '../web/clientIp';
import { Gateway } from '../web/gateway';
import { Guard } from '../web/guard';
import { defaultRateLimitOptions, RateLimiter, type RateLimitOptions } from '../web/rateLimit';
import { cors } from '../web/cors';
import { BACKSTOP_BODY_BYTES, bodyLimitFor, route, type HttpDeps } from './route';
import { requestLog } from '../web/request';
import { createIngress } from '../web/ingress';

import { serveRoutes } from './routes/bind';
import { indexHandler } from './routes/index';
import { openApiHandler } from './routes/openapi';
import { chainHandlers } from './routes/chain';
import { accountHandlers } from './routes/accounts';
import { txHandlers } from './routes/txs';
import { syncHandlers } from './routes/sync';
import { vmHandlers } from './routes/vm';
import { assetHandlers } from './routes/assets';
import { governanceHandlers } from './routes/governance';
import { aiHandlers } from './routes/ai';
import { bridgeHandlers } from './routes/bridge';
import { machineHandlers } from './routes/machines';
import { opsHandlers } from './routes/ops';
import { devHandlers } from './routes/dev';

export type { HttpDeps } from './route';

/** Sync (GET /chain, POST /blocks, /status), health, metrics and admin stay up while the node syncs. */
const SERVED_WHILE_SYNCING =
  /^\/(status|chain|blocks|snapshots(\/nodes)?|health\/(live|ready)|metrics|gateway|peers|p2p|security\/alerts)?$/;

export function createHttpServer(d: HttpDeps) {
  const rl: RateLimitOptions = { ...defaultRateLimitOptions, ...d.rateLimit };
  const exempt = new AddressList(rl.exempt);
  const trusted = new AddressList(rl.trustedProxies);
  const limiter = new RateLimiter(rl);
  const guard = new Guard(d.guard, (client, b) =>
    d.log.warn({ client, level: b.level, blockMs: b.periodMs, offences: b.offences }, 'guard blocked a client'),
  );
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

  const ingress = createIngress({
    cors: cors(d.corsOrigins ?? ['*'], ['retry-after', 'x-request-id']),
    exempt,
    trusted,
    limiter,
    rateLimit: rl,
    guard,
    gateway,
    log: d.log,
    now: d.now,
    ready,
    syncing: d.syncing,
    servedWhileSyncing: SERVED_WHILE_SYNCING,
    bodyLimit: bodyLimitFor,
  });
  app.set_error_handler((req, res, err) => {
    requestLog(d.log, req).error({ err }, 'unhandled request error');
    if (!res.completed) res.status(500).json({ error: 'internal error' });
  });
  // Every route, and the not-found catch-all, behind the ingress.
  const r = (h: Parameters<typeof route>[1]) => route(d.log, h, ingress);
  app.set_not_found_handler(
    r((req, res) => void res.status(404).json({ error: `not found: ${req.method} ${req.path}` })),
  );
  const protection = { limiter, guard, gateway, exempt, trusted, admin, rateLimit: rl };
  // Every route of the table (views/routes) with its handler: a route without one does not compile.
  serveRoutes(app, r, {
    ...indexHandler(app, r, d.log, () => d.reader), // the reader exists once the chain is open
    ...openApiHandler(),
    ...chainHandlers(d),
    ...accountHandlers(d),
    ...txHandlers(d),
    ...vmHandlers(d),
    ...assetHandlers(d),
    ...governanceHandlers(d),
    ...aiHandlers(d),
    ...bridgeHandlers(d),
    ...syncHandlers(d),
    ...machineHandlers(d),
    ...opsHandlers(d, { ...protection, peers }),
    ...devHandlers(d, admin),
  });
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
