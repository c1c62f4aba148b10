/**
 * Ingress protection of the HTTP API: rate limit (429 + Retry-After, an immediate retry
 * extends the block), client address and trusted proxies, the guard's escalating blocks,
 * gateway observability, /metrics, admin token, readiness (503), the compiler upstream
 * (502) and bounded memory. The HTTP tests build the real `createHttpServer` over stub
 * dependencies on loopback ports; clients pick their source address in 127.0.0.0/8.
 */
import http from 'node:http';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/wait';
import type { AlertSource, SecurityAlert } from '../../src/actors/sentinel/alerts';
import type { PeerInfo } from '../../src/protocol/peers';
import type { Admission } from '../../src/api/admission';
import type { ChainQueries } from '../../src/api/ports';
import type { SolcCompiler } from '../../src/contracts/compiler';
import { AdminAuth, ADMIN_DISABLED } from '../../src/http/admin';
import { AddressList, clientKey, maskKey, normalizeIp, resolveClientIp } from '../../src/web/clientIp';
import { Gateway } from '../../src/web/gateway';
import { Guard } from '../../src/web/guard';
import { Histogram } from '../../src/web/histogram';
import { createNodeMetrics } from '../../src/http/metrics';
import { RateLimiter } from '../../src/web/rateLimit';
import { createHttpServer, type HttpDeps } from '../../src/http/server';

