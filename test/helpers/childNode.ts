import type { ChildProcess } from 'node:child_process';
import { spawnOwned } from './processes';
import type { Network } from '../../src/protocol/network';
import { freePort } from './testNode';

/** A node in its own process (`cairn node`), for tests that kill it. */
export interface ChildNode {
  proc: ChildProcess;
  url: string;
  port: number;
  /** The node's chain (GET /status): what transactions for it sign. */
  network: Network;
  output(): string;
  /** Resolves with the exit code when the process ends (by itself or killed). */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export async function spawnNode(dataDir: string, extra: string[] = [], port?: number): Promise<ChildNode> {
  const p = port ?? (await freePort());
  // A free JSON-RPC port too, unless given: test files run in parallel and 7070 may be taken.
  const rpc = extra.includes('--rpc-port') ? [] : ['--rpc-port', String(await freePort())];
  const proc = spawnOwned(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'node',
      '--data-dir',
      dataDir,
      '--http-port',
      String(p),
      '--log-level',
      'warn',
      '--rate-limit-exempt',
      '127.0.0.0/8,::1',
      ...rpc,
      ...extra,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${p}`;
  const deadline = Date.now() + 30_000;
  let network: Network;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`node exited early (${proc.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${url}/status`);
      if (r.ok) {
        const s = (await r.json()) as Network;
        network = { chainId: s.chainId, genesisHash: s.genesisHash };
        break;
      }
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`node did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    proc,
    url,
    port: p,
    network,
    output: () => out,
    exited,
    async kill(signal) {
      proc.kill(signal);
      return exited;
    },
  };
}
