import type { Server } from 'hyper-express';
import type { PeerInfo } from '../../api/ports';
import { ADMIN_HEADER, type AdminAuth } from '../admin';
import { maskKey, type AddressList } from '../clientIp';
import type { Gateway } from '../gateway';
import type { Guard } from '../guard';
import { PROMETHEUS_CONTENT_TYPE, renderMetrics } from '../metrics';
import { LONG_PAGE, pageSize, sized } from '../params';
import type { RateLimiter, RateLimitOptions } from '../rateLimit';
import type { HttpDeps, RouteWrap } from '../route';
import type { GatewayView, GuardView, LiveView, RateLimitView, ReadinessView } from '../../views';

export interface OpsDeps {
  limiter: RateLimiter;
  guard: Guard;
  gateway: Gateway;
  exempt: AddressList;
  trusted: AddressList;
  admin: AdminAuth;
  rateLimit: RateLimitOptions;
  peers: () => PeerInfo[];
}

/** Public operational views: GET /gateway, GET /guard, GET /metrics. */
export function registerOpsRoutes(app: Server, r: RouteWrap, d: HttpDeps, o: OpsDeps): void {
  const limits = (now: number): RateLimitView => ({
    max: o.rateLimit.max,
    windowMs: o.rateLimit.windowMs,
    trackedClients: o.limiter.size,
    maxClients: o.rateLimit.maxClients,
    blockedClients: o.limiter.blockedCount(now),
    limitedTotal: o.limiter.limited,
    evictedTotal: o.limiter.evicted,
    exempt: o.exempt.size,
    trustedProxies: o.trusted.size,
  });

  app.get('/gateway', r(async (): Promise<GatewayView> => {
    const now = d.now();
    return { ...o.gateway.snapshot(o.peers()), rateLimit: limits(now), guard: { activeBlocks: o.guard.activeBlocks(now, 0).count } };
  }));

  // Addresses of blocked clients are shown in full only to the operator (valid x-admin-token).
  app.get('/guard', r(async (req): Promise<GuardView> => {
    const now = d.now();
    const size = pageSize(req.query_parameters, LONG_PAGE);
    const { count, blocks } = o.guard.activeBlocks(now, size.limit);
    const full = o.admin.isAdmin(req.headers[ADMIN_HEADER]);
    const g = o.guard.opts;
    return sized(size, {
      enabled: g.enabled,
      thresholds: { score: g.threshold, halfLifeMs: g.halfLifeMs, weights: g.weights, blockMs: g.blockMs, forgetMs: g.forgetMs },
      rateLimit: limits(now),
      trackedClients: o.guard.size,
      maxClients: g.maxClients,
      evictedTotal: o.guard.evicted,
      blocksTotal: o.guard.blocksTotal,
      rejectedTotal: o.guard.rejected,
      activeBlocks: count,
      blocks: blocks.map((b) => ({ ...b, client: full ? b.client : maskKey(b.client) })),
    });
  }));

  // Liveness: the process answers. Readiness: synced, and producing or following the network.
  app.get('/health/live', r(async (): Promise<LiveView> => ({ live: true })));
  app.get('/health/ready', r(async (_req, res): Promise<ReadinessView> => {
    const s = d.readiness?.() ?? { ready: true };
    if (!s.ready) res.status(503);
    return s;
  }));

  app.get('/metrics', r(async (_req, res) => {
    const now = d.now();
    const text = await renderMetrics(
      { height: () => d.reader.head.height, finalizedHeight: () => d.reader.head.finalizedHeight, peers: () => o.peers().length, ...d.metrics },
      o.gateway,
      {
        rateLimited: o.limiter.limited, rateLimitClients: o.limiter.size, guardBlocksActive: o.guard.activeBlocks(now, 0).count,
        guardBlocksTotal: o.guard.blocksTotal, guardRejected: o.guard.rejected,
      },
    );
    res.header('content-type', PROMETHEUS_CONTENT_TYPE).send(text);
    return undefined;
  }));
}
