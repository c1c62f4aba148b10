/**
 * Rate limit and guard under abuse: offenders drive --factor × RATE_LIMIT_MAX from several
 * loopback addresses while a well-behaved client (under the limit) and a polite client
 * (bursts, then honours Retry-After) use the same server; then many distinct client
 * addresses show that the limiter's and the guard's tables, and the server's RSS, stay
 * bounded.
 *
 *   npx tsx bench/ratelimit.ts [--target standalone|node] [--url http://127.0.0.1:6070]
 *                              [--seconds 20] [--factor 10] [--offenders 5]
 *                              [--distinct-sockets 20000] [--distinct-forwarded 300000]
 *                              [--distinct-offenders 150000] [--max-clients 100000]
 *
 * --target standalone (default): a child process serving `createHttpServer` (the real
 *   src/http/ stack: ingress, rate limit, guard, gateway, routes) over stub chain
 *   dependencies, with the default limits (240 / 10 000 ms, nobody exempt) and 127.0.0.9
 *   as a trusted proxy, so the memory phase can also present hundreds of thousands of
 *   client addresses through X-Forwarded-For.
 * --target node: a real node (`src/cli/main.ts node --trusted-proxies 127.0.0.9`, fresh
 *   data dir, default limits, nobody exempt) in a child process, or the node at --url (then
 *   the X-Forwarded-For phases are skipped, and RSS needs NODE_PID). If the node had no
 *   protection wired, the report would say that no request was limited.
 *
 * Offenders are 127.0.0.2.., the well-behaved client 127.0.0.7 (half the limit), the
 * polite client 127.0.0.8; distinct socket addresses come from 127.1.0.0/16 (one
 * request each, a fresh connection each). RSS is read from /proc/<pid>/status of the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import {
  fmt,
  freePort,
  pct,
  posInt,
  printTable,
  ROOT,
  sleep,
  spawnNode,
  waitReady,
  type SpawnedNode,
} from './lib/harness';

// ─────────────────────────────────────────────────────────────────────────── standalone server (child)

async function serve(port: number, maxClients: number): Promise<void> {
  const pino = (await import('pino')).default;
  const { createHttpServer } = await import('../src/http/server');
  const head = {
    height: 1,
    hash: `0x${'00'.repeat(32)}`,
    stateRoot: `0x${'00'.repeat(32)}`,
    finalizedHeight: 1,
    timestamp: 0,
  };
  const reader = {
    head,
    status: async () => ({ chainId: 72020, height: head.height, finalizedHeight: head.finalizedHeight }),
  };
  const admission = {
    submit: async () => ({ kind: 'malformed', error: 'missing field: nonce' }),
    submitRaw: async () => ({ kind: 'malformed', error: 'bad' }),
  };
  const s = createHttpServer({
    reader: reader as never,
    admission: admission as never,
    compiler: {} as never,
    saveContract: async () => {},
    log: pino({ level: 'warn' }),
    now: Date.now,
    rateLimit: { trustedProxies: ['127.0.0.9'], maxClients },
  });
  await s.listen('127.0.0.1', port);
  // the parent asks for a heap figure after a full GC (node --expose-gc) over IPC
  process.on('message', (m) => {
    if (m !== 'mem') return;
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ heapUsed: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss });
  });
  console.log('listening');
}

// ─────────────────────────────────────────────────────────────────────────── client

interface Reply {
  status: number;
  retryAfter?: string;
  error?: string;
  ms: number;
}

function agentFor(localAddress: string, sockets: number): http.Agent {
  return new http.Agent({
    keepAlive: true,
    maxSockets: sockets,
    maxFreeSockets: sockets,
    localAddress,
  } as http.AgentOptions);
}

function send(
  base: URL,
  o: {
    path: string;
    method?: string;
    from?: string;
    agent?: http.Agent | false;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<Reply> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = Buffer.byteLength(o.body);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: o.method ?? 'GET',
        path: o.path,
        localAddress: o.from,
        agent: o.agent ?? false,
        headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let error: string | undefined;
          if (res.statusCode !== 200) {
            try {
              error = JSON.parse(text).error;
            } catch {
              error = text.slice(0, 80);
            }
          }
          resolve({
            status: res.statusCode!,
            retryAfter: res.headers['retry-after'] as string | undefined,
            error,
            ms: performance.now() - t0,
          });
        });
      },
    );
    req.on('error', (e) => resolve({ status: -1, error: e.message, ms: performance.now() - t0 }));
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** Calls `f` every `intervalMs` for `durationMs`, with at most `inflight` outstanding. */
async function paced(durationMs: number, intervalMs: number, inflight: number, f: () => Promise<void>): Promise<void> {
  const start = performance.now();
  const pending = new Set<Promise<void>>();
  for (let i = 0; ; i++) {
    const at = start + i * intervalMs;
    if (at - start >= durationMs) break;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    while (pending.size >= inflight) await Promise.race(pending);
    const p = f().finally(() => pending.delete(p));
    pending.add(p);
  }
  await Promise.all(pending);
}

