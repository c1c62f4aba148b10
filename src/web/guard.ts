/**
 * Auto-mitigation (docs/API.md "Guard (auto-mitigation)"). Scores abusive behaviour per client key and blocks
 * repeat offenders for escalating periods. It sits in front of the HTTP routes only: it
 * never touches block production, validation, finality or the mempool's contents, so it
 * cannot change consensus — at worst it refuses a client's HTTP requests for a while.
 *
 * Score: each offence adds its weight; the score halves at every full `halfLifeMs` since
 * the client's first offence (in steps, so offences within one period add up exactly). When it
 * reaches `threshold` the client is blocked for `blockMs[level]` (level = blocks it earned
 * before, forgotten `forgetMs` after its last block ended) and the score restarts at 0.
 * While blocked every request answers 429 with Retry-After, and a request during the
 * block re-arms it to its full period from that request ("an immediate retry extends the
 * block"). Memory is bounded like the rate limiter's: least-recently-touched order, stale
 * entries swept, at most `maxClients`.
 */

import type { GuardBlock, GuardOffence } from '../views';

export const OFFENCES = [
  'rate_limited',
  'invalid_submission',
  'malformed_body',
  'admin_auth_failed',
] as const satisfies readonly GuardOffence[];
export type Offence = GuardOffence;

export interface GuardOptions {
  enabled: boolean;
  /** Score at which a client is blocked. */
  threshold: number;
  /** The score halves at every full halfLifeMs (counted from the client's first offence). */
  halfLifeMs: number;
  weights: Record<Offence, number>;
  /** Block periods by level; the last one repeats. */
  blockMs: number[];
  /** A client's level is forgotten this long after its last block ended. */
  forgetMs: number;
  maxClients: number;
}

export const defaultGuardOptions: Readonly<GuardOptions> = Object.freeze({
  enabled: true,
  threshold: 20,
  halfLifeMs: 60_000,
  weights: Object.freeze({ rate_limited: 1, invalid_submission: 2, malformed_body: 2, admin_auth_failed: 5 }),
  blockMs: Object.freeze([30_000, 120_000, 600_000, 3_600_000]) as unknown as number[],
  forgetMs: 24 * 3_600_000,
  maxClients: 50_000,
});

interface Entry {
  score: number;
  scoredAt: number; // start of the current decay period
  level: number; // blocks earned (within forgetMs of each other)
  blockedAt: number;
  blockedUntil: number; // 0 when never blocked
  periodMs: number; // length of the current / last block
  touchedAt: number;
  offences: Record<Offence, number>; // counts since the entry was created
}

/** A blocked client as /guard shows it (views/ops.ts). */
export type GuardBlockView = GuardBlock;

const zeroOffences = (): Record<Offence, number> => ({
  rate_limited: 0,
  invalid_submission: 0,
  malformed_body: 0,
  admin_auth_failed: 0,
});

export class Guard {
  private readonly table = new Map<string, Entry>();
  /** Keys blocked at some point and not yet seen expired (a subset of table). */
  private readonly blocked = new Set<string>();
  readonly opts: GuardOptions;
  /** Blocks imposed since start. */
  blocksTotal = 0;
  /** Requests refused because their client was blocked. */
  rejected = 0;
  evicted = 0;

  constructor(
    opts: Partial<GuardOptions> = {},
    private readonly onBlock?: (key: string, view: GuardBlockView) => void,
  ) {
    this.opts = { ...defaultGuardOptions, ...opts, weights: { ...defaultGuardOptions.weights, ...opts.weights } };
    const o = this.opts;
    if (
      !(o.threshold > 0) ||
      !(o.halfLifeMs > 0) ||
      !(o.maxClients >= 1) ||
      o.blockMs.length === 0 ||
      o.blockMs.some((b) => !(b > 0))
    )
      throw new Error('guard: threshold, halfLifeMs, maxClients and every blockMs must be positive');
  }

  get size(): number {
    return this.table.size;
  }

  /**
   * Called for every request before it is served: the remaining block in ms (the request
   * is to be refused, and the block has been re-armed), or 0.
   */
  check(key: string, now: number): number {
    if (!this.opts.enabled || this.blocked.size === 0) return 0;
    const e = this.table.get(key);
    if (!e || e.blockedUntil <= now) return 0;
    e.blockedUntil = Math.max(e.blockedUntil, now + e.periodMs);
    this.touch(key, e, now);
    this.rejected++;
    return e.blockedUntil - now;
  }

