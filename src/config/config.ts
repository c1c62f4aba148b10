import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  MAX_FUTURE_NONCE_GAP,
  MEMPOOL_CAP_DEFAULT,
  MEMPOOL_GAPPED_LIFETIME_MS,
  MEMPOOL_LIFETIME_MS,
  MEMPOOL_MAX,
  MEMPOOL_SENDER_GAPPED,
  MEMPOOL_SENDER_PENDING,
  SNAPSHOT_INTERVAL_BLOCKS,
  SNAPSHOTS_KEPT,
  STATE_CACHE_MB_DEFAULT,
} from '../protocol/params';
import { CairnError } from '../errors/CairnError';
import type { Hex } from '../primitives/hex';
import { readSecretFile } from './secretFile';

/** The shortest admin token accepted: 32 characters (`openssl rand -hex 32` gives 64). */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/**
 * Node configuration. This module is the only reader of process.env and of the
 * node's flags; everything else receives a validated NodeConfig.
 * Precedence: flags > environment > config file (JSON, same keys) > defaults.
 */
export interface NodeConfig {
  dataDir: string;
  host: string;
  httpPort: number;
  rpcPort: number;
  /**
   * Value of the `x-admin-token` header for admin endpoints (at least ADMIN_TOKEN_MIN_LENGTH characters); null
   * disables them. Read from $ADMIN_TOKEN, the config file or --admin-token-file, never from the command line.
   */
  adminToken: string | null;
  /** The file the admin token was read from (owner-only, like a key file), if any. */
  adminTokenFile: string | null;
  /** Start with a key or token file that other users of the machine may read (the operator's explicit choice). */
  allowInsecureKeyFile: boolean;
  /** Slot length: how often the producer may build a block. */
  slotMs: number;
  /** Pace of empty blocks while nothing is pending or awaiting finality. */
  idleBlockMs: number;
  /** Resident mempool cap (the interface states 5,000 and 50,000; 5,000 default, 50,000 ceiling). */
  mempoolCap: number;
  /** The state trie's node cache, in MiB (state/trieNodes.ts). */
  stateCacheMb: number;
  /** Pending transactions one sender may hold in the mempool. */
  mempoolSenderPending: number;
  /** Transactions one sender may hold beyond its next nonce ("gapped"; well under the 64-nonce gap). */
  mempoolSenderGapped: number;
  /** How long a gapped transaction may wait for its gap to fill (far below the 6 h lifetime). */
  mempoolGappedLifetimeMs: number;
  /** Signature-verification worker threads (>= 1). */
  verifyWorkers: number;
  /**
   * eth_call / eth_estimateGas worker threads (>= 1), their wall-clock budget per call, and how many calls may wait
   * (vm/callPool.ts).
   */
  vmCallWorkers: number;
  vmCallTimeoutMs: number;
  vmCallQueue: number;
  logLevel: LogLevel;
  /** json: pino JSON lines; pretty: readable lines; auto: readable when stdout is a terminal. */
  logFormat: LogFormat;
  /** Client addresses or CIDR blocks the HTTP rate limit and guard never apply to (e.g. a monitoring host). */
  rateLimitExempt: string[];
  /** Reverse proxies whose X-Forwarded-For is believed for the client address (addresses or CIDR blocks). */
  trustedProxies: string[];
  /** Pre-funded development accounts created at genesis (development network only). */
  devAccounts: number;
  /** Chain specification (JSON) an empty data directory starts from; null: the development network. */
  genesisFile: string | null;
  /** File holding this node's block-signing master secret; null: the development validator's key. */
  validatorKey: string | null;
  /** A --genesis chain may have the published development validator key among its validators (a local test network). */
  allowDevValidator: boolean;
  /**
   * Peers to dial on the libp2p network: multiaddrs (/ip4/…/tcp/…/p2p/<id>), or their native API's URLs
   * (http://host:port), whose node is asked for its libp2p addresses. More are found through them (peer exchange).
   */
  peers: string[];
  /** Multiaddrs the libp2p host listens on; empty: a port the system picks on --host. */
  listen: string[];
  /** Dial only `peers` and tell no peer whom this node is linked to (no peer exchange): a validator behind sentries. */
  peersOnly: boolean;
  /** Origins whose web pages may read the native API and call JSON-RPC ("*": any; empty: no CORS headers). */
  corsOrigins: string[];
  /**
   * Development controls (POST /dev/mine, /dev/snapshot, /dev/revert): development network only, admin token required.
   */
  dev: boolean;
  /**
   * Block history kept: 'archive' (every block), or the last N final blocks' bodies, feeds and
   * logs (at least the longest protocol window); null: archive on the development network, DEFAULT_HISTORY_BLOCKS
   * on a --genesis chain.
   */
  history: 'archive' | number | null;
  /** Final heights whose state this node keeps and serves to nodes joining by state sync: every Nth (0: none). */
  snapshotInterval: number;
  /** How an empty data directory joins: replaying every block from genesis, or from a peer's state snapshot. */
  sync: 'blocks' | 'state';
  /** State sync's trust anchor: the hash of a final snapshot block (GET /snapshots of a node the operator trusts). */
  checkpoint: Hex | null;
  /** The JSON file the values were read from, if any. */
  configFile: string | null;
}

