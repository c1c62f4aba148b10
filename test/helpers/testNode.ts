import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultNodeConfig, type NodeConfig } from '../../src/config/config';
import { startNode, type RunningNode } from '../../src/node/node';
import type { Network } from '../../src/protocol/network';

/**
 * A free loopback port. uWS listens with SO_REUSEPORT, so two servers given the same port
 * both bind and the kernel splits connections between them: a port released by a probe and
 * picked again by another test process would silently cross-wire two nodes. So each test
 * process takes ports from its own range (by pid, below the ephemeral range), never hands
 * out the same port twice, and still probes to skip ports something else holds.
 */
let nextPort = 10_000 + (process.pid % 500) * 40;
/** Ports fetch() refuses ("bad port", the Fetch standard's list) that fall in these ranges. */
const FETCH_BLOCKED = new Set([10_080]);
const rangeEnd = nextPort + 40;
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
export async function freePort(): Promise<number> {
  while (nextPort < rangeEnd) {
    const p = nextPort++;
    if (!FETCH_BLOCKED.has(p) && (await probe(p))) return p;
  }
  // Range exhausted (a long test run): fall back to an OS-assigned port.
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** `n` consecutive free ports from this process's range (a devnet's base+i ports). */
export async function freePortRun(n: number): Promise<number> {
  for (;;) {
    if (nextPort + n > rangeEnd) throw new Error('test port range exhausted');
    const base = nextPort;
    let ok = true;
    for (let i = 0; i < n; i++) if (FETCH_BLOCKED.has(base + i) || !(await probe(base + i))) ok = false;
    nextPort = base + (ok ? n : 1);
    if (ok) return base;
  }
}

export const tempDir = (prefix = 'cairn-test-') => mkdtemp(join(tmpdir(), prefix));

export interface TestNode {
  node: RunningNode;
  url: string;
  dataDir: string;
  /** The node's chain (GET /status): what transactions for it sign. */
  network: Network;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
  cleanup(): Promise<void>;
}

/** Starts a real node (RocksDB on disk, real HTTP on a loopback port) in this process. */
export async function startTestNode(overrides: Partial<NodeConfig> = {}): Promise<TestNode> {
  const dataDir = overrides.dataDir ?? (await tempDir());
  const config: NodeConfig = {
    ...defaultNodeConfig,
    dataDir,
    httpPort: await freePort(),
    rpcPort: await freePort(),
    slotMs: 100,
    idleBlockMs: 1000,
    // Tests drive the node hard from loopback: exempt it from the rate limit and the guard.
    logLevel: 'silent',
    verifyWorkers: 1,
    rateLimitExempt: ['127.0.0.0/8', '::1'],
    ...overrides,
  };
  const node = await startNode(config);
  const url = `http://127.0.0.1:${config.httpPort}`;
  const parse = async (r: Response) => {
    const text = await r.text();
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  const s = (await (await fetch(`${url}/status`)).json()) as Network;
  return {
    node,
    url,
    dataDir,
    network: { chainId: s.chainId, genesisHash: s.genesisHash },
    async get(path, headers = {}) {
      const r = await fetch(url + path, { headers });
      return { status: r.status, body: await parse(r), headers: r.headers };
    },
    async post(path, body) {
      const r = await fetch(url + path, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      return { status: r.status, body: await parse(r) };
    },
    stop: () => node.stop(),
    async cleanup() {
      await node.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export { waitUntil } from './wait';