  /** Records an offence; returns the block in ms when this offence triggered one, else 0. */
  offence(key: string, kind: Offence, now: number): number {
    if (!this.opts.enabled) return 0;
    const o = this.opts;
    let e = this.table.get(key);
    if (!e) {
      e = {
        score: 0,
        scoredAt: now,
        level: 0,
        blockedAt: 0,
        blockedUntil: 0,
        periodMs: 0,
        touchedAt: now,
        offences: zeroOffences(),
      };
    }
    this.touch(key, e, now);
    e.offences[kind]++;
    if (e.blockedUntil > now) return 0; // already blocked: the block itself is the answer
    const steps = Math.floor((now - e.scoredAt) / o.halfLifeMs);
    if (steps > 0) {
      e.score = steps >= 64 ? 0 : e.score / 2 ** steps;
      e.scoredAt += steps * o.halfLifeMs;
    }
    e.score += o.weights[kind];
    if (e.score < o.threshold) return 0;
    if (e.blockedUntil > 0 && now - e.blockedUntil > o.forgetMs) e.level = 0;
    e.periodMs = o.blockMs[Math.min(e.level, o.blockMs.length - 1)];
    e.level++;
    e.blockedAt = now;
    e.blockedUntil = now + e.periodMs;
    e.score = 0;
    this.blocked.add(key);
    this.blocksTotal++;
    this.onBlock?.(key, this.viewOf(key, e, now));
    return e.periodMs;
  }

  /** Active blocks at `now`, most recently imposed first (at most `limit`), and their count. */
  activeBlocks(now: number, limit: number): { count: number; blocks: GuardBlockView[] } {
    const active: [string, Entry][] = [];
    for (const k of this.blocked) {
      const e = this.table.get(k);
      if (!e || e.blockedUntil <= now) this.blocked.delete(k);
      else active.push([k, e]);
    }
    active.sort((a, b) => b[1].blockedAt - a[1].blockedAt);
    return { count: active.length, blocks: active.slice(0, limit).map(([k, e]) => this.viewOf(k, e, now)) };
  }

  /** Current (decayed) score of a client; 0 when unknown. */
  score(key: string, now: number): number {
    const e = this.table.get(key);
    return e ? this.scoreAt(e, now) : 0;
  }

  private scoreAt(e: Entry, now: number): number {
    return e.score / 2 ** Math.floor((now - e.scoredAt) / this.opts.halfLifeMs);
  }

  private viewOf(client: string, e: Entry, now: number): GuardBlockView {
    const remainingMs = Math.max(0, e.blockedUntil - now);
    return {
      client,
      remainingMs,
      retryAfter: Math.max(1, Math.ceil(remainingMs / 1000)),
      level: e.level,
      periodMs: e.periodMs,
      blockedAt: e.blockedAt,
      until: e.blockedUntil,
      offences: { ...e.offences },
    };
  }

  private touch(key: string, e: Entry, now: number): void {
    this.table.delete(key);
    this.sweep(now);
    e.touchedAt = now;
    this.table.set(key, e);
    while (this.table.size > this.opts.maxClients) {
      const oldest = this.table.keys().next().value as string;
      this.table.delete(oldest);
      this.blocked.delete(oldest);
      this.evicted++;
    }
  }

  /** An entry is stale once its score has decayed to nothing and its level is forgotten. */
  private sweep(now: number): void {
    let checked = 0;
    for (const [k, e] of this.table) {
      if (checked++ >= 4) break;
      const quiet = now - e.touchedAt > 10 * this.opts.halfLifeMs; // score below 1/1024 of what it was
      const forgotten = e.blockedUntil === 0 || now - e.blockedUntil > this.opts.forgetMs;
      if (!quiet || !forgotten) break;
      this.table.delete(k);
      this.blocked.delete(k);
    }
  }
}

/**
 * Request-local slot where a route notes the offence its answer represents (read by the ingress when the response
 * ends).
 */
const OFFENCE_SLOT = 'cairnOffence';

/** Marks the request as an offence of `kind` (the first mark wins). */
export function markOffence(req: { locals: Record<string, unknown> }, kind: Offence): void {
  if (req.locals[OFFENCE_SLOT] === undefined) req.locals[OFFENCE_SLOT] = kind;
}

export const offenceOf = (req: { locals: Record<string, unknown> }): Offence | undefined =>
  req.locals[OFFENCE_SLOT] as Offence | undefined;
