/**
 * What every attack test shares: a real node process on its own ports that rate-limits and
 * guards loopback like any other client, requests sent from a chosen loopback address
 * (Linux routes all of 127.0.0.0/8 to loopback, and the node sees each address as its own
 * client), and an honest client that measures what the attack costs it (GET /status
 * latency, how late blocks come).
 */
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from '../../src/primitives/hex';
import type { Network } from '../../src/protocol/network';
import { spawnNode, type ChildNode } from '../helpers/childNode';
import { freePort } from '../helpers/testNode';

/** The attacker's and the honest client's source addresses. */
export const ATTACKER = '127.0.0.66';
export const HONEST = '127.0.0.10';

const ADMIN_TOKEN = 'adversarial-tests-admin-token-0123456789';

export interface Target extends ChildNode {
  rpcUrl: string;
  dataDir: string;
  /** The chain this node runs (GET /status): what a transaction for it signs. */
  network: Network;
  /** The admin token (`--dev` needs one): send it as the `x-admin-token` header. */
  adminToken: string;
  /** Kills the process and removes its data directory. */
  cleanup(): Promise<void>;
}

/**
 * A `cairn node` process (`--dev` unless `dev: false`) where no loopback address is exempt
 * from the rate limit or the guard (TEST-NET-1 stands in for the exemption list).
 */
export async function spawnTarget(extra: string[] = [], opts: { dev?: boolean } = {}): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-adv-'));
  const rpcPort = await freePort();
  try {
    // The token from an owner-only file: a secret on the command line is refused (every user reads it with ps).
    const tokenFile = join(dataDir, 'admin-token');
    await writeFile(tokenFile, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
    const node = await spawnNode(dataDir, [
      ...(opts.dev === false ? [] : ['--dev']),
      '--admin-token-file',
      tokenFile,
      '--rpc-port',
      String(rpcPort),
      '--rate-limit-exempt',
      '192.0.2.1',
      ...extra,
    ]);
    return {
      ...node,
      network: await networkOf(node.url),
      rpcUrl: `http://127.0.0.1:${rpcPort}`,
      dataDir,
      adminToken: ADMIN_TOKEN,
      async cleanup() {
        if (node.proc.exitCode === null) await node.kill('SIGKILL');
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

/** One HTTP request from source address `from`, on a connection of its own. */
export function requestFrom(
  from: string,
  url: string,
  opts: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const u = new URL(url);
  const body =
    opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string | number> = { ...opts.headers };
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        localAddress: from,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(opts.timeoutMs ?? 30_000, () =>
      req.destroy(new Error(`${opts.method ?? 'GET'} ${url}: no answer within ${opts.timeoutMs ?? 30_000} ms`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The chain a node runs, from its GET /status (asked from the honest client's address). */
export async function networkOf(url: string): Promise<Network> {
  const s = (await requestFrom(HONEST, `${url}/status`)).json as { chainId: number; genesisHash: Hex };
  return { chainId: s.chainId, genesisHash: s.genesisHash };
}

/** A JSON-RPC call from `from`; resolves with the whole reply (result or error). */
export async function rpcFrom(from: string, rpcUrl: string, method: string, params: unknown[] = []): Promise<any> {
  const r = await requestFrom(from, rpcUrl, { body: { jsonrpc: '2.0', id: 1, method, params } });
  return r.json;
}

export { waitFor } from '../helpers/wait';

export const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

export interface HonestReport {
  /** GET /status round trips (ms). */
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests that failed or answered other than 200. */
  failures: number;
  /** Blocks seen while probing and the largest gap between consecutive ones' timestamps (ms; genesis excluded). */
  blocks: number;
  maxBlockGapMs: number;
}

/**
 * An honest client on `from` asking GET /status one request after another (as a dashboard
 * or a wallet polling does, `intervalMs` apart) until stopped; it also follows the head to
 * see whether blocks keep their slots. 50 ms apart by default: 20 requests a second stay
 * under the rate limit (240 per 10 s), as an honest client's do.
 */
export function honestClient(
  url: string,
  from = HONEST,
  intervalMs = 50,
): { stop(): Promise<HonestReport>; maxBlockGapMs(): number } {
  const lat: number[] = [];
  let failures = 0;
  const stamps = new Map<number, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const r = await requestFrom(from, `${url}/status`, { timeoutMs: 60_000 });
        lat.push(performance.now() - t);
        if (r.status !== 200) failures++;
        else if (typeof r.json?.height === 'number' && typeof r.json?.timestamp === 'number')
          stamps.set(r.json.height, r.json.timestamp);
      } catch {
        failures++;
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  /** The largest gap between consecutive blocks seen so far (0 until two consecutive ones were seen). */
  const maxBlockGapMs = () => {
    let maxGap = 0;
    for (const [h, ts] of stamps) {
      const prev = stamps.get(h - 1);
      if (prev !== undefined && h - 1 > 0) maxGap = Math.max(maxGap, ts - prev);
    }
    return maxGap;
  };
  return {
    maxBlockGapMs,
    async stop() {
      running = false;
      await loop;
      return {
        requests: lat.length,
        p50: percentile(lat, 50),
        p99: percentile(lat, 99),
        max: Math.max(0, ...lat),
        failures,
        blocks: stamps.size,
        maxBlockGapMs: maxBlockGapMs(),
      };
    },
  };
}
