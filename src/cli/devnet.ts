import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { devAccountFile, devNetworkGenesis } from '../chain/devnet';
import { canonicalJson } from '../primitives/canonical';
import { EXIT, json, parse, parseNonNegInt, str, usage, type CliIo } from './common';

/**
 * `cairn devnet --validators N`: N validator nodes, each its own process with its own data
 * directory, all peered, from one genesis whose validators are those N (keys derived from
 * the published development seed). Runs until SIGINT/SIGTERM, then stops every node cleanly.
 */
export const DEVNET_HELP =
  `Usage: cairn devnet [--validators <n>] [--dir <path>] ` +
  `[--http-base-port <p>] [--rpc-base-port <p>] [--p2p-base-port <p>]
                    [--slot-ms <ms>] [--idle-block-ms <ms>] [--dev-accounts <n>] [--log-level <l>]
                    [--params NAME=VALUE,...] [--history <n|archive>] [--history-nodes <i,j,...>]
                    [--snapshot-interval <n>]

Starts a local network of validator nodes: node i listens on HTTP base+i, RPC base+i and
peer-to-peer (libp2p) base+i,
keeps its data in <dir>/node<i> (log: <dir>/node<i>/node.log) and peers with every other
node. All share <dir>/genesis.json, whose validators are the N nodes' keys (derived from
the published development seed: never use them on a real network), with the development
accounts (<dir>/dev-accounts.json) and short windows. Writes <dir>/devnet.json:
  {nodes: [{index, pid, http, rpc, p2p, dataDir, validator, command}], accounts}
("command" restarts a node the same way). Prints the URLs; runs until SIGINT or SIGTERM,
then stops every node cleanly. $ADMIN_TOKEN applies to every node. Restarting on the same
--dir resumes the same chain.

  --validators <n>      1 to 21 (default 4)
  --dir <path>          default ./devnet
  --http-base-port <p>  default 6170
  --rpc-base-port <p>   default 7170
  --p2p-base-port <p>   default 30333
  --slot-ms <ms>        default 500 (every node the same)
  --idle-block-ms <ms>  default 2000
  --dev-accounts <n>    default 10
  --log-level <l>       the nodes' log level (default info)
  --params <list>       governable parameters of the genesis, e.g. JAIL_MISSED_ROUNDS=2,EPOCH_BLOCKS=20
                        (names and ranges: cairn genesis --help)
  --history <n|archive> the nodes' block history (cairn node --history; default: a --genesis node's)
  --history-nodes <list>  the nodes --history applies to, e.g. 0,1 (default: every node)
  --snapshot-interval <n> every Nth final block's state is served to joining nodes (cairn node --snapshot-interval)

Example:
  ADMIN_TOKEN=$(openssl rand -hex 32) cairn devnet --validators 4 --dir ./devnet`;

const OPTIONS = {
  validators: { type: 'string' },
  dir: { type: 'string' },
  'http-base-port': { type: 'string' },
  'rpc-base-port': { type: 'string' },
  'p2p-base-port': { type: 'string' },
  'slot-ms': { type: 'string' },
  'idle-block-ms': { type: 'string' },
  'dev-accounts': { type: 'string' },
  'log-level': { type: 'string' },
  params: { type: 'string' },
  history: { type: 'string' },
  'history-nodes': { type: 'string' },
  'snapshot-interval': { type: 'string' },
} as const;