/** The history window of a --genesis node that does not choose one: about 14 h of 500 ms blocks. */
export const DEFAULT_HISTORY_BLOCKS = 100_000;

/** The window `config.history` stands for. */
export const historyOf = (config: Pick<NodeConfig, 'history' | 'genesisFile'>): 'archive' | { blocks: number } =>
  config.history === 'archive' || (config.history === null && config.genesisFile === null)
    ? 'archive'
    : { blocks: config.history ?? DEFAULT_HISTORY_BLOCKS };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const defaultNodeConfig: Readonly<NodeConfig> = Object.freeze({
  dataDir: './data',
  host: '127.0.0.1',
  httpPort: 6070,
  rpcPort: 7070,
  adminToken: null,
  adminTokenFile: null,
  allowInsecureKeyFile: false,
  corsOrigins: ['*'],
  dev: false,
  slotMs: 500,
  idleBlockMs: 5000,
  mempoolCap: MEMPOOL_CAP_DEFAULT,
  stateCacheMb: STATE_CACHE_MB_DEFAULT,
  mempoolSenderPending: MEMPOOL_SENDER_PENDING,
  mempoolSenderGapped: MEMPOOL_SENDER_GAPPED,
  mempoolGappedLifetimeMs: MEMPOOL_GAPPED_LIFETIME_MS,
  verifyWorkers: Math.max(1, os.availableParallelism()),
  vmCallWorkers: Math.max(1, os.availableParallelism() - 1),
  vmCallTimeoutMs: 5_000,
  vmCallQueue: 64,
  logLevel: 'info',
  logFormat: 'auto',
  devAccounts: 10,
  genesisFile: null,
  validatorKey: null,
  allowDevValidator: false,
  peers: [],
  listen: [],
  peersOnly: false,
  rateLimitExempt: [],
  trustedProxies: [],
  history: null,
  snapshotInterval: SNAPSHOT_INTERVAL_BLOCKS,
  sync: 'blocks',
  checkpoint: null,
  configFile: null,
});

/** A TCP listen address: /ip4/<address>/tcp/<port> or /ip6/<address>/tcp/<port>. */
const LISTEN_ADDR = /^\/(ip4\/(\d{1,3}\.){3}\d{1,3}|ip6\/[0-9a-fA-F:]+|dns[46]?\/[A-Za-z0-9.-]+)\/tcp\/\d{1,5}$/;
/** A peer to dial: a TCP address and the peer id its Noise handshake must prove. */
const PEER_ADDR =
  /^\/(ip4\/(\d{1,3}\.){3}\d{1,3}|ip6\/[0-9a-fA-F:]+|dns[46]?\/[A-Za-z0-9.-]+)\/tcp\/\d{1,5}\/p2p\/[1-9A-HJ-NP-Za-km-z]{46,59}$/;