// ───────────────────────────────────────────────────────────── helpers

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** One request from source address `from` (127.0.0.x), on a fresh connection. */
function request(
  port: number,
  from: string,
  method: string,
  path: string,
  opts: { body?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(opts.body);
    }
    const req = http.request(
      { host: '127.0.0.1', port, method, path, localAddress: from, agent: false, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let body: any = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const HEAD = {
  height: 7,
  hash: `0x${'ab'.repeat(32)}`,
  stateRoot: `0x${'cd'.repeat(32)}`,
  finalizedHeight: 5,
  timestamp: 1,
};

function stubDeps(over: Partial<HttpDeps> = {}): HttpDeps {
  const reader = {
    head: HEAD,
    status: async () => ({ chainId: 72020, height: HEAD.height, finalizedHeight: HEAD.finalizedHeight }),
    account: async () => undefined,
    accountJson: async () => undefined,
    code: async () => '0x6080',
    mempool: async () => ({ count: 0, txs: [] }),
    search: async (q: string) => [{ kind: 'block', id: q }],
  } as unknown as ChainQueries;
  const id = `0x${'11'.repeat(32)}`;
  const admission = {
    // {"bad":…} → malformed (400); {"sig":false} → invalid signature; else accepted
    async submit(body: any) {
      if (body?.bad) return { kind: 'malformed', error: 'missing field: nonce' };
      if (body?.sig === false)
        return { kind: 'verdict', verdict: { accepted: false, id, reason: 'invalid signature' }, badSignature: true };
      if (body?.down)
        return { kind: 'unavailable', error: 'signature verification unavailable, retry: worker crashed' };
      return { kind: 'verdict', verdict: { accepted: true, id }, badSignature: false };
    },
    async submitRaw() {
      return { kind: 'malformed', error: 'raw transaction must be 0x-prefixed hex' };
    },
  } as unknown as Admission;
  const compiler = {
    compile: async () => Promise.reject(new Error('compiler worker exited')),
  } as unknown as SolcCompiler;
  return {
    reader,
    admission,
    compiler,
    saveContract: async () => {},
    log: pino({ level: 'silent' }),
    now: Date.now,
    ...over,
  };
}

// hyper-express adds exit/signal listeners per server (and keeps them after close): many short-lived servers here.
process.setMaxListeners(100);

const servers: ReturnType<typeof createHttpServer>[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function start(over: Partial<HttpDeps> = {}) {
  const s = createHttpServer(stubDeps(over));
  await s.listen('127.0.0.1', 0);
  servers.push(s);
  const port = s.port;
  return {
    s,
    port,
    get: (from: string, path: string, headers?: Record<string, string>) =>
      request(port, from, 'GET', path, { headers }),
  };
}

// ───────────────────────────────────────────────────────────── units (fake clock)

describe('client address', () => {
  it('normalises the long IPv6 forms uWebSockets reports, IPv4-mapped included', () => {
    expect(normalizeIp('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(normalizeIp('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeIp('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::1');
    expect(normalizeIp('2001:0DB8:0000:0000:0001:0000:0000:0001')).toBe('2001:db8::1:0:0:1');
    expect(normalizeIp(' 203.0.113.9 ')).toBe('203.0.113.9');
    for (const bad of ['', 'abc', '1.2.3', '1.2.3.4.5', '1::2::3', '12345::', ':1:2:3:4:5:6:7'])
      expect(normalizeIp(bad), bad).toBeUndefined();
  });

  it('keys IPv4 clients by address and IPv6 clients by their /64', () => {
    expect(clientKey('198.51.100.4')).toBe('198.51.100.4');
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:db8:1:2:ffff::1'));
    expect(clientKey('::1')).toBe('::/64');
    expect(maskKey('198.51.100.4')).toBe('198.51.100.x');
    expect(maskKey('2001:db8:1:2::/64')).toBe('2001:db8:x::/64');
  });

  it('matches addresses and CIDR blocks, refuses typos', () => {
    const l = new AddressList(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32', '::ffff:198.51.100.0/120']);
    expect(l.has('10.200.1.1')).toBe(true);
    expect(l.has('11.0.0.1')).toBe(false);
    expect(l.has('192.0.2.1')).toBe(true);
    expect(l.has('192.0.2.2')).toBe(false);
    expect(l.has('2001:db8:ffff::1')).toBe(true);
    expect(l.has('198.51.100.77')).toBe(true);
    expect(new AddressList([]).has('127.0.0.1')).toBe(false); // nobody is exempt by default
    for (const bad of ['localhost', '10.0.0.0/33', '1.2.3.4/8/1', '::/129', '10.0.0.0/x'])
      expect(() => new AddressList([bad]), bad).toThrow();
  });

  it('believes X-Forwarded-For only from trusted proxies, walking from the right', () => {
    const trusted = new AddressList(['127.0.0.5', '10.0.0.0/8']);
    expect(resolveClientIp('127.0.0.9', '203.0.113.7', trusted)).toBe('127.0.0.9'); // untrusted socket: header ignored
    expect(resolveClientIp('127.0.0.5', '203.0.113.7', trusted)).toBe('203.0.113.7');
    // a spoofed left hop is not believed
    expect(resolveClientIp('127.0.0.5', '6.6.6.6, 203.0.113.7, 10.1.1.1', trusted)).toBe('203.0.113.7');
    // A malformed hop reached while still on trusted proxies names no client (the request is refused, counted against
    // nobody)…
    expect(resolveClientIp('127.0.0.5', 'garbage, 10.1.1.1', trusted)).toBeUndefined();
    expect(resolveClientIp('127.0.0.5', '203.0.113.7,', trusted)).toBeUndefined();
    // …one left of the first untrusted hop is never reached.
    expect(resolveClientIp('127.0.0.5', 'garbage, 203.0.113.7', trusted)).toBe('203.0.113.7');
    expect(resolveClientIp('127.0.0.5', undefined, trusted)).toBe('127.0.0.5');
    expect(resolveClientIp('0000:0000:0000:0000:0000:ffff:7f00:0005', '::ffff:203.0.113.8', trusted)).toBe(
      '203.0.113.8',
    );
  });
});

describe('RateLimiter', () => {
  it('serves max requests per window, then refuses until the window ends', () => {
    const l = new RateLimiter({ max: 240, windowMs: 10_000, maxClients: 100 });
    for (let i = 0; i < 240; i++) expect(l.hit('a', 1000 + i).ok).toBe(true);
    const r = l.hit('a', 2000);
    expect(r).toEqual({ ok: false, retryAfterMs: 9000, extended: false });
    expect(l.hit('b', 2000).ok).toBe(true); // other clients are not affected
    expect(l.hit('a', 11_000).ok).toBe(true); // honoured Retry-After: a fresh window
  });

  it('extends the block when the client retries before Retry-After', () => {
    const l = new RateLimiter({ max: 2, windowMs: 10_000, maxClients: 100 });
    l.hit('a', 0);
    l.hit('a', 1);
    expect(l.hit('a', 2)).toMatchObject({ ok: false, retryAfterMs: 9998 });
    expect(l.hit('a', 5000)).toEqual({ ok: false, retryAfterMs: 10_000, extended: true }); // blocked until 15 000 now
    expect(l.hit('a', 12_000).ok).toBe(false); // the original window would have ended at 10 000
    expect(l.blockedFor('a', 12_001)).toBe(9999);
    expect(l.hit('a', 22_000).ok).toBe(true); // a full window after the last retry
  });

  it('keeps its table bounded when addresses rotate, and sweeps stale entries', () => {
    const l = new RateLimiter({ max: 5, windowMs: 1000, maxClients: 1000 });
    for (let i = 0; i < 100_000; i++) l.hit(`k${i}`, i % 500);
    expect(l.size).toBeLessThanOrEqual(1000);
    expect(l.evicted).toBeGreaterThan(0);
    // later, one client keeps coming back: stale entries are swept a few at a time
    for (let t = 0; t < 400; t++) l.hit('steady', 10_000 + t * 10);
    expect(l.size).toBeLessThan(1000);
  });
});

describe('Guard', () => {
  it('blocks repeat offenders for escalating periods: 30 s, 2 min, 10 min, 1 h', () => {
    const g = new Guard({
      threshold: 10,
      weights: { rate_limited: 1, invalid_submission: 5, malformed_body: 2, admin_auth_failed: 5 },
    });
    let t = 0;
    const periods: number[] = [];
    for (let round = 0; round < 5; round++) {
      expect(g.offence('x', 'invalid_submission', t)).toBe(0);
      const ms = g.offence('x', 'invalid_submission', t);
      periods.push(ms);
      expect(g.check('y', t)).toBe(0);
      t += ms; // the block runs out (no request in between)
      expect(g.check('x', t)).toBe(0);
    }
    expect(periods).toEqual([30_000, 120_000, 600_000, 3_600_000, 3_600_000]);
    expect(g.blocksTotal).toBe(5);
  });

  it('re-arms a block on a request during it, and decays scores', () => {
    const g = new Guard({
      threshold: 4,
      halfLifeMs: 1000,
      weights: { rate_limited: 1, invalid_submission: 2, malformed_body: 2, admin_auth_failed: 5 },
    });
    g.offence('x', 'malformed_body', 0);
    g.offence('x', 'malformed_body', 2000); // two periods later the first counts 0.5: 2.5 < 4
    expect(g.check('x', 2000)).toBe(0);
    expect(g.score('x', 2000)).toBeCloseTo(2.5);
    expect(g.score('x', 2999)).toBeCloseTo(2.5); // steps, not a slope: nothing is lost within a period
    expect(g.score('x', 3000)).toBeCloseTo(1.25);
    expect(g.offence('x', 'invalid_submission', 2000)).toBe(30_000); // 4.5 ≥ 4
    expect(g.check('x', 12_000)).toBe(30_000); // retry at +10 s: blocked until 42 000
    expect(g.check('x', 41_999)).toBe(30_000);
    expect(g.check('x', 71_999 + 1)).toBe(0);
    expect(g.activeBlocks(50_000, 10).count).toBe(1);
    const { count, blocks } = g.activeBlocks(72_000, 10);
    expect(count).toBe(0);
    expect(blocks).toEqual([]);
  });

  it('forgets the escalation level after forgetMs, and can be disabled', () => {
    const g = new Guard({ threshold: 2, forgetMs: 60_000 });
    expect(g.offence('x', 'admin_auth_failed', 0)).toBe(30_000);
    expect(g.offence('x', 'admin_auth_failed', 31_000)).toBe(120_000); // level 2 while remembered
    expect(g.offence('x', 'admin_auth_failed', 151_000 + 60_001)).toBe(30_000); // forgotten
    const off = new Guard({ enabled: false, threshold: 1 });
    expect(off.offence('x', 'admin_auth_failed', 0)).toBe(0);
    expect(off.check('x', 0)).toBe(0);
  });

  it('keeps its table bounded', () => {
    const g = new Guard({ maxClients: 500 });
    for (let i = 0; i < 50_000; i++) g.offence(`k${i}`, 'rate_limited', i);
    expect(g.size).toBeLessThanOrEqual(500);
  });
});

describe('Gateway, histogram, admin token', () => {
  it('reports percentiles over a bounded window and counts errors by route', () => {
    const gw = new Gateway(() => 1000);
    for (let i = 1; i <= 10_000; i++) {
      gw.begin();
      gw.end('GET /blocks/:ref', i % 10 === 0 ? 404 : 200, i % 100); // 0..99 ms
    }
    gw.begin();
    const s = gw.snapshot([
      {
        url: 'http://127.0.0.1:6071',
        height: 9,
        lag: 1,
        lastSeen: 5,
        head: null,
        finalizedHeight: 0,
        justifiedHeight: 0,
        latencyMs: null,
        score: 0,
        droppedUntil: 0,
      },
    ]);
    expect(s.inFlight).toBe(1);
    expect(s.requests).toEqual({ total: 10_000, errors4xx: 1000, errors5xx: 0 });
    expect(s.latencyMs.samples).toBe(4096);
    expect(s.latencyMs.p50).toBeGreaterThanOrEqual(45);
    expect(s.latencyMs.p50).toBeLessThanOrEqual(55);
    expect(s.latencyMs.p99).toBeGreaterThanOrEqual(97);
    expect(s.routes[0]).toMatchObject({
      route: 'GET /blocks/:ref',
      requests: 10_000,
      errors4xx: 1000,
      status: { 200: 9000, 404: 1000 },
    });
    expect(s.routes[0].latencyMs.samples).toBe(512);
    expect(s.peers).toEqual([
      { url: 'http://127.0.0.1:6071', height: 9, head: null, lag: 1, latencyMs: null, score: 0, lastSeen: 5 },
    ]);
  });

  it('renders cumulative histogram buckets', () => {
    const h = new Histogram([0.1, 1]);
    for (const v of [0.05, 0.1, 0.5, 3]) h.observe(v);
    expect(h.lines('x_seconds', { route: 'GET /a"b' })).toEqual([
      'x_seconds_bucket{route="GET /a\\"b",le="0.1"} 2',
      'x_seconds_bucket{route="GET /a\\"b",le="1"} 3',
      'x_seconds_bucket{route="GET /a\\"b",le="+Inf"} 4',
      'x_seconds_sum{route="GET /a\\"b"} 3.65',
      'x_seconds_count{route="GET /a\\"b"} 4',
    ]);
  });

  it('checks x-admin-token: disabled, missing, wrong, right', () => {
    expect(new AdminAuth(null).check('anything')).toMatchObject({ ok: false, status: 403, error: ADMIN_DISABLED });
    const a = new AdminAuth('s3cret-token');
    expect(a.check(undefined)).toMatchObject({ ok: false, status: 401 });
    expect(a.check('')).toMatchObject({ ok: false, status: 401 });
    // shorter: no length error
    expect(a.check('s3cret-toke')).toMatchObject({ ok: false, status: 403, wrongToken: true });
    expect(a.check('s3cret-token-and-more')).toMatchObject({ ok: false, status: 403 });
    expect(a.check('s3cret-token')).toEqual({ ok: true });
  });
});

// ───────────────────────────────────────────────────────────── over HTTP

describe('rate limit over HTTP', () => {
  // The windows run on the server's injected clock (HttpDeps.now), moved by the test: no sleeps.
  it('answers 429 {error} with Retry-After beyond the limit, while other clients are served', async () => {
    const WINDOW_MS = 500;
    const clock = { t: 1_000_000 };
    const { get } = await start({ now: () => clock.t, rateLimit: { max: 5, windowMs: WINDOW_MS } });
    for (let i = 0; i < 5; i++) expect((await get('127.0.0.2', '/status')).status).toBe(200);
    const r = await get('127.0.0.2', '/status');
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body.error).toMatch(/rate limit exceeded: 5 requests per 500 ms/);
    expect((await get('127.0.0.3', '/status')).status).toBe(200); // another address
    expect((await get('127.0.0.2', '/nowhere')).status).toBe(429); // every route, unknown ones too
    // Retry-After rounds up to whole seconds (1 s); the block the retry above re-armed ends
    // one window after it: waiting that long, no longer, is enough to be served.
    clock.t += WINDOW_MS - 1;
    expect((await get('127.0.0.2', '/status')).status).toBe(429); // 1 ms early: still blocked (and re-armed)
    clock.t += WINDOW_MS;
    expect((await get('127.0.0.2', '/status')).status).toBe(200);
  });

  it('extends the block on an immediate retry', async () => {
    const WINDOW_MS = 600;
    const clock = { t: 1_000_000 };
    const { get } = await start({ now: () => clock.t, rateLimit: { max: 2, windowMs: WINDOW_MS } });
    await get('127.0.0.2', '/status');
    await get('127.0.0.2', '/status');
    expect((await get('127.0.0.2', '/status')).status).toBe(429); // blocked until the window ends (t0 + 600)
    clock.t += 400;
    expect((await get('127.0.0.2', '/status')).status).toBe(429); // retry: blocked until t0 + 400 + 600
    clock.t += 300; // t0 + 700: past the original window
    expect((await get('127.0.0.2', '/status')).status).toBe(429); // still blocked (and re-armed: until t0 + 1300)
    clock.t += WINDOW_MS; // the re-armed block ends one window after that retry
    expect((await get('127.0.0.2', '/status')).status).toBe(200);
  });

  it('limits loopback by default; exempt addresses are never limited', async () => {
    const { get } = await start({ rateLimit: { max: 2, windowMs: 5000, exempt: ['127.0.0.4'] } });
    const codes = async (from: string) =>
      Promise.all([1, 2, 3, 4].map(() => get(from, '/status').then((r) => r.status)));
    expect((await codes('127.0.0.1')).filter((c) => c === 429).length).toBe(2);
    expect(await codes('127.0.0.4')).toEqual([200, 200, 200, 200]);
  });

  it('counts the client behind a trusted proxy, and ignores X-Forwarded-For from anyone else', async () => {
    const { get } = await start({ rateLimit: { max: 2, windowMs: 5000, trustedProxies: ['127.0.0.5'] } });
    const viaProxy = (client: string) =>
      get('127.0.0.5', '/status', { 'x-forwarded-for': client }).then((r) => r.status);
    expect([
      await viaProxy('203.0.113.1'),
      await viaProxy('203.0.113.1'),
      await viaProxy('203.0.113.2'),
      await viaProxy('203.0.113.2'),
    ]).toEqual([200, 200, 200, 200]);
    expect(await viaProxy('203.0.113.1')).toBe(429);
    const spoof = (client: string) => get('127.0.0.6', '/status', { 'x-forwarded-for': client }).then((r) => r.status);
    expect([await spoof('198.51.100.1'), await spoof('198.51.100.2'), await spoof('198.51.100.3')]).toEqual([
      200, 200, 429,
    ]);
  });

  it('gives every response a short x-request-id; a trusted proxy may pass its own', async () => {
    const { get } = await start({ rateLimit: { max: 1, windowMs: 5000, trustedProxies: ['127.0.0.5'] } });
    const a = await get('127.0.0.2', '/status');
    const b = await get('127.0.0.2', '/status'); // 429
    const c = await get('127.0.0.3', '/nowhere', { 'x-request-id': 'mine-1' }); // 404, untrusted: replaced
    const ids = [a, b, c].map((r) => r.headers['x-request-id'] as string);
    expect(b.status).toBe(429);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{6}-[0-9a-z]+$/);
    expect((await get('127.0.0.5', '/status', { 'x-request-id': 'edge-42' })).headers['x-request-id']).toBe('edge-42');
  });
});

describe('guard over HTTP', () => {
  const post = (port: number, from: string, path: string, body: string) => request(port, from, 'POST', path, { body });

  it(
    'blocks a client that keeps sending invalid transactions, ' +
      'shows it on /guard, and answers 429 with Retry-After',
    async () => {
      // weights: invalid 2, malformed 2
      const { get, port } = await start({ adminToken: 'op-token', guard: { threshold: 8 } });
      expect((await post(port, '127.0.0.2', '/tx', '{"bad":true}')).status).toBe(400);
      expect((await post(port, '127.0.0.2', '/tx', '{"sig":false}')).body).toMatchObject({
        accepted: false,
        reason: 'invalid signature',
      });
      expect((await post(port, '127.0.0.2', '/tx', '{not json')).status).toBe(400);
      expect((await post(port, '127.0.0.2', '/vm/tx', '{"raw":"zz"}')).status).toBe(400); // score 8: blocked
      const r = await get('127.0.0.2', '/status');
      expect(r.status).toBe(429);
      expect(Number(r.headers['retry-after'])).toBe(30);
      expect(r.body.error).toMatch(/temporarily blocked/);
      expect((await get('127.0.0.3', '/status')).status).toBe(200); // nobody else

      const view = (await get('127.0.0.3', '/guard')).body;
      expect(view).toMatchObject({
        enabled: true,
        activeBlocks: 1,
        blocksTotal: 1,
        thresholds: { score: 8, blockMs: [30_000, 120_000, 600_000, 3_600_000] },
      });
      expect(view.blocks[0]).toMatchObject({
        client: '127.0.0.x',
        level: 1,
        periodMs: 30_000,
        offences: { invalid_submission: 3, malformed_body: 1 },
      });
      expect(view.blocks[0].remainingMs).toBeGreaterThan(29_000);
      expect(view.blocks[0].remainingMs).toBeLessThanOrEqual(30_000);
      const asAdmin = (await get('127.0.0.3', '/guard', { 'x-admin-token': 'op-token' })).body;
      expect(asAdmin.blocks[0].client).toBe('127.0.0.2');
    },
  );

  it('counts 429s the client ignored: the guard then blocks for 30 s', async () => {
    const { get } = await start({ rateLimit: { max: 3, windowMs: 10_000 }, guard: { threshold: 10 } });
    for (let i = 0; i < 3; i++) await get('127.0.0.2', '/status');
    // 9 rate-limit offences
    for (let i = 0; i < 9; i++) expect((await get('127.0.0.2', '/status')).headers['retry-after']).toBe('10');
    expect((await get('127.0.0.3', '/guard')).body.activeBlocks).toBe(0);
    const tenth = await get('127.0.0.2', '/status'); // the 10th: the guard blocks
    expect(tenth.status).toBe(429);
    expect(tenth.headers['retry-after']).toBe('30');
    expect((await get('127.0.0.2', '/status')).body.error).toMatch(/temporarily blocked/);
  });

  it('counts oversized bodies and wrong admin tokens; accepted traffic and exempt clients never', async () => {
    const { get, port } = await start({
      adminToken: 'op-token',
      rateLimit: { exempt: ['127.0.0.4'] },
      guard: { threshold: 10 },
    });
    const big = 'x'.repeat(600 * 1024);
    for (let i = 0; i < 5; i++) expect((await post(port, '127.0.0.6', '/tx', big)).status).toBe(413);
    expect((await get('127.0.0.6', '/status')).status).toBe(429); // 5 × malformed_body (2)

    expect((await get('127.0.0.7', '/peers', { 'x-admin-token': 'guess1' })).status).toBe(403);
    expect((await get('127.0.0.7', '/peers')).status).toBe(401); // a missing token is no offence
    expect((await get('127.0.0.7', '/peers', { 'x-admin-token': 'guess2' })).status).toBe(403);
    // 2 × admin_auth_failed (5): blocked, right token or not
    expect((await get('127.0.0.7', '/peers', { 'x-admin-token': 'op-token' })).status).toBe(429);

    // exempt
    for (let i = 0; i < 20; i++) expect((await post(port, '127.0.0.4', '/tx', '{"bad":true}')).status).toBe(400);
    expect((await get('127.0.0.4', '/status')).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await post(port, '127.0.0.8', '/tx', '{}')).body.accepted).toBe(true);
    expect((await get('127.0.0.8', '/status')).status).toBe(200);
    expect((await get('127.0.0.3', '/guard')).body.activeBlocks).toBe(2);
  });
});

describe('gateway, metrics, admin, readiness, upstream over HTTP', () => {
  it('GET /gateway reports routes by pattern, errors, latency percentiles, in-flight, uptime and peers', async () => {
    const peers: PeerInfo[] = [
      {
        url: 'http://10.0.0.2:6070',
        height: 40,
        lag: 2,
        lastSeen: 123,
        head: null,
        finalizedHeight: 0,
        justifiedHeight: 0,
        latencyMs: null,
        score: 0,
        droppedUntil: 0,
      },
    ];
    const clock = { t: 1_000_000 };
    const { get } = await start({ peers: () => peers, now: () => clock.t });
    await get('127.0.0.2', '/address/0x00000000000000000000000000000000000000aa'); // 404
    await get('127.0.0.2', '/address/0x00000000000000000000000000000000000000bb');
    await get('127.0.0.2', '/address/nope'); // 400
    await get('127.0.0.2', '/status');
    await get('127.0.0.2', '/no/such/thing');
    clock.t += 4_321;
    const g = (await get('127.0.0.2', '/gateway')).body;
    expect(g.inFlight).toBe(1); // this request
    expect(g.uptimeMs).toBe(4_321); // since the server started, on its clock
    expect(g.requests).toMatchObject({ total: 5, errors4xx: 4, errors5xx: 0 });
    const byRoute = Object.fromEntries(g.routes.map((x: any) => [x.route, x]));
    expect(byRoute['GET /address/:end']).toMatchObject({ requests: 3, errors4xx: 3, status: { 400: 1, 404: 2 } });
    expect(byRoute['(unmatched)']).toMatchObject({ requests: 1, errors4xx: 1 });
    expect(Object.keys(byRoute).some((k) => k.includes('0x000'))).toBe(false);
    expect(g.latencyMs).toMatchObject({ window: 4096, samples: 5 });
    expect(g.latencyMs.p50).toBeGreaterThan(0);
    expect(g.latencyMs.p99).toBeGreaterThanOrEqual(g.latencyMs.p90);
    expect(g.peers).toEqual(peers.map(({ finalizedHeight: _f, justifiedHeight: _j, droppedUntil: _d, ...p }) => p));
    expect(g.rateLimit).toMatchObject({ max: 240, windowMs: 10_000, exempt: 0, trustedProxies: 0 });
    expect((await start()).s.protection.gateway.snapshot([]).peers).toEqual([]); // a single node
  });

  it('accounts for a request whose client went away before the answer: status 0, nothing left in flight', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const reader = { ...stubDeps().reader, tx: async () => (await slow, undefined) } as unknown as ChainQueries;
    const { s, port } = await start({ reader });
    const gone = new Promise<void>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        path: `/tx/0x${'22'.repeat(32)}`,
        localAddress: '127.0.0.2',
        agent: false,
      });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => (req.destroy(), resolve()), 100);
    });
    await gone;
    // The abort reaches the server as a socket close with nothing to observe before the route
    // ends: give it that time (the one wait of this file that is not on a condition).
    await new Promise((r) => setTimeout(r, 50));
    expect(s.protection.gateway.inFlight).toBe(1); // the route still waits on the store
    release();
    await waitUntil(() => s.protection.gateway.inFlight === 0, 5_000, 10, 'the aborted request accounted for');
    const g = s.protection.gateway.snapshot([]);
    expect(g.inFlight).toBe(0);
    expect(g.routes.find((x) => x.route === 'GET /tx/:id')).toMatchObject({ requests: 1, status: { 0: 1 } });
  });

  it('GET /metrics speaks Prometheus text 0.0.4 with the chain, HTTP, protection and node series', async () => {
    const node = createNodeMetrics();
    node.blockProductionSeconds.observe(0.02);
    node.verifySeconds.observe(0.0007);
    const { get } = await start({
      rateLimit: { max: 2, windowMs: 5000 },
      metrics: { mempoolSize: async () => 42, node },
    });
    await get('127.0.0.2', '/status');
    await get('127.0.0.2', '/status');
    await get('127.0.0.2', '/status'); // 429
    const r = await get('127.0.0.3', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const t = r.text;
    for (const line of [
      'cairn_height 7',
      'cairn_finalized_height 5',
      'cairn_mempool_size 42',
      'cairn_peers 0',
      'cairn_http_requests_total{route="GET /status",status="200"} 2',
      'cairn_http_requests_total{route="GET /status",status="429"} 1',
      'cairn_http_request_duration_seconds_count{route="GET /status"} 3',
      'cairn_rate_limited_total 1',
      'cairn_guard_blocks_active 0',
      'cairn_block_production_seconds_count 1',
      'cairn_verify_seconds_bucket{le="0.001"} 1',
      '# TYPE cairn_http_request_duration_seconds histogram',
      '# TYPE cairn_rate_limited_total counter',
    ])
      expect(t.split('\n'), line).toContain(line);
    // every sample line is `name{labels} value`
    for (const line of t.trim().split('\n'))
      if (!line.startsWith('#'))
        expect(line).toMatch(/^[a-z_:][a-z0-9_:]*(\{[^}]*\})? [-+0-9.eE]+$|^[a-z_:][a-z0-9_:]*(\{[^}]*\})? \+Inf$/);
  });

  it('admin endpoints: disabled without a token; 401 missing, 403 wrong, 200 right; alerts newest first', async () => {
    const off = await start();
    const d = await off.get('127.0.0.2', '/peers', { 'x-admin-token': 'x' });
    expect(d.status).toBe(403);
    expect(d.body).toEqual({ error: 'admin endpoints are disabled: no admin token configured' });
    expect((await off.get('127.0.0.2', '/security/alerts')).status).toBe(403);

    const alerts: SecurityAlert[] = [1, 2, 3].map((id) => ({
      id,
      kind: 'reorg',
      severity: 'warning',
      message: `a${id}`,
      at: id,
      height: id,
      details: {},
    }));
    const source: AlertSource = { recent: (limit) => [...alerts].reverse().slice(0, limit) };
    const on = await start({
      adminToken: 'op-token',
      alerts: source,
      peers: () => [
        {
          url: 'http://p',
          height: 1,
          lag: 0,
          lastSeen: 1,
          head: null,
          finalizedHeight: 0,
          justifiedHeight: 0,
          latencyMs: null,
          score: 0,
          droppedUntil: 0,
        },
      ],
    });
    expect(await on.get('127.0.0.2', '/peers')).toMatchObject({
      status: 401,
      body: { error: 'missing x-admin-token header' },
    });
    expect(await on.get('127.0.0.2', '/peers', { 'x-admin-token': 'nope' })).toMatchObject({
      status: 403,
      body: { error: 'invalid x-admin-token' },
    });
    expect((await on.get('127.0.0.2', '/peers', { 'x-admin-token': 'op-token' })).body).toEqual({
      peers: [
        {
          url: 'http://p',
          height: 1,
          lag: 0,
          lastSeen: 1,
          head: null,
          finalizedHeight: 0,
          justifiedHeight: 0,
          latencyMs: null,
          score: 0,
          droppedUntil: 0,
        },
      ],
    });
    const a = await on.get('127.0.0.2', '/security/alerts?limit=2', { 'x-admin-token': 'op-token' });
    expect(a.body.alerts.map((x: SecurityAlert) => x.id)).toEqual([3, 2]);
    // Above the maximum the page is capped, as every feed is (SPEC: MAX_CHAIN_PAGE "and similar paginated endpoints").
    expect(
      (await on.get('127.0.0.2', '/security/alerts?limit=501', { 'x-admin-token': 'op-token' })).body,
    ).toMatchObject({ capped: 'limit 501 is above 500: at most 500 alerts are served' });
    expect((await on.get('127.0.0.2', '/security/alerts?limit=0', { 'x-admin-token': 'op-token' })).status).toBe(400);
    const none = await start({ adminToken: 'op-token' });
    expect((await none.get('127.0.0.2', '/security/alerts', { 'x-admin-token': 'op-token' })).body).toEqual({
      alerts: [],
    });
  });

  it('answers 503 with Retry-After on every route while the node is not ready', async () => {
    let ready = false;
    const { get } = await start({ ready: () => ready });
    for (const p of ['/', '/status', '/metrics', '/gateway', '/nowhere']) {
      const r = await get('127.0.0.2', p);
      expect(r.status, p).toBe(503);
      expect(r.headers['retry-after']).toBe('1');
      expect(r.body).toEqual({ error: 'node is starting: retry shortly' });
    }
    ready = true;
    expect((await get('127.0.0.2', '/status')).status).toBe(200);
  });

  it('503 from an unavailable verifier carries Retry-After; 502 when the compiler service fails', async () => {
    const { port } = await start();
    const v = await request(port, '127.0.0.2', 'POST', '/tx', { body: '{"down":true}' });
    expect(v.status).toBe(503);
    expect(v.headers['retry-after']).toBe('1');
    const body = JSON.stringify({ source: 'contract A {}', contractName: 'A' });
    const c = await request(port, '127.0.0.2', 'POST', `/contract/0x${'aa'.repeat(20)}/verify`, { body });
    expect(c.status).toBe(502);
    expect(c.body.error).toMatch(/^compiler service failed: compiler worker exited/);
  });

  it('a repeated query parameter is a 400 or handled, never a 500', async () => {
    const { get } = await start();
    expect((await get('127.0.0.2', '/search?q=0x1&q=0x2')).body).toEqual({
      q: '0x1',
      results: [{ kind: 'block', id: '0x1' }],
    });
    expect((await get('127.0.0.2', '/guard?limit=1&limit=2')).status).toBe(400);
    expect((await get('127.0.0.2', '/guard?limit=1001')).body.capped).toBe(
      'limit 1001 is above 1000: at most 1000 items are served',
    );
  });
});
