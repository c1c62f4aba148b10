/**
 * HTTP load from wrk (Debian's package, installed on demand): the load generator a new user
 * would reach for, in C, so that it takes less of the 2 cores than the server it measures.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function ensureWrk(): string {
  for (const p of ['/usr/bin/wrk', '/usr/local/bin/wrk']) if (existsSync(p)) return p;
  if (process.getuid?.() === 0) {
    console.error('installing wrk (Debian package) for the HTTP benchmarks…');
    const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'wrk'], { stdio: 'ignore' });
    if (r.status !== 0)
      spawnSync('sh', ['-c', 'apt-get update && apt-get install -y --no-install-recommends wrk'], { stdio: 'ignore' });
    if (existsSync('/usr/bin/wrk')) return '/usr/bin/wrk';
  }
  throw new Error('wrk is needed for the HTTP benchmarks: apt-get install wrk');
}

export interface WrkResult {
  rps: number;
  /** Requests completed in the run. */
  requests: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
  errors: number;
}

const ms = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

/** One wrk run: `threads` threads, `connections` keep-alive connections, `seconds` long. */
export function wrk(
  url: string,
  /** `script`: a wrk Lua script (e.g. one cycling through paths). */
  opts: { threads: number; connections: number; seconds: number; headers?: Record<string, string>; script?: string },
): WrkResult {
  const args = ['-t', String(opts.threads), '-c', String(opts.connections), '-d', `${opts.seconds}s`, '--latency'];
  if (opts.script) args.push('-s', opts.script);
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  const out = execFileSync(ensureWrk(), [...args, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const lat = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? ms(m[1], m[2]) : NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  return { rps, requests, p50ms: lat('50'), p99ms: lat('99'), non2xx, errors };
}
