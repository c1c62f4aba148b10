import type { Request } from 'hyper-express';
import type { PeerInfo } from '../../api/ports';
import type { RateLimitView } from '../../views';
import { PROMETHEUS_CONTENT_TYPE } from '../../views/routes';
import { ADMIN_HEADER, type AdminAuth } from '../admin';
import { maskKey, type AddressList } from '../../web/clientIp';
import type { Gateway } from '../../web/gateway';
import { markOffence, type Guard } from '../../web/guard';
import { HttpError } from '../../web/httpError';
import { renderMetrics } from '../metrics';
import { sized } from '../params';
import type { RateLimiter, RateLimitOptions } from '../../web/rateLimit';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

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

/** The x-admin-token check of the admin routes: 401 without it, 403 when wrong (a guess counts as abuse). */
export function authorize(admin: AdminAuth, req: Request): void {
  const v = admin.check(req.headers[ADMIN_HEADER]);
  if (v.ok) return;
  if (v.wrongToken) markOffence(req, 'admin_auth_failed');
  throw new HttpError(v.status, v.error);
}

/** Operational views: /gateway, /guard, /health/*, /metrics; admin: /peers, /security/alerts. */
export function opsHandlers(
  d: HttpDeps,
  o: OpsDeps,
): RouteHandlers<'gateway' | 'guard' | 'live' | 'ready' | 'metrics' | 'peers' | 'p2p' | 'alerts'> {
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
  return {
    gateway: () => {
      const now = d.now();
      return {
        ...o.gateway.snapshot(o.peers()),
        rateLimit: limits(now),
        guard: { activeBlocks: o.guard.activeBlocks(now, 0).count },
      };
    },
    // Addresses of blocked clients are shown in full only to the operator (valid x-admin-token).
    guard: ({ query: q }, req) => {
      const now = d.now();
      const { count, blocks } = o.guard.activeBlocks(now, q.limit.limit);
      const full = o.admin.isAdmin(req.headers[ADMIN_HEADER]);
      const g = o.guard.opts;
      return sized(q.limit, {
        enabled: g.enabled,
        thresholds: {
          score: g.threshold,
          halfLifeMs: g.halfLifeMs,
          weights: g.weights,
          blockMs: g.blockMs,
          forgetMs: g.forgetMs,
        },
        rateLimit: limits(now),
        trackedClients: o.guard.size,
        maxClients: g.maxClients,
        evictedTotal: o.guard.evicted,
        blocksTotal: o.guard.blocksTotal,
        rejectedTotal: o.guard.rejected,
        activeBlocks: count,
        blocks: blocks.map((b) => ({ ...b, client: full ? b.client : maskKey(b.client) })),
      });
    },
    // Liveness: the process answers. Readiness: synced, and producing or following the network.
    live: () => ({ live: true }),
    ready: (_in, _req, res) => {
      const s = d.readiness?.() ?? { ready: true };
      if (!s.ready) res.status(503);
      return s;
    },
    metrics: async (_in, _req, res) => {
      const now = d.now();
      const text = await renderMetrics(
        {
          height: () => d.reader.head.height,
          finalizedHeight: () => d.reader.head.finalizedHeight,
          peers: () => o.peers().length,
          ...d.metrics,
        },
        o.gateway,
        {
          rateLimited: o.limiter.limited,
          rateLimitClients: o.limiter.size,
          guardBlocksActive: o.guard.activeBlocks(now, 0).count,
          guardBlocksTotal: o.guard.blocksTotal,
          guardRejected: o.guard.rejected,
        },
      );
      res.header('content-type', PROMETHEUS_CONTENT_TYPE).send(text);
      return undefined;
    },
    peers: (_in, req) => {
      authorize(o.admin, req);
      return { peers: o.peers() };
    },
    p2p: () => {
      const p = d.p2p?.();
      if (!p) throw new HttpError(503, 'node is starting: retry shortly');
      return { peerId: p.peerId, addresses: p.addresses() };
    },
    alerts: ({ query: q }, req) => {
      authorize(o.admin, req);
      return sized(q.limit, { alerts: d.alerts ? d.alerts.recent(q.limit.limit).slice(0, q.limit.limit) : [] });
    },
  };
}
