import type { Request } from 'hyper-express';
import type { PeerInfo } from '../protocol/peers';
import type { GatewayView } from '../views';
import { Histogram, HTTP_SECONDS_BUCKETS } from './histogram';

/**
 * Gateway observability (docs/API.md "GET /gateway"): what the HTTP API has been serving. Everything is
 * keyed by route *pattern* (`GET /address/:end`), never by raw path, so the number of
 * series is the number of routes; requests that match no route share `(unmatched)`.
 * Latency percentiles come from ring buffers of the most recent requests (a sliding
 * window by count), so memory stays constant whatever the traffic.
 */

export const UNMATCHED_ROUTE = '(unmatched)';
/** Most recent latencies kept per route, and across all routes. */
export const ROUTE_WINDOW = 512;
export const GLOBAL_WINDOW = 4096;

/**
 * The route label of a request: method and pattern of the route that matched (kept on the route: asked per request).
 */
export function routeLabel(req: Request): string {
  const r = (req as unknown as { route?: { method: string; pattern: string; cairnLabel?: string } }).route;
  if (!r || r.method === 'ANY') return UNMATCHED_ROUTE; // the not-found catch-all (ANY /*)
  return (r.cairnLabel ??= `${r.method} ${r.pattern}`);
}

/** Latencies of the last `size` requests. */
class LatencyWindow {
  private readonly ring: Float64Array;
  private n = 0;
  private next = 0;

  constructor(size: number) {
    this.ring = new Float64Array(size);
  }

  add(ms: number): void {
    this.ring[this.next] = ms;
    this.next = (this.next + 1) % this.ring.length;
    if (this.n < this.ring.length) this.n++;
  }

  percentiles(): { samples: number; p50: number | null; p90: number | null; p99: number | null } {
    if (this.n === 0) return { samples: 0, p50: null, p90: null, p99: null };
    const s = this.ring.slice(0, this.n).sort();
    // nearest rank, µs precision
    const at = (p: number) => Math.round(s[Math.min(this.n - 1, Math.ceil(p * this.n) - 1)] * 1000) / 1000;
    return { samples: this.n, p50: at(0.5), p90: at(0.9), p99: at(0.99) };
  }
}

interface RouteStats {
  requests: number;
  errors4xx: number;
  errors5xx: number;
  byStatus: Map<number, number>;
  latency: LatencyWindow;
  seconds: Histogram;
}

export class Gateway {
  readonly startedAt: number;
  inFlight = 0;
  total = 0;
  errors4xx = 0;
  errors5xx = 0;
  private readonly latency = new LatencyWindow(GLOBAL_WINDOW);
  private readonly routes = new Map<string, RouteStats>();

  constructor(private readonly now: () => number) {
    this.startedAt = now();
  }

  uptimeMs(): number {
    return this.now() - this.startedAt;
  }

  /** A request has arrived; pair with `end`. */
  begin(): void {
    this.inFlight++;
  }

  /** A request has been answered (or aborted: status 0) after `ms` milliseconds. */
  end(route: string, status: number, ms: number): void {
    this.inFlight--;
    this.total++;
    let r = this.routes.get(route);
    if (!r) {
      r = {
        requests: 0,
        errors4xx: 0,
        errors5xx: 0,
        byStatus: new Map(),
        latency: new LatencyWindow(ROUTE_WINDOW),
        seconds: new Histogram(HTTP_SECONDS_BUCKETS),
      };
      this.routes.set(route, r);
    }
    r.requests++;
    r.byStatus.set(status, (r.byStatus.get(status) ?? 0) + 1);
    if (status >= 400 && status < 500) {
      r.errors4xx++;
      this.errors4xx++;
    } else if (status >= 500) {
      r.errors5xx++;
      this.errors5xx++;
    }
    r.latency.add(ms);
    r.seconds.observe(ms / 1000);
    this.latency.add(ms);
  }

  /** Per route and status counts, and per route duration histograms (for /metrics). */
  series(): { route: string; byStatus: Map<number, number>; seconds: Histogram }[] {
    return [...this.routes].map(([route, r]) => ({ route, byStatus: r.byStatus, seconds: r.seconds }));
  }

  /** GET /gateway */
  snapshot(peers: PeerInfo[]): Omit<GatewayView, 'rateLimit' | 'guard'> {
    return {
      startedAt: this.startedAt,
      uptimeMs: this.uptimeMs(),
      inFlight: this.inFlight,
      requests: { total: this.total, errors4xx: this.errors4xx, errors5xx: this.errors5xx },
      latencyMs: { window: GLOBAL_WINDOW, ...this.latency.percentiles() },
      routes: [...this.routes]
        .sort((a, b) => b[1].requests - a[1].requests)
        .map(([route, r]) => ({
          route,
          requests: r.requests,
          errors4xx: r.errors4xx,
          errors5xx: r.errors5xx,
          status: Object.fromEntries([...r.byStatus].sort((a, b) => a[0] - b[0])),
          latencyMs: { window: ROUTE_WINDOW, ...r.latency.percentiles() },
        })),
      peers: peers.map((p) => ({
        url: p.url,
        height: p.height,
        head: p.head,
        lag: p.lag,
        latencyMs: p.latencyMs,
        score: p.score,
        lastSeen: p.lastSeen,
      })),
    };
  }
}