type Key = Exclude<keyof NodeConfig, 'configFile'>;
type Kind = 'string' | 'int' | 'token' | 'level' | 'list' | 'peers' | 'multiaddrs' | 'origins' | 'bool' | 'history';

interface OptionSpec {
  key: Key;
  flag: string;
  env: string;
  kind: Kind;
  min?: number;
  max?: number;
  help: string;
}

/** One table drives parsing, validation and --help, so they cannot drift apart. */
const OPTIONS: readonly OptionSpec[] = [
  { key: 'dataDir', flag: 'data-dir', env: 'DATA_DIR', kind: 'string', help: 'directory of the RocksDB database' },
  {
    key: 'host',
    flag: 'host',
    env: 'CAIRN_HOST',
    kind: 'string',
    help: 'interface the HTTP and JSON-RPC servers bind to ($HOST is not read: zsh sets it to the machine name)',
  },
  {
    key: 'httpPort',
    flag: 'http-port',
    env: 'HTTP_PORT',
    kind: 'int',
    min: 0,
    max: 65535,
    help: 'native HTTP API port (0 = any free port)',
  },
  {
    key: 'rpcPort',
    flag: 'rpc-port',
    env: 'RPC_PORT',
    kind: 'int',
    min: 0,
    max: 65535,
    help: 'VM JSON-RPC port (0 = any free port)',
  },
  {
    key: 'adminToken',
    flag: 'admin-token',
    env: 'ADMIN_TOKEN',
    kind: 'token',
    help:
      `x-admin-token for the admin endpoints, at least ${ADMIN_TOKEN_MIN_LENGTH} characters (unset = admin endpoints ` +
      'refuse); from the environment or the config file only: the command line is visible to every user (ps)',
  },
  {
    key: 'adminTokenFile',
    flag: 'admin-token-file',
    env: 'ADMIN_TOKEN_FILE',
    kind: 'string',
    help: 'file holding the admin token (owner-only, e.g. mode 0600); instead of $ADMIN_TOKEN',
  },
  {
    key: 'allowInsecureKeyFile',
    flag: 'allow-insecure-key-file',
    env: 'CAIRN_ALLOW_INSECURE_KEY_FILE',
    kind: 'bool',
    help: 'start even when --validator-key or --admin-token-file can be read by other users (refused by default)',
  },
  {
    key: 'slotMs',
    flag: 'slot-ms',
    env: 'SLOT_MS',
    kind: 'int',
    min: 50,
    max: 1000,
    help: 'slot length in ms (50..1000)',
  },
  {
    key: 'idleBlockMs',
    flag: 'idle-block-ms',
    env: 'IDLE_BLOCK_MS',
    kind: 'int',
    min: 50,
    max: 3_600_000,
    help: 'ms between empty blocks while nothing is pending or awaiting finality (>= slot-ms)',
  },
  {
    key: 'stateCacheMb',
    flag: 'state-cache-mb',
    env: 'STATE_CACHE_MB',
    kind: 'int',
    min: 8,
    max: 65_536,
    help:
      `memory for the state trie's nodes, in MiB (default ${STATE_CACHE_MB_DEFAULT}): more makes blocks on a large ` +
      'state faster, and is held once filled',
  },
  {
    key: 'mempoolCap',
    flag: 'mempool-cap',
    env: 'MEMPOOL_CAP',
    kind: 'int',
    min: 1,
    max: MEMPOOL_MAX,
    help: `resident mempool cap (1..${MEMPOOL_MAX})`,
  },
  {
    key: 'mempoolSenderPending',
    flag: 'mempool-sender-pending',
    env: 'MEMPOOL_SENDER_PENDING',
    kind: 'int',
    min: 1,
    max: MEMPOOL_MAX,
    help: `pending transactions one sender may hold; more: "mempool full" (1..${MEMPOOL_MAX})`,
  },
  {
    key: 'mempoolSenderGapped',
    flag: 'mempool-sender-gapped',
    env: 'MEMPOOL_SENDER_GAPPED',
    kind: 'int',
    min: 0,
    max: MAX_FUTURE_NONCE_GAP,
    help:
      `transactions one sender may hold beyond its next nonce (gapped); more: "nonce too far ahead"; a full ` +
      `pool evicts gapped ones for ready ones (0..${MAX_FUTURE_NONCE_GAP})`,
  },
  {
    key: 'mempoolGappedLifetimeMs',
    flag: 'mempool-gapped-lifetime-ms',
    env: 'MEMPOOL_GAPPED_LIFETIME_MS',
    kind: 'int',
    min: 1000,
    max: MEMPOOL_LIFETIME_MS,
    help:
      `ms a gapped transaction waits for its gap to fill before it is dropped ` +
      `(1000..${MEMPOOL_LIFETIME_MS}; ready ones live 6 h)`,
  },
  {
    key: 'verifyWorkers',
    flag: 'verify-workers',
    env: 'VERIFY_WORKERS',
    kind: 'int',
    min: 1,
    max: 256,
    help: 'signature-verification worker threads (default: available parallelism)',
  },
  {
    key: 'vmCallWorkers',
    flag: 'vm-call-workers',
    env: 'VM_CALL_WORKERS',
    kind: 'int',
    min: 1,
    max: 256,
    help: 'eth_call / eth_estimateGas worker threads (default: available parallelism - 1, at least 1)',
  },
  {
    key: 'vmCallTimeoutMs',
    flag: 'vm-call-timeout-ms',
    env: 'VM_CALL_TIMEOUT_MS',
    kind: 'int',
    min: 10,
    max: 600_000,
    help: 'wall-clock budget of one eth_call or eth_estimateGas in ms (default 5000)',
  },
  {
    key: 'vmCallQueue',
    flag: 'vm-call-queue',
    env: 'VM_CALL_QUEUE',
    kind: 'int',
    min: 0,
    max: 100_000,
    help: 'eth_call / eth_estimateGas calls that may wait for a worker; beyond, -32000 "queue is full" (default 64)',
  },
  { key: 'logLevel', flag: 'log-level', env: 'LOG_LEVEL', kind: 'level', help: LOG_LEVELS.join(' | ') },
  {
    key: 'logFormat',
    flag: 'log-format',
    env: 'LOG_FORMAT',
    kind: 'string',
    help: 'auto (readable lines on a terminal, JSON otherwise) | json | pretty',
  },
  {
    key: 'rateLimitExempt',
    flag: 'rate-limit-exempt',
    env: 'RATE_LIMIT_EXEMPT',
    kind: 'list',
    help: 'comma-separated addresses or CIDR blocks never rate-limited or guarded (default: none, loopback included)',
  },
  {
    key: 'dev',
    flag: 'dev',
    env: 'CAIRN_DEV',
    kind: 'bool',
    help:
      'development controls for fuzzers: mine blocks now, reusable snapshots and reverts ' +
      '(development network only; needs an admin token)',
  },
  {
    key: 'corsOrigins',
    flag: 'cors-origins',
    env: 'CORS_ORIGINS',
    kind: 'origins',
    help: 'comma-separated origins whose web pages may read the API and call JSON-RPC (default *: any; empty: none)',
  },
  {
    key: 'trustedProxies',
    flag: 'trusted-proxies',
    env: 'TRUSTED_PROXIES',
    kind: 'list',
    help: 'comma-separated proxy addresses or CIDR blocks whose X-Forwarded-For is believed',
  },
  {
    key: 'devAccounts',
    flag: 'dev-accounts',
    env: 'DEV_ACCOUNTS',
    kind: 'int',
    min: 0,
    max: 1000,
    help: 'pre-funded development accounts at genesis (0..1000)',
  },
  {
    key: 'peers',
    flag: 'peers',
    env: 'CAIRN_PEERS',
    kind: 'peers',
    help:
      'comma-separated peers to dial: libp2p multiaddrs (/ip4/10.0.0.2/tcp/30333/p2p/<id>) or their HTTP API URLs ' +
      '(http://host:port, asked for the addresses); more are found through them. None: a single node',
  },
  {
    key: 'listen',
    flag: 'listen',
    env: 'CAIRN_LISTEN',
    kind: 'multiaddrs',
    help:
      'comma-separated multiaddrs the peer-to-peer network listens on (e.g. /ip4/0.0.0.0/tcp/30333); default: a ' +
      'port the system picks on --host (a validator others dial should set one)',
  },
  {
    key: 'peersOnly',
    flag: 'peers-only',
    env: 'CAIRN_PEERS_ONLY',
    kind: 'bool',
    help: 'dial only --peers and do not exchange peer addresses: a validator reached only through its own sentry nodes',
  },
  {
    key: 'genesisFile',
    flag: 'genesis',
    env: 'CAIRN_GENESIS',
    kind: 'string',
    help:
      'chain specification (JSON, see "cairn genesis --help") an empty data dir starts from; unset: the ' +
      'development network',
  },
  {
    key: 'validatorKey',
    flag: 'validator-key',
    env: 'CAIRN_VALIDATOR_KEY',
    kind: 'string',
    help:
      "file with this node's block-signing master secret (64 hex, or dev-validators.json's shape); unset: the " +
      'development validator',
  },
  {
    key: 'allowDevValidator',
    flag: 'allow-dev-validator',
    env: 'CAIRN_ALLOW_DEV_VALIDATOR',
    kind: 'bool',
    help:
      'let a --genesis chain have the published development validator key among its validators ' +
      '(local test networks only: anyone can sign its blocks)',
  },
  {
    key: 'history',
    flag: 'history',
    env: 'CAIRN_HISTORY',
    kind: 'history',
    help:
      'block history kept: archive, or the last N final blocks (bodies, feeds, logs; at least the longest ' +
      `protocol window). Default: archive on the development network, ${DEFAULT_HISTORY_BLOCKS} with --genesis`,
  },
  {
    key: 'snapshotInterval',
    flag: 'snapshot-interval',
    env: 'CAIRN_SNAPSHOT_INTERVAL',
    kind: 'int',
    min: 0,
    max: 1_000_000_000,
    help:
      `keep the state of every Nth final block (the newest ${SNAPSHOTS_KEPT}) for nodes joining by state sync ` +
      '(GET /snapshots); 0: serve none',
  },
  {
    key: 'sync',
    flag: 'sync',
    env: 'CAIRN_SYNC',
    kind: 'string',
    help:
      'how an empty data directory joins: blocks (replay from genesis) or state (a peer snapshot at --checkpoint, ' +
      'each state node checked against its root, then blocks)',
  },
  {
    key: 'checkpoint',
    flag: 'checkpoint',
    env: 'CAIRN_CHECKPOINT',
    kind: 'string',
    help: 'with --sync state: the hash of a final snapshot block you trust (GET /snapshots on a node you run)',
  },
];

