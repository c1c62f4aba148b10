/**
 * Per-client request limit of the HTTP API (docs/API.md "Rate limit": RATE_LIMIT_MAX 240 requests per
 * 10 000 ms window per IP; beyond it 429 with Retry-After, and an immediate retry extends
 * the block).
 *
 * A fixed window per client starts at its first request. Request `max + 1` inside the
 * window blocks the client until the window ends; any request while blocked is refused and
 * re-arms the block to a full window from that request, so a client that ignores
 * Retry-After stays blocked until it pauses for a whole window.
 *
 * Memory is bounded: one small entry per client key, in least-recently-seen order; entries
 * whose window has passed are swept as new requests arrive, and beyond `maxClients` the
 * least recently seen is evicted (an attacker rotating addresses recycles entries rather
 * than growing the table).
 */

export interface RateLimitOptions {
  /** Requests per window per client (RATE_LIMIT_MAX). */
  max: number;
  windowMs: number;
  /** Addresses or CIDR blocks never limited (and never guarded); empty by default, loopback included. */
  exempt: string[];
  /** Proxies whose X-Forwarded-For header is believed (addresses or CIDR blocks). */
  trustedProxies: string[];
  /** Bound of the client table. */
  maxClients: number;
}

export const defaultRateLimitOptions: Readonly<RateLimitOptions> = Object.freeze({
  max: 240,
  windowMs: 10_000,
  exempt: [],
  trustedProxies: [],
  maxClients: 100_000,
});

interface Entry {
  start: number; // window start (ms)
  count: number; // requests counted in this window
  blockedUntil: number; // 0 when not blocked
}

export type RateDecision = { ok: true; remaining: number } | { ok: false; retryAfterMs: number; extended: boolean };

/** Retry-After in whole seconds, rounded up so a client that waits exactly that long is served. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

export class RateLimiter {
  private readonly table = new Map<string, Entry>();
  /** Requests refused (429) since start. */
  limited = 0;
  /** Entries evicted because the table was full. */
  evicted = 0;

  constructor(readonly opts: Pick<RateLimitOptions, 'max' | 'windowMs' | 'maxClients'>) {
    if (!(opts.max >= 1) || !(opts.windowMs >= 1) || !(opts.maxClients >= 1))
      throw new Error('rate limit: max, windowMs and maxClients must be positive');
  }

  /** Clients currently tracked (bounded by maxClients). */
  get size(): number {
    return this.table.size;
  }

  /** Counts one request of `key` at `now` and says whether it may be served. */
  hit(key: string, now: number): RateDecision {
    const { max, windowMs } = this.opts;
    let e = this.table.get(key);
    if (e) this.table.delete(key); // re-inserted below: the Map's order is least recently seen first
    this.sweep(now);
    e ??= { start: now, count: 0, blockedUntil: 0 };
    this.table.set(key, e);
    this.evict();

    if (e.blockedUntil > now) {
      e.blockedUntil = now + windowMs; // an immediate retry extends the block
      this.limited++;
      return { ok: false, retryAfterMs: windowMs, extended: true };
    }
    if (now - e.start >= windowMs) {
      e.start = now;
      e.count = 0;
      e.blockedUntil = 0;
    }
    e.count++;
    if (e.count > max) {
      e.blockedUntil = e.start + windowMs;
      this.limited++;
      return { ok: false, retryAfterMs: e.blockedUntil - now, extended: false };
    }
    return { ok: true, remaining: max - e.count };
  }

  /** Whether `key` is blocked at `now`, without counting a request (for views). */
  blockedFor(key: string, now: number): number {
    const e = this.table.get(key);
    return e && e.blockedUntil > now ? e.blockedUntil - now : 0;
  }

  /** Clients blocked at `now` (a scan of the table; for /metrics and /guard, not per request). */
  blockedCount(now: number): number {
    let n = 0;
    for (const e of this.table.values()) if (e.blockedUntil > now) n++;
    return n;
  }

  /** Drops a few entries that carry nothing any more (window over, not blocked) from the least recently seen end. */
  private sweep(now: number): void {
    let checked = 0;
    for (const [k, e] of this.table) {
      if (checked++ >= 4 || e.blockedUntil > now || now - e.start < this.opts.windowMs) break;
      this.table.delete(k);
    }
  }

  /** Beyond the bound, forgets the least recently seen clients. */
  private evict(): void {
    while (this.table.size > this.opts.maxClients) {
      const oldest = this.table.keys().next().value as string;
      this.table.delete(oldest);
      this.evicted++;
    }
  }
}