function intFlag(values: Record<string, unknown>, name: string, def: number, min: number, max: number): number {
  const raw = str(values[name] as string | undefined);
  if (raw === undefined) return def;
  const n = parseNonNegInt(`--${name}`, raw);
  if (n < min || n > max) usage(`--${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

export async function cmdDevnet(args: string[], io: CliIo): Promise<number> {
  const { values } = parse('devnet', args, OPTIONS, 0);
  if (values.help) return (io.out(DEVNET_HELP), EXIT.OK);
  const n = intFlag(values, 'validators', 4, 1, 21);
  const dir = resolve(str(values.dir) ?? './devnet');
  const httpBase = intFlag(values, 'http-base-port', 6170, 1, 65535 - n);
  const rpcBase = intFlag(values, 'rpc-base-port', 7170, 1, 65535 - n);
  const p2pBase = intFlag(values, 'p2p-base-port', 30333, 1, 65535 - n);
  const slotMs = intFlag(values, 'slot-ms', 500, 50, 1000);
  const idleMs = intFlag(values, 'idle-block-ms', 2000, slotMs, 3_600_000);
  const accounts = intFlag(values, 'dev-accounts', 10, 0, 1000);
  const logLevel = str(values['log-level']) ?? 'info';
  const overlap = (a: number, b: number) => a + n > b && b + n > a;
  if (overlap(httpBase, rpcBase) || overlap(httpBase, p2pBase) || overlap(rpcBase, p2pBase))
    usage('the HTTP, RPC and peer-to-peer port ranges overlap');
  const history = str(values.history);
  if (history !== undefined && history !== 'archive' && !/^\d+$/.test(history))
    usage(`--history takes a number of blocks or archive, got "${history}"`);
  const historyNodes = (str(values['history-nodes']) ?? '')
    .split(',')
    .filter(Boolean)
    .map((x) => parseNonNegInt('--history-nodes', x.trim()));
  const snapshotInterval = str(values['snapshot-interval']);
  if (snapshotInterval !== undefined) parseNonNegInt('--snapshot-interval', snapshotInterval);
  /** The flags of node i beyond the common ones. */
  const nodeFlags = (i: number): string[] => [
    ...(history !== undefined && (historyNodes.length === 0 || historyNodes.includes(i)) ? ['--history', history] : []),
    ...(snapshotInterval !== undefined ? ['--snapshot-interval', snapshotInterval] : []),
  ];

  const params: Record<string, string> = {};
  for (const kv of (str(values.params) ?? '').split(',').filter(Boolean)) {
    const m = /^([A-Z0-9_]+)=(.+)$/.exec(kv.trim());
    if (!m) usage(`--params takes NAME=VALUE,..., got "${kv}"`);
    params[m![1]] = m![2];
  }
  let network: ReturnType<typeof devNetworkGenesis>;
  try {
    network = devNetworkGenesis(accounts, n, undefined, params);
  } catch (e) {
    return usage(`--params: ${(e as Error).message}`);
  }
  const { spec, validators, accounts: devAccounts } = network;
  await mkdir(dir, { recursive: true });
  const genesisFile = join(dir, 'genesis.json');
  const existing = await readFile(genesisFile, 'utf8').catch(() => undefined);
  if (existing !== undefined && canonicalJson(JSON.parse(existing)) !== canonicalJson(spec)) {
    usage(
      `${genesisFile} holds another network (other validators or accounts): use another --dir, or the same ` +
        `--validators and --dev-accounts`,
    );
  }
  await writeFile(genesisFile, `${JSON.stringify(spec, null, 2)}\n`);
  const accountsFile = join(dir, 'dev-accounts.json');
  await writeFile(accountsFile, `${JSON.stringify(devAccounts, null, 2)}\n`, { mode: 0o600 });
  await writeFile(join(dir, 'dev-validators.json'), `${JSON.stringify(validators.map(devAccountFile), null, 2)}\n`, {
    mode: 0o600,
  });

  const urls = Array.from({ length: n }, (_, i) => `http://127.0.0.1:${httpBase + i}`);
  // The CLI as this process runs it (with its loader flags, e.g. tsx in development).
  const self = [...process.execArgv, process.argv[1]];
  const nodes: {
    index: number;
    pid: number;
    http: string;
    rpc: string;
    p2p: string;
    dataDir: string;
    validator: string;
    command: string[];
  }[] = [];
  const children: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    const dataDir = join(dir, `node${i}`);
    await mkdir(dataDir, { recursive: true });
    const keyFile = join(dataDir, 'validator.json');
    await writeFile(keyFile, `${JSON.stringify([devAccountFile(validators[i])], null, 2)}\n`, { mode: 0o600 });
    const command = [
      process.execPath,
      ...self,
      'node',
      '--data-dir',
      dataDir,
      '--http-port',
      String(httpBase + i),
      '--rpc-port',
      String(rpcBase + i),
      '--listen',
      `/ip4/127.0.0.1/tcp/${p2pBase + i}`,
      '--genesis',
      genesisFile,
      '--allow-dev-validator',
      '--validator-key',
      keyFile,
      '--peers',
      urls.filter((_, j) => j !== i).join(','),
      '--slot-ms',
      String(slotMs),
      '--idle-block-ms',
      String(idleMs),
      '--log-level',
      logLevel,
      // The nodes share the loopback address: peers' polls and gossip must not be rate-limited.
      '--rate-limit-exempt',
      '127.0.0.0/8,::1',
      ...nodeFlags(i),
    ];
    const log = openSync(join(dataDir, 'node.log'), 'a');
    const child = spawn(command[0], command.slice(1), { stdio: ['ignore', log, log], env: process.env });
    children.push(child);
    child.on('exit', (code, signal) => io.err(`node ${i} exited (${signal ?? code})`));
    nodes.push({
      index: i,
      pid: child.pid!,
      http: urls[i],
      rpc: `http://127.0.0.1:${rpcBase + i}`,
      p2p: `/ip4/127.0.0.1/tcp/${p2pBase + i}`,
      dataDir,
      validator: validators[i].address,
      command,
    });
  }
  // Written whole, then renamed: a program polling for the file never reads half of it.
  await writeFile(join(dir, 'devnet.json.tmp'), `${json({ nodes, accounts: accountsFile })}\n`);
  await rename(join(dir, 'devnet.json.tmp'), join(dir, 'devnet.json'));
  io.out(
    json({
      nodes: nodes.map(({ index, http, rpc, validator }) => ({ index, http, rpc, validator })),
      accounts: accountsFile,
      devnet: join(dir, 'devnet.json'),
    }),
  );

  return new Promise<number>((done) => {
    const stop = async (signal: NodeJS.Signals) => {
      io.err(`${signal}: stopping ${n} nodes`);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const exits = children.map((c) =>
        c.exitCode !== null || c.signalCode !== null
          ? Promise.resolve()
          : new Promise<void>((r) => c.once('exit', () => r())),
      );
      for (const c of children) c.kill('SIGTERM');
      const timer = setTimeout(() => {
        for (const c of children) c.kill('SIGKILL');
      }, 20_000);
      await Promise.all(exits);
      clearTimeout(timer);
      done(EXIT.OK);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