const fail = (message: string, meta: Record<string, unknown> = {}): never => {
  throw new CairnError('CONFIG', message, meta);
};

/** The admin token as given, if it is long enough to resist guessing (the guard slows guesses; length stops them). */
function adminToken(raw: string, name: string): string {
  if (/\s/.test(raw)) return fail(`${name} must not contain whitespace`, { option: 'adminToken' });
  if (raw.length < ADMIN_TOKEN_MIN_LENGTH)
    return fail(
      `${name} must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters, got ${raw.length}: make one with ` +
        '"openssl rand -hex 32"',
      { option: 'adminToken' },
    );
  return raw;
}

const describeOpt = (o: OptionSpec, source: string): string =>
  source === 'flag'
    ? `--${o.flag}`
    : source === 'env'
      ? `$${o.env}`
      : source === 'file'
        ? `"${o.key}" in the config file`
        : o.key;

/** Validates one raw value (string from flag/env, any JSON value from the file). */
function coerce(o: OptionSpec, raw: unknown, source: 'flag' | 'env' | 'file'): NodeConfig[Key] {
  const name = describeOpt(o, source);
  switch (o.kind) {
    case 'int': {
      let n: number;
      if (typeof raw === 'number') n = raw;
      else if (typeof raw === 'string' && source !== 'file' && /^\s*\d+\s*$/.test(raw)) n = Number(raw.trim());
      else return fail(`${name} must be an integer, got ${JSON.stringify(raw)}`, { option: o.key });
      if (!Number.isSafeInteger(n))
        return fail(`${name} must be an integer, got ${JSON.stringify(raw)}`, { option: o.key });
      if ((o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max))
        return fail(`${name} must be between ${o.min} and ${o.max}, got ${n}`, { option: o.key });
      return n;
    }
    case 'string':
      if (typeof raw !== 'string' || raw.trim() === '')
        return fail(`${name} must be a non-empty string`, { option: o.key });
      return raw;
    case 'token':
      if (raw === null && source === 'file') return null;
      if (typeof raw !== 'string' || raw === '') return fail(`${name} must be a non-empty string`, { option: o.key });
      return adminToken(raw, name);
    case 'list': {
      // Flags and variables: comma-separated; the config file: an array of strings (or the same string).
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : undefined;
      if (!items || items.some((x) => typeof x !== 'string'))
        return fail(`${name} must be a comma-separated list (or an array of strings in the file)`, { option: o.key });
      const list = (items as string[]).map((x) => x.trim()).filter((x) => x !== '');
      const bad = list.find((x) => !/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(x));
      if (bad !== undefined) return fail(`${name}: "${bad}" is not an IP address or CIDR block`, { option: o.key });
      return list;
    }
    case 'multiaddrs': {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : undefined;
      if (!items || items.some((x) => typeof x !== 'string'))
        return fail(`${name} must be a comma-separated list of multiaddrs (or an array of strings in the file)`, {
          option: o.key,
        });
      const list = (items as string[]).map((x) => x.trim()).filter((x) => x !== '');
      for (const a of list)
        if (!LISTEN_ADDR.test(a))
          return fail(`${name}: "${a}" is not a listen address like /ip4/0.0.0.0/tcp/30333`, { option: o.key });
      return [...new Set(list)];
    }
    case 'peers': {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : undefined;
      if (!items || items.some((x) => typeof x !== 'string'))
        return fail(`${name} must be a comma-separated list of peers (or an array of strings in the file)`, {
          option: o.key,
        });
      const list = (items as string[]).map((x) => x.trim().replace(/\/+$/, '')).filter((x) => x !== '');
      for (const u of list) {
        if (u.startsWith('/')) {
          if (!PEER_ADDR.test(u))
            return fail(`${name}: "${u}" is not a peer multiaddr like /ip4/10.0.0.2/tcp/30333/p2p/<peer id>`, {
              option: o.key,
            });
          continue;
        }
        let url: URL | undefined;
        try {
          url = new URL(u);
        } catch {
          url = undefined;
        }
        if (
          !url ||
          (url.protocol !== 'http:' && url.protocol !== 'https:') ||
          url.pathname !== '/' ||
          url.search ||
          url.hash
        )
          return fail(`${name}: "${u}" is not a peer multiaddr or a peer URL like http://host:port`, {
            option: o.key,
          });
      }
      return [...new Set(list)];
    }
    case 'origins': {
      // "*", or web origins (scheme://host[:port]); an empty value turns CORS off.
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : undefined;
      if (!items || items.some((x) => typeof x !== 'string'))
        return fail(`${name} must be a comma-separated list of origins (or an array of strings in the file)`, {
          option: o.key,
        });
      const list = (items as string[]).map((x) => x.trim().replace(/\/+$/, '')).filter((x) => x !== '');
      const bad = list.find((x) => x !== '*' && !/^https?:\/\/[^/\s:]+(:\d{1,5})?$/.test(x));
      if (bad !== undefined)
        return fail(`${name}: "${bad}" is not an origin like https://wallet.example or http://localhost:3000 (or *)`, {
          option: o.key,
        });
      return [...new Set(list)];
    }
    case 'bool':
      if (raw === true || raw === 'true' || raw === '1') return true;
      if (raw === false || raw === 'false' || raw === '0') return false;
      return fail(`${name} must be true or false (1 or 0), got ${JSON.stringify(raw)}`, { option: o.key });
    case 'history': {
      if (raw === 'archive') return 'archive';
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > 1_000_000_000)
        return fail(`${name} must be "archive" or a number of blocks (1..1000000000), got ${JSON.stringify(raw)}`, {
          option: o.key,
        });
      return n;
    }
    case 'level':
      if (typeof raw !== 'string' || !(LOG_LEVELS as readonly string[]).includes(raw))
        return fail(`${name} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(raw)}`, { option: o.key });
      return raw as LogLevel;
  }
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return fail(`--config: cannot read ${path}: ${(e as Error).message}`, { file: path });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return fail(`--config: ${path} is not valid JSON: ${(e as Error).message}`, { file: path });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return fail(`--config: ${path} must contain a JSON object`, { file: path });
  const known = new Set<string>(OPTIONS.map((o) => o.key));
  for (const k of Object.keys(json)) {
    // A misspelt key would otherwise be ignored silently and the default used.
    if (!known.has(k))
      fail(`--config: unknown key "${k}" in ${path} (known: ${[...known].join(', ')})`, { file: path });
  }
  return json as Record<string, unknown>;
}

