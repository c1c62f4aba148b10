import HyperExpress from 'hyper-express';
import { AdminAuth } from './admin';
import { AddressList } from './clientIp';
import { Gateway } from './gateway';
import { Guard } from './guard';
import { defaultRateLimitOptions, RateLimiter, type RateLimitOptions } from './rateLimit';
import { cors } from '../api/cors';
import { BACKSTOP_BODY_BYTES, requestLog, route, type HttpDeps } from './route';
import { createIngress } from './ingress';
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

export type { HttpDeps } from './route';

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

  const ingress = createIngress({
    cors: cors(d.corsOrigins ?? ['*'], ['retry-after', 'x-request-id']),
    exempt, trusted, limiter, rateLimit: rl, guard, gateway, log: d.log, now: d.now, ready, syncing: d.syncing,
  });
  app.set_error_handler((req, res, err) => {
    requestLog(d.log, req).error({ err }, 'unhandled request error');
    if (!res.completed) res.status(500).json({ error: 'internal error' });
  });
  // Every route, and the not-found catch-all, behind the ingress.
  const r = (h: Parameters<typeof route>[1]) => route(d.log, h, ingress);
  app.set_not_found_handler(r((req, res) => void res.status(404).json({ error: `not found: ${req.method} ${req.path}` })));
  registerIndexRoute(app, r, d.log, () => d.reader); // the reader exists once the chain is open
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
