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
 * A request weighs what it costs (docs/API.md "Rate limit"): a plain one 1 unit of the
 * window's `max`, a JSON-RPC batch one or more per call (`hit(key, now, weight)`), and an
 * answer of many bytes more once it is known (`charge`, after the answer: the next request
 * is refused). A charge that takes the client past `max` blocks it to the end of its window and
 * of one more for every further whole `max` of units: the debt is paid by waiting, so nothing is
 * carried in the entry.
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
  count: number; // units counted in this window
  blockedUntil: number; // 0 when not blocked
}

/**
 * What requests weigh, in units of the limit: a unit stands for about 1 ms of the thread that
 * serves HTTP and produces blocks, so a client at the limit takes at most a few per cent of it
 * whatever it asks for. A plain read costs less than that (GET /status 0.13 ms, an account
 * 0.6 ms, eth_blockNumber 0.2 ms, with their connection) and weighs 1; what costs more weighs
 * more. Measured on this 2-core machine over a chain of 500-transfer blocks (bench/attack.ts
 * --only reads prints the figures):
 * - a JSON answer built per request costs 17–44 ms per MB (a /chain page of full blocks 17,
 *   eth_getBlockByNumber with full transactions 20–40, a full block's GET /blocks/:ref 44):
 *   1 unit per 32 KiB beyond the first unit;
 * - a /chain page costs ~0.28 ms per block as JSON and ~0.15 ms in binary beyond its bytes
 *   (a block's summary, its stored bytes, its signers): 1 unit per 4 JSON blocks, per 8
 *   binary blocks; the binary page's bytes are copied as stored (~5 ms per MB): 1 unit per
 *   256 KiB.
 * The answer's part is charged once it is known (RateLimiter.charge).
 */
export const COST = Object.freeze({
  jsonBytesPerUnit: 32 * 1024,
  jsonPageBlocksPerUnit: 4,
  binaryPageBlocksPerUnit: 8,
  binaryBytesPerUnit: 256 * 1024,
});

/** Units a JSON answer of `chars` characters weighs beyond its request's first unit. */
export const jsonAnswerUnits = (chars: number): number => Math.floor(chars / COST.jsonBytesPerUnit);

/** Units a /chain page of `blocks` blocks and `bytes` bytes weighs beyond its request's first unit. */
export const chainPageUnits = (blocks: number, bytes: number, binary: boolean): number =>
  Math.floor(
    binary
      ? blocks / COST.binaryPageBlocksPerUnit + bytes / COST.binaryBytesPerUnit
      : blocks / COST.jsonPageBlocksPerUnit + bytes / COST.jsonBytesPerUnit,
  );

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

  /**
   * Counts a request of `key` at `now` weighing `weight` units (1 for a plain request; at most
   * `max`, so that any request fits a fresh window) and says whether it may be served.
   */
  hit(key: string, now: number, weight = 1): RateDecision {
    const { max, windowMs } = this.opts;
    let e = this.table.get(key);
    if (e) this.table.delete(key); // re-inserted below: the Map's order is least recently seen first
    this.sweep(now);
    e ??= { start: now, count: 0, blockedUntil: 0 };
    this.table.set(key, e);
    this.evict();

    if (e.blockedUntil > now) {
      // An immediate retry extends the block to a full window (never shortens one a heavy answer set).
      e.blockedUntil = Math.max(e.blockedUntil, now + windowMs);
      this.limited++;
      return { ok: false, retryAfterMs: e.blockedUntil - now, extended: true };
    }
    this.roll(e, now);
    e.count += units(weight, 1, max);
    if (e.count > max) {
      e.blockedUntil = e.start + windowMs;
      this.limited++;
      return { ok: false, retryAfterMs: e.blockedUntil - now, extended: false };
    }
    return { ok: true, remaining: max - e.count };
  }

  /**
   * Adds `extra` units to a request of `key` already served (its weight known only from its
   * answer). Past `max`, the client is blocked to the end of its window, and of one more for
   * every further whole `max` of units (241 units: this window; 480 or 601: the next one too).
   * A client the table no longer holds (evicted under an address flood) is not charged.
   */
  charge(key: string, now: number, extra: number): void {
    const e = this.table.get(key);
    const add = units(extra, 0, Number.MAX_SAFE_INTEGER);
    if (!e || add === 0) return;
    if (e.blockedUntil <= now) this.roll(e, now);
    e.count += add;
    const { max, windowMs } = this.opts;
    if (e.count > max) e.blockedUntil = Math.max(e.blockedUntil, e.start + windowMs * Math.floor(e.count / max));
  }

  /** A window that has passed (and any block with it) gives way to a fresh one from `now`. */
  private roll(e: Entry, now: number): void {
    if (now - e.start < this.opts.windowMs) return;
    e.start = now;
    e.count = 0;
    e.blockedUntil = 0;
  }

  /** Units `key` has used of its window at `now` (0 when its window has passed or it is unknown). */
  used(key: string, now: number): number {
    const e = this.table.get(key);
    return e && now - e.start < this.opts.windowMs ? e.count : 0;
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

/** A weight as whole units within [min, max] (a fraction or a bad number never makes a request free). */
function units(w: number, min: number, max: number): number {
  return Number.isFinite(w) ? Math.min(max, Math.max(min, Math.ceil(w))) : min;
}