/** Reads the node configuration from flags (argv, without the command name) and environment. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): NodeConfig {
  const flagOptions: Record<string, { type: 'string' }> = { config: { type: 'string' } };
  const flagOptions2 = flagOptions as Record<string, { type: 'string' | 'boolean' }>;
  for (const o of OPTIONS) flagOptions2[o.flag] = { type: o.kind === 'bool' ? 'boolean' : 'string' };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: flagOptions, strict: true, allowPositionals: false }));
  } catch (e) {
    return fail(`${(e as Error).message}\nRun "cairn node --help" for the options.`);
  }

  const configFile = typeof values.config === 'string' ? values.config : null;
  if (configFile === '') fail('--config must name a file');
  const file = configFile ? readConfigFile(configFile) : {};

  const cfg: Record<string, unknown> = { ...defaultNodeConfig, configFile };
  for (const o of OPTIONS) {
    const flag = values[o.flag];
    if (o.kind === 'token' && flag !== undefined)
      fail(
        `--${o.flag} puts the secret on the command line, where every user of the machine reads it (ps): use ` +
          `--${o.flag}-file <file> (mode 0600) or $${o.env}`,
        { option: o.key },
      );
    const envValue = env[o.env];
    if (typeof flag === 'string' || typeof flag === 'boolean') cfg[o.key] = coerce(o, flag, 'flag');
    // An empty variable (VAR= in compose files) means "not set", not "set to empty".
    else if (envValue !== undefined && envValue !== '') cfg[o.key] = coerce(o, envValue, 'env');
    else if (Object.hasOwn(file, o.key)) cfg[o.key] = coerce(o, file[o.key], 'file');
  }
  const config = cfg as unknown as NodeConfig;
  if (config.adminTokenFile !== null) {
    if (config.adminToken !== null)
      fail(`give the admin token once: $ADMIN_TOKEN (or "adminToken" in the config file) or --admin-token-file`, {
        option: 'adminTokenFile',
      });
    const file = config.adminTokenFile;
    const text = readSecretFile('--admin-token-file', file, config.allowInsecureKeyFile);
    config.adminToken = adminToken(text.trim(), `--admin-token-file ${file}`);
  }

  if (config.httpPort !== 0 && config.httpPort === config.rpcPort)
    fail(`http-port and rpc-port must differ (both are ${config.httpPort})`, { option: 'rpcPort' });
  if (config.dev && config.genesisFile !== null)
    fail('--dev runs on the development network only (without --genesis)', { option: 'dev' });
  if (config.dev && !config.adminToken)
    fail(
      '--dev needs an admin token ($ADMIN_TOKEN or --admin-token-file): the development controls are admin endpoints',
      {
        option: 'dev',
      },
    );
  if (!(LOG_FORMATS as readonly string[]).includes(config.logFormat))
    fail(`log-format must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(config.logFormat)}`, {
      option: 'logFormat',
    });
  if (config.sync !== 'blocks' && config.sync !== 'state')
    fail(`sync must be blocks or state, got ${JSON.stringify(config.sync)}`, { option: 'sync' });
  if (config.checkpoint !== null && !/^0x[0-9a-f]{64}$/.test(config.checkpoint))
    fail(`checkpoint must be a block hash (0x + 64 lower-case hex digits), got ${JSON.stringify(config.checkpoint)}`, {
      option: 'checkpoint',
    });
  if (config.sync === 'state' && config.checkpoint === null)
    fail(
      '--sync state needs --checkpoint <block hash>: the hash of a final snapshot block you trust ' +
        '(GET /snapshots on a node you run lists them)',
      { option: 'checkpoint' },
    );
  if (config.sync === 'state' && !config.peers.some((p) => !p.startsWith('/')))
    fail("--sync state needs --peers with a node's HTTP URL (http://host:port): the nodes to fetch the snapshot from", {
      option: 'peers',
    });
  if (config.idleBlockMs < config.slotMs)
    fail(`idle-block-ms (${config.idleBlockMs}) must be >= slot-ms (${config.slotMs})`, { option: 'idleBlockMs' });
  return config;
}

/** Help text of `cairn node`: every option with its flag, environment variable and default. */
export function configHelp(): string {
  const rows = OPTIONS.map((o) => {
    const def = defaultNodeConfig[o.key];
    const shown = def === null ? '(unset)' : Array.isArray(def) ? (def.length ? def.join(',') : '(none)') : String(def);
    const value =
      o.kind === 'int'
        ? 'n'
        : o.kind === 'history'
          ? 'n|archive'
          : o.kind === 'list' || o.kind === 'peers' || o.kind === 'multiaddrs' || o.kind === 'origins'
            ? 'a,b'
            : 'value';
    // A secret has no flag: the command line is visible to every user of the machine.
    const flag = o.kind === 'token' ? '(no flag)' : o.kind === 'bool' ? `--${o.flag}` : `--${o.flag} <${value}>`;
    return [flag, `$${o.env}`, shown, o.help];
  });
  rows.push([
    '--config <file.json>',
    '',
    '(none)',
    'JSON object with any of the keys: ' + OPTIONS.map((o) => o.key).join(', '),
  ]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  const w2 = Math.max(...rows.map((r) => r[2].length));
  const lines = rows.map((r) => `  ${r[0].padEnd(w0)}  ${r[1].padEnd(w1)}  ${r[2].padEnd(w2)}  ${r[3]}`);
  return [
    'Usage: cairn node [options]',
    '',
    'Runs a Cairn node (a single-validator development network by default).',
    'Precedence: flags > environment variables > --config file > defaults.',
    '',
    `  ${'flag'.padEnd(w0)}  ${'env'.padEnd(w1)}  ${'default'.padEnd(w2)}  meaning`,
    ...lines,
    '',
    'Examples:',
    '  cairn node',
    '  cairn node --data-dir /var/lib/cairn --http-port 8080 --slot-ms 500',
    '  MEMPOOL_CAP=20000 cairn node --admin-token-file /etc/cairn/admin-token --config cairn.json',
  ].join('\n');
}