/** Runs `count` jobs with `concurrency` workers. */
async function pool(count: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

interface Tally {
  sent: number;
  byStatus: Map<number, number>;
  limiter429: number;
  guard429: number;
  retryAfter: Map<string, number>;
  ms: number[];
}
const tally = (): Tally => ({
  sent: 0,
  byStatus: new Map(),
  limiter429: 0,
  guard429: 0,
  retryAfter: new Map(),
  ms: [],
});
function count(t: Tally, r: Reply): void {
  t.sent++;
  t.byStatus.set(r.status, (t.byStatus.get(r.status) ?? 0) + 1);
  t.ms.push(r.ms);
  if (r.status === 429) {
    if (r.error?.startsWith('rate limit')) t.limiter429++;
    else t.guard429++;
    const k = r.retryAfter ?? '(none)';
    t.retryAfter.set(k, (t.retryAfter.get(k) ?? 0) + 1);
  }
}
const statuses = (t: Tally) =>
  [...t.byStatus]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
const retryAfters = (t: Tally) =>
  [...t.retryAfter]
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([s, n]) => `${s}s×${n}`)
    .join(' ') || '–';

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<void> {
  const { values: a } = parseArgs({
    options: {
      serve: { type: 'string' },
      'max-clients': { type: 'string', default: '100000' },
      target: { type: 'string', default: 'standalone' },
      url: { type: 'string' },
      seconds: { type: 'string', default: '20' },
      factor: { type: 'string', default: '10' },
      offenders: { type: 'string', default: '5' },
      'distinct-sockets': { type: 'string', default: '20000' },
      'distinct-forwarded': { type: 'string', default: '300000' },
      'distinct-offenders': { type: 'string', default: '150000' },
    },
  });
  const maxClients = posInt(a['max-clients']!, 'max-clients', 10_000_000);
  if (a.serve) return serve(posInt(a.serve, 'serve', 65535), maxClients);

  const seconds = posInt(a.seconds!, 'seconds', 3600);
  const factor = posInt(a.factor!, 'factor', 1000);
  const offenders = posInt(a.offenders!, 'offenders', 5);
  const distinctSockets = posInt(a['distinct-sockets']!, 'distinct-sockets', 1_000_000, 0);
  const distinctForwarded = posInt(a['distinct-forwarded']!, 'distinct-forwarded', 10_000_000, 0);
  const distinctOffenders = posInt(a['distinct-offenders']!, 'distinct-offenders', 10_000_000, 0);
  const MAX = 240;
  const WINDOW_MS = 10_000;

  // ── the server
  let pid: number;
  let base: URL;
  let child: ChildProcess | undefined;
  let node: SpawnedNode | undefined;
  const standalone = a.target === 'standalone';
  if (standalone) {
    const port = await freePort();
    child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        'bench/ratelimit.ts',
        '--serve',
        String(port),
        '--max-clients',
        String(maxClients),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      },
    );
    await new Promise<void>((res, rej) => {
      child!.stdout!.on('data', (c: Buffer) => c.toString().includes('listening') && res());
      child!.once('exit', () => rej(new Error('standalone server exited')));
    });
    pid = child.pid!;
    base = new URL(`http://127.0.0.1:${port}`);
    console.error(`standalone createHttpServer (src/http) in pid ${pid}, port ${port}`);
  } else if (a.target === 'node') {
    if (a.url) {
      base = new URL(a.url);
      pid = Number(process.env.NODE_PID ?? NaN);
    } else {
      node = await spawnNode({
        devAccounts: 2,
        slotMs: 500,
        mempoolCap: 5000,
        logLevel: 'warn',
        extra: ['--trusted-proxies', '127.0.0.9'],
      });
      await node.ready;
      pid = node.pgid;
      base = new URL(node.httpUrl);
    }
  } else throw new Error('--target is standalone or node');
  await waitReady(base.origin);

  const view = async () => {
    const r = await new Promise<string>((res) =>
      http.get(
        { host: base.hostname, port: base.port, path: '/guard?limit=3', localAddress: '127.0.0.10', agent: false },
        (m) => {
          let t = '';
          m.on('data', (c) => (t += c));
          m.on('end', () => res(t));
        },
      ),
    );
    try {
      return JSON.parse(r);
    } catch {
      return {};
    }
  };
  const rss0 = Number.isNaN(pid) ? NaN : rssMiB(pid);
  const heap0 = child
    ? await new Promise<string>((res) => {
        child!.once('message', (x) =>
          res(`, heap after GC ${fmt((x as { heapUsed: number }).heapUsed / 2 ** 20, 1)} MiB`),
        );
        child!.send('mem');
      })
    : '';

  // ── phase 1: offenders + well-behaved + polite, at the same time
  const durationMs = seconds * 1000;
  const offenderTallies = Array.from({ length: offenders }, tally);
  const good = tally();
  const polite = tally();
  const perOffenderRate = (factor * MAX) / WINDOW_MS; // requests per ms
  console.error(
    `phase 1: ${offenders} offenders × ${factor}× the limit ` +
      `(${(perOffenderRate * 1000).toFixed(0)} req/s each) for ${seconds} s, a well-behaved client at half the ` +
      `limit, a polite client`,
  );
  const t0 = performance.now();
  await Promise.all([
    ...offenderTallies.map((t, i) => {
      const from = `127.0.0.${2 + i}`;
      const agent = agentFor(from, 16);
      return paced(durationMs, 1 / perOffenderRate, 16, async () =>
        count(t, await send(base, { path: '/status', from, agent })),
      );
    }),
    (async () => {
      const agent = agentFor('127.0.0.7', 1);
      await paced(durationMs, (2 * WINDOW_MS) / MAX, 1, async () =>
        count(good, await send(base, { path: '/status', from: '127.0.0.7', agent })),
      );
    })(),
    (async () => {
      // bursts past the limit, then sleeps for Retry-After whenever refused
      const agent = agentFor('127.0.0.8', 4);
      const end = t0 + durationMs;
      while (performance.now() < end) {
        const r = await send(base, { path: '/status', from: '127.0.0.8', agent });
        count(polite, r);
        if (r.status !== 429) continue;
        const wait = Number(r.retryAfter ?? 1) * 1000;
        if (performance.now() + wait >= end) break;
        await sleep(wait);
      }
    })(),
  ]);
  const wall = (performance.now() - t0) / 1000;
  const g1 = await view();

  const rows: [string, string][] = [];
  offenderTallies.forEach((t, i) => {
    rows.push([
      `offender 127.0.0.${2 + i}`,
      `${t.sent} sent (${(t.sent / wall).toFixed(0)}/s): ${statuses(t)}; 429 from limiter ${t.limiter429}, ` +
        `guard ${t.guard429}; Retry-After ${retryAfters(t)}`,
    ]);
  });
  const gs = [...good.ms].sort((x, y) => x - y);
  rows.push([
    'well-behaved 127.0.0.7',
    `${good.sent} sent (${(good.sent / wall).toFixed(1)}/s): ${statuses(good)}; latency ` +
      `p50 ${fmt(pct(gs, 0.5), 2)} ms, p99 ${fmt(pct(gs, 0.99), 2)} ms, max ${fmt(gs[gs.length - 1], 2)} ms`,
  ]);
  rows.push([
    'polite 127.0.0.8',
    `${polite.sent} sent: ${statuses(polite)}; 429 limiter ${polite.limiter429}, guard ${polite.guard429}; ` +
      `Retry-After ${retryAfters(polite)}`,
  ]);
  rows.push([
    'guard after phase 1',
    `active blocks ${g1.activeBlocks ?? '?'}, blocks imposed ${g1.blocksTotal ?? '?'}, rate-limited ` +
      `total ${g1.rateLimit?.limitedTotal ?? '?'}`,
  ]);
  for (const b of g1.blocks ?? [])
    rows.push([
      '  block',
      `${b.client} level ${b.level} remaining ${(b.remainingMs / 1000).toFixed(1)} s ` +
        `offences ${JSON.stringify(b.offences)}`,
    ]);
  printTable(`Phase 1 (${wall.toFixed(1)} s, limit ${MAX} per ${WINDOW_MS} ms per client)`, rows);
  const limitedAny = offenderTallies.some((t) => t.limiter429 + t.guard429 > 0);
  if (!limitedAny) console.log('\nNO request was limited: this server has no rate limit wired (see --target).');

  // ── phase 2: memory with many distinct clients
  const mem: [string, string][] = [];
  const heap = async (): Promise<string> => {
    if (!child) return '';
    const m = await new Promise<{ heapUsed: number }>((res) => {
      child!.once('message', (x) => res(x as { heapUsed: number }));
      child!.send('mem');
    });
    return `, heap after GC ${fmt(m.heapUsed / 2 ** 20, 1)} MiB`;
  };
  const snap = async (label: string) => {
    const g = await view();
    mem.push([
      label,
      `RSS ${fmt(rssMiB(pid), 1)} MiB${await heap()}; limiter table ${g.rateLimit?.trackedClients ?? '?'} ` +
        `/ ${g.rateLimit?.maxClients ?? '?'} (evicted ${g.rateLimit?.evictedTotal ?? '?'}); guard ` +
        `table ${g.trackedClients ?? '?'} / ${g.maxClients ?? '?'} (evicted ${g.evictedTotal ?? '?'})`,
    ]);
  };
  if (!Number.isNaN(pid)) {
    mem.push(['before phase 1 (idle server)', `RSS ${fmt(rss0, 1)} MiB${heap0}`]);
    await snap('after phase 1');
    if (distinctSockets > 0) {
      const t = performance.now();
      let fails = 0;
      await pool(distinctSockets, 64, async (i) => {
        const from = `127.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
        const r = await send(base, { path: '/status', from });
        if (r.status !== 200) fails++;
      });
      await snap(
        `+${distinctSockets} distinct socket addresses ` +
          `(${((performance.now() - t) / 1000).toFixed(1)} s, ${fails} not 200)`,
      );
    }
    if ((standalone || node) && distinctForwarded > 0) {
      const agent = agentFor('127.0.0.9', 64);
      for (const half of [1, 2]) {
        const n = Math.floor(distinctForwarded / 2);
        const t = performance.now();
        await pool(n, 64, async (i) => {
          const k = (half - 1) * n + i;
          await send(base, {
            path: '/status',
            from: '127.0.0.9',
            agent,
            headers: { 'x-forwarded-for': `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}` },
          });
        });
        await snap(`+${n} distinct forwarded clients (${half}/2, ${((performance.now() - t) / 1000).toFixed(1)} s)`);
      }
      const n = distinctOffenders;
      const t = performance.now();
      await pool(n, 64, async (i) => {
        await send(base, {
          path: '/tx',
          method: 'POST',
          from: '127.0.0.9',
          agent,
          body: '{"bad":',
          headers: { 'x-forwarded-for': `11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
        });
      });
      await snap(
        `+${n} distinct forwarded offenders, one malformed POST /tx each ` +
          `(${((performance.now() - t) / 1000).toFixed(1)} s)`,
      );
      agent.destroy();
    }
    printTable('Phase 2: bounded memory', mem);
  }

  if (child) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  if (node) await node.stop(false);
}

main().then(
  () => {
    if (!process.argv.includes('--serve')) process.exit(0); // the --serve child keeps serving until SIGTERM
  },
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
