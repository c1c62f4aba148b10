/**
 * A Hardhat node as the reference of bench/hardhat.ts: Hardhat (pinned) installed on demand
 * from the npm registry into a cache dir outside the repo (~/.cache/cairn-bench/hardhat-<version>,
 * or under $CAIRN_BENCH_CACHE), with a minimal hardhat.config.js, and `hardhat node` started
 * in its own process group on a free loopback port.
 *
 * The node is given its best case: request logging off (`loggingEnabled: false`; `hardhat
 * node` logs every call by default) and its stdout discarded. Automine (the default): each
 * eth_sendRawTransaction answers once its transaction is mined in a block of its own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort, sleep, stopProcessGroup } from './harness';

/** Hardhat 2.x whose `hardhat node` runs on Node 20 (EDR, its Rust runtime, comes as an npm package). */
export const HARDHAT_VERSION = '2.29.1';
export const HARDHAT_CHAIN_ID = 31337;

const CONFIG = `// written by cairn bench/lib/hardhat.ts
module.exports = {
  networks: {
    hardhat: {
      chainId: ${HARDHAT_CHAIN_ID},
      loggingEnabled: false,
      mining: { auto: true },
    },
  },
};
`;

export const hardhatDir = (version = HARDHAT_VERSION) =>
  join(process.env.CAIRN_BENCH_CACHE ?? join(homedir(), '.cache', 'cairn-bench'), `hardhat-${version}`);

const packageVersion = (dir: string, pkg: string): string | null => {
  try {
    return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return null;
  }
};
const installedVersion = (dir: string) => packageVersion(dir, 'hardhat');

/**
 * The cache dir with `hardhat@version` installed (npm install into a temp dir beside it,
 * then renamed into place: an interrupted install leaves nothing half-done behind).
 */
export function ensureHardhat(version = HARDHAT_VERSION): string {
  const dir = hardhatDir(version);
  if (installedVersion(dir) === version) {
    writeFileSync(join(dir, 'hardhat.config.js'), CONFIG);
    return dir;
  }
  const tmp = `${dir}.installing-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const pkg = { name: 'cairn-bench-hardhat', private: true, description: 'Hardhat for cairn bench/hardhat.ts' };
  writeFileSync(join(tmp, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  console.error(`installing hardhat@${version} from the npm registry into ${dir} (once)…`);
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel', 'error', `hardhat@${version}`], {
    cwd: tmp,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0 || installedVersion(tmp) !== version) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`npm install hardhat@${version} failed (exit ${r.status ?? r.error?.message})`);
  }
  writeFileSync(join(tmp, 'hardhat.config.js'), CONFIG);
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(tmp, dir);
  } catch (e) {
    // Another bench installed it meanwhile: use theirs.
    rmSync(tmp, { recursive: true, force: true });
    if (installedVersion(dir) !== version) throw e;
  }
  return dir;
}

export interface HardhatNode {
  url: string;
  pgid: number;
  /** web3_clientVersion, e.g. HardhatNetwork/2.29.1/@nomicfoundation/edr/0.3.8 (a stale EDR number) */
  clientVersion: string;
  /** The installed @nomicfoundation/edr package (Hardhat's Rust runtime), e.g. 0.12.0-next.23. */
  edrVersion: string | null;
  stop(): Promise<void>;
}

/** `hardhat node` on a free loopback port, in its own process group; resolves once it answers JSON-RPC. */
export async function startHardhat(dir = ensureHardhat()): Promise<HardhatNode> {
  const port = await freePort();
  const bin = join(dir, 'node_modules/hardhat/internal/cli/bootstrap.js');
  if (!existsSync(bin)) throw new Error(`no Hardhat at ${bin}`);
  const child = spawn(process.execPath, [bin, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NODE_OPTIONS: '' },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  let exited: number | null | undefined;
  child.once('exit', (c) => (exited = c));
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopProcessGroup(child.pid!, 10_000);
  const until = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined) throw new Error(`hardhat node exited (${exited}) before serving:\n${stderr}`);
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion","params":[]}',
      });
      if (r.ok) {
        const clientVersion = ((await r.json()) as { result: string }).result;
        console.error(`hardhat node: ${clientVersion} at ${url} (pid ${child.pid})`);
        return { url, pgid: child.pid!, clientVersion, edrVersion: packageVersion(dir, '@nomicfoundation/edr'), stop };
      }
    } catch {
      /* not yet */
    }
    if (Date.now() > until) {
      await stop();
      throw new Error(`hardhat node at ${url} not ready after 60 s:\n${stderr}`);
    }
    await sleep(150);
  }
}
