import type { ChildProcess } from 'node:child_process';
import { spawnOwned } from './processes';
import { waitUntil } from './wait';
import { openSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { freePortRun, tempDir } from './testNode';
import { keepLogs } from './scratch';

/**
 * A `cairn devnet` in its own process (which runs each node as a process of its own), for
 * multi-node tests on loopback ports: kill and restart nodes, read their HTTP APIs, and
 * record every finalized block every node reports, so a test can check none ever changes.
 */
/** Polls `f` until it gives a value (errors count as not yet); fails naming `what` after `ms`. */
/** waitUntil for a devnet: a read that fails (a node being killed or restarted) counts as not yet. */
/**
 * A GET to a node under test. A connection the server reset while the client reused it (a kept-alive socket closing
 * as the request left, seen once on a loaded CI machine) is retried once on a new one; a node that is down still
 * fails (ECONNREFUSED), and so does anything the node answered.
 */
export async function nodeGet(url: string, timeoutMs = 5_000): Promise<Response> {
  try {
    return await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw e;
    return fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  }
}

export const until = <T>(f: () => Promise<T | undefined | false>, ms = 30_000, what = 'condition'): Promise<T> =>
  waitUntil(() => f().catch(() => undefined), ms, 100, what);

export interface DevnetNode {
  index: number;
  pid: number;
  http: string;
  dataDir: string;
  validator: string;
  command: string[];
}

export interface Devnet {
  dir: string;
  nodes: DevnetNode[];
  accounts: { address: string; native: string; secret: string }[];
  get(i: number, path: string): Promise<any>;
  post(i: number, path: string, body: unknown): Promise<any>;
  alive(i: number): boolean;
  kill(i: number): Promise<void>;
  /** Starts node i again with its command, and `extra` flags after it (a later flag wins). */
  restart(i: number, extra?: string[]): Promise<void>;
  /** Every finalized height → hash seen on any node; throws if two nodes (or one over time) disagree. */
  finalized: Map<number, string>;
  stop(): Promise<void>;
}

/**
 * `params`: governable parameters of the genesis (`cairn devnet --params`), e.g. 'JAIL_MISSED_ROUNDS=2'; `history`,
 * `historyNodes`, `snapshotInterval`: the devnet flags of the same names.
 */
export async function startDevnet(
  n: number,
  opts: {
    slotMs?: number;
    idleBlockMs?: number;
    params?: string;
    history?: number;
    historyNodes?: number[];
    snapshotInterval?: number;
  } = {},
): Promise<Devnet> {
  const dir = await tempDir('cairn-devnet-');
  const httpBase = await freePortRun(n);
  const rpcBase = await freePortRun(n);
  const p2pBase = await freePortRun(n);
  const proc = spawnOwned(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'devnet',
      '--validators',
      String(n),
      '--dir',
      dir,
      '--http-base-port',
      String(httpBase),
      '--rpc-base-port',
      String(rpcBase),
      '--p2p-base-port',
      String(p2pBase),
      '--slot-ms',
      String(opts.slotMs ?? 200),
      '--idle-block-ms',
      String(opts.idleBlockMs ?? 800),
      '--dev-accounts',
      '4',
      '--log-level',
      'info',
      ...(opts.params ? ['--params', opts.params] : []),
      ...(opts.history !== undefined ? ['--history', String(opts.history)] : []),
      ...(opts.historyNodes ? ['--history-nodes', opts.historyNodes.join(',')] : []),
      ...(opts.snapshotInterval !== undefined ? ['--snapshot-interval', String(opts.snapshotInterval)] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let nodes: DevnetNode[];
  let accountsFile: string;
  try {
    ({ nodes, accounts: accountsFile } = await started());
  } catch (e) {
    // A devnet that did not start leaves nothing behind but its logs, under test-artifacts/.
    proc.kill('SIGKILL');
    await exited;
    keepLogs(dir, 'devnet-start');
    await rm(dir, { recursive: true, force: true });
    throw e;
  }

  /** The devnet's nodes once each answers. */
  async function started(): Promise<{ nodes: DevnetNode[]; accounts: string }> {
    const deadline = Date.now() + 60_000;
    let info: { nodes: DevnetNode[]; accounts: string } | undefined;
    while (!info) {
      if (proc.exitCode !== null) throw new Error(`devnet exited:\n${out}`);
      info = await readFile(join(dir, 'devnet.json'), 'utf8').then(
        (t) => JSON.parse(t),
        () => undefined, // not written yet
      );
      if (Date.now() > deadline) throw new Error(`devnet did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const nodes = info.nodes;
    for (const node of nodes) {
      for (;;) {
        if (Date.now() > deadline)
          throw new Error(
            `node ${node.index} did not ` +
              `start:\n${await readFile(join(node.dataDir, 'node.log'), 'utf8').catch(() => '')}`,
          );
        const ok = await fetch(`${node.http}/status`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return info;
  }

  const restarted = new Map<number, ChildProcess>();
  const dead = new Set<number>();
  const get = async (i: number, path: string): Promise<any> => (await nodeGet(`${nodes[i].http}${path}`)).json();
  const post = async (i: number, path: string, body: unknown): Promise<any> => {
    const r = await fetch(`${nodes[i].http}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return r.json();
  };

  // The finality recorder: every 200 ms, each live node's newly finalized heights and their hashes.
  const finalized = new Map<number, string>();
  const seen = nodes.map(() => 0);
  let failure: Error | undefined;
  let recording = true;
  const record = async () => {
    while (recording) {
      for (const node of nodes) {
        if (dead.has(node.index)) continue;
        try {
          const s = await get(node.index, '/status');
          for (let h = seen[node.index] + 1; h <= s.finalizedHeight; h++) {
            const b = await get(node.index, `/blocks/${h}`);
            const hash = b.hash ?? b.header?.hash;
            // No block in the answer: a restarted node far behind answers its reads 503 while it
            // syncs (its /status is served meanwhile), or 429; read this height again next round.
            if (typeof hash !== 'string') break;
            const before = finalized.get(h);
            if (before !== undefined && before !== hash)
              failure ??= new Error(`finalized block ${h} differs: ${before} vs ${hash} on node ${node.index}`);
            finalized.set(h, hash);
            seen[node.index] = h;
          }
        } catch {
          /* a node being killed or restarted */
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const recorder = record();

  return {
    dir,
    nodes,
    finalized,
    accounts: JSON.parse(await readFile(accountsFile, 'utf8')),
    get,
    post,
    alive: (i) => !dead.has(i),
    async kill(i) {
      dead.add(i);
      const child = restarted.get(i);
      if (child) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await gone;
      } else {
        process.kill(nodes[i].pid, 'SIGKILL');
        for (let k = 0; k < 100; k++) {
          try {
            process.kill(nodes[i].pid, 0);
          } catch {
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
    async restart(i, extra = []) {
      const [cmd, ...args] = nodes[i].command;
      const log = openSync(join(nodes[i].dataDir, 'node.log'), 'a');
      restarted.set(i, spawnOwned(cmd, [...args, ...extra], { stdio: ['ignore', log, log] }));
      for (let k = 0; k < 300; k++) {
        if (
          await fetch(`${nodes[i].http}/status`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 100));
      }
      dead.delete(i);
    },
    async stop() {
      recording = false;
      await recorder;
      for (const c of restarted.values()) c.kill('SIGTERM');
      proc.kill('SIGTERM');
      await exited;
      for (const node of nodes) {
        try {
          process.kill(node.pid, 'SIGKILL'); // a node the devnet lost track of
        } catch {
          /* gone */
        }
      }
      if (failure) keepLogs(dir, 'devnet'); // the nodes' logs of a broken safety invariant, for its post-mortem
      await rm(dir, { recursive: true, force: true });
      if (failure) throw failure;
    },
  };
}
