import { fchmodSync, fstatSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TxType } from '../protocol/types';
import { TX_TYPES } from '../modules/registry';
import { encodeTx } from '../chain/envelope';
import { configHelp, loadConfig } from '../config/config';
import { toNative } from '../crypto/address';
import { deriveKeys, generateSecret } from '../crypto/keys';
import { isCairnError } from '../errors/CairnError';
import { parseAmount } from '../primitives/amount';
import { isHex, toHex } from '../primitives/hex';
import { CairnClient } from '../sdk/client';
import { GROUP_COMMANDS, COMMAND_GROUPS, GROUP_HELP, GROUPS_MAIN_HELP } from './commands';
import { wrap } from './commands/help';
import { GENESIS_COMMANDS, GENESIS_HELP, GENESIS_SUBS } from './genesis';
import { cmdDevnet, DEVNET_HELP } from './devnet';
import {
  DEFAULT_NODE,
  DEFAULT_POLL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
  EXIT,
  exitCodeFor,
  formatWait,
  json,
  nodeUrl,
  parse,
  parseAddressArg,
  parseLevel,
  parseNonNegInt,
  parsePositiveInt,
  parseSecret,
  parseWaitFlags,
  SEND_OPTIONS,
  sign,
  str,
  submitAndReport,
  usage,
  type CliIo,
  type CliTxFields,
  type Flags,
  type OptionDefs,
  NETWORK_HELP,
  NETWORK_OPTIONS,
  networkOf,
} from './common';

export { EXIT, exitCodeFor, formatWait, parseNonNegInt, parseSecret, type CliIo };

// ---------------------------------------------------------------------------------------
// Help texts

const MAIN_HELP = `Usage: cairn <command> [options]

Commands:
  keygen              generate a new master secret; print it with its keys and addresses
  address             print the addresses (0x and cairn1) of a secret
  tx sign             sign a transaction offline; print the envelope to POST to /tx
  tx send             sign, submit to a node, optionally wait for the outcome
  tx wait <id>        wait until a transaction is included or finalized
${GROUPS_MAIN_HELP}
  status              print the node's GET /status
  explorer [<what>]   print the URL of the node's block explorer (or of one page of it)
  account <address>   print an account (0x or cairn1 address)
  node [options]      run a node (see "cairn node --help")
  genesis <sub>       chain specification for "node --genesis": template, validator, check
  devnet [options]    a local network of N validator nodes (see "cairn devnet --help")

Run "cairn <command> --help" for its options and examples.

Environment:
  CAIRN_SECRET   master secret (64 hex) used when --secret is absent
  CAIRN_NODE     node URL used when --node is absent (default ${DEFAULT_NODE})

Exit codes:
  0  success (accepted, included, finalized)
  1  refused, failed, dropped, or the node answered with an error
  2  usage error (unknown command or option, invalid value)
  3  unknown: a wait timed out. A timeout is never a failure: the transaction may
     still land; check it with "cairn tx wait <id>" before sending it again.`;

const TX_FIELDS_HELP = `  --secret <hex>       32-byte master secret, 64 hex (or $CAIRN_SECRET; prefer the
                       variable: command-line arguments are visible to other users)
${wrap(
  '  --type <TYPE>        one of: ',
  TX_TYPES.map((t, i) => (i < TX_TYPES.length - 1 ? `${t},` : t)),
  ' '.repeat(23),
  88,
)}
  --to <address>       destination, 0x… or cairn1…
  --amount <n>         integer, base units (1 coin = 1000000); default 0
  --fee <n>            most base units the node may burn for this transaction
                       (a limit, not a bid; default: the signer's default)
  --timestamp <ms>     positive integer; default now
  --data <json>        type-specific fields as one JSON value (see docs/PROTOCOL.md).
                       The types without a command of their own go this way:
                       PERMISSION_UPDATE/PROPOSE/APPROVE/VETO, MULTISIG_PROPOSE/
                       APPROVE and META_TX (its data.tx: the user's signed envelope,
                       e.g. from "cairn tx sign --fee 0")`;

const HELP: Record<string, string> = {
  ...GROUP_HELP,
  ...GENESIS_HELP,
  devnet: DEVNET_HELP,
  keygen: `Usage: cairn keygen [--out <file>]

Generates a random 32-byte master secret and prints JSON:
  {secret, address, native, secp256k1PrivateKey}
secret is 64 hex without 0x; back it up, it derives both the secp256k1 and the
ML-DSA-44 key. secp256k1PrivateKey (0x…) imports into an Ethereum wallet that
controls the same account on the VM surface.

  --out <file>   write that JSON to a new file (mode 0600; an existing file is
                 never overwritten) and print only {address, native, file}

Standard output redirected to a file is made readable by its owner only (0600):
"cairn node" refuses a --validator-key file that other users can read.

Examples:
  cairn keygen --out v1.json
  cairn keygen > wallet.json`,

  address: `Usage: cairn address [--secret <hex>]

Prints {address, native} of a master secret (from --secret or $CAIRN_SECRET).

Example:
  CAIRN_SECRET=$(jq -r .secret wallet.json) cairn address`,

  tx: `Usage: cairn tx <sign|send|wait> [options]

  tx sign       sign offline, print the envelope
  tx send       sign and submit to a node
  tx wait <id>  wait for a submitted transaction

For token, NFT and name transactions, "cairn token|nft|name …" build the data from
named flags and check it before signing.
Run "cairn tx <sub> --help" for details.`,

  'tx sign': `Usage: cairn tx sign --type <TYPE> --nonce <n> [options]

Signs and prints the envelope JSON, ready to POST to /tx. The signature covers the
chain's genesis hash: with --genesis-hash no node is contacted, otherwise the node
(--node, $CAIRN_NODE or ${DEFAULT_NODE}) is asked for it.

${TX_FIELDS_HELP}
  --nonce <n>          required: the account's nextNonce (read it with "cairn account")
${NETWORK_HELP}
  --node <url>         the node asked for the genesis hash

Example:
  cairn tx sign --type TRANSFER --to cairn1… --amount 1000000 --nonce 0 \\
    | curl -s -H 'content-type: application/json' --data-binary @- ${DEFAULT_NODE}/tx`,

  'tx send': `Usage: cairn tx send --type <TYPE> [options]

Signs, submits with POST /tx and prints the verdict {accepted, id, reason?}; with
--wait, also {outcome, blockHeight?, blockHash?}.

${TX_FIELDS_HELP}
  --nonce <n>          default: the account's nextNonce, read from the node
  --node <url>         node URL (default $CAIRN_NODE or ${DEFAULT_NODE})
  --wait <level>       included | finalized: wait for that outcome after acceptance
  --timeout <ms>       how long --wait waits (default ${DEFAULT_WAIT_TIMEOUT_MS})
  --poll <ms>          poll interval of --wait (default ${DEFAULT_POLL_MS})

Exit: 0 accepted (and, with --wait, included/finalized), 1 refused/failed/dropped,
3 unknown (a timeout or a lost answer: the transaction may still land; check it by
id with "cairn tx wait <id>" and never resend it under a new nonce first).

Example:
  export CAIRN_SECRET=…
  cairn tx send --type TRANSFER --to 0x… --amount 250000 --wait finalized`,

  'tx wait': `Usage: cairn tx wait <id> [--until included|finalized] [--timeout <ms>] [--node <url>]

Polls GET /tx/:id and prints {id, outcome, blockHeight?, blockHash?, reason?}.
A 404 right after submission is tolerated (the transaction may still be propagating).

  --until <level>      included (default) | finalized
  --timeout <ms>       default ${DEFAULT_WAIT_TIMEOUT_MS}
  --poll <ms>          poll interval (default ${DEFAULT_POLL_MS})
  --node <url>         node URL (default $CAIRN_NODE or ${DEFAULT_NODE})

Outcomes and exit codes:
  included, finalized  0
  failed               1  included, but execution failed (reason says why)
  dropped              1  the mempool dropped it
  unknown              3  timed out. This is NOT a failure: the transaction may still
                          land. Wait again before resending.

Example:
  cairn tx wait 0x5f…c1 --until finalized --timeout 30000`,

  explorer: `Usage: cairn explorer [<address | height | block hash | tx id | token | name>] [--node <url>]

Checks that the node serves its block explorer (GET / and its script) and prints the
page's URL to open in a browser. With an argument, prints the URL of that thing's page
(found with the node's /search; several matches print the search page).

Examples:
  cairn explorer
  cairn explorer cairn1…            # an account's page`,

  status: `Usage: cairn status [--node <url>]

Prints the node's GET /status (height, finalizedHeight, head, supply, …).`,

  account: `Usage: cairn account <address> [--node <url>]

Prints the account of a 0x or cairn1 address. An account that never received
anything does not exist on the node; it is printed with exists: false, balance 0
and nonce 0.

Example:
  cairn account cairn1qyqszqgpqyqszqgpqyqszqgpqyqszqgp…`,
};

// ---------------------------------------------------------------------------------------
// Argument parsing helpers (exported for tests)

export function parseTxType(s: string | undefined): TxType {
  if (s === undefined) return usage(`--type is required; valid types: ${TX_TYPES.join(', ')}`);
  const t = s.toUpperCase();
  if (!(TX_TYPES as readonly string[]).includes(t)) usage(`unknown --type "${s}"; valid types: ${TX_TYPES.join(', ')}`);
  return t as TxType;
}

const TX_OPTIONS: OptionDefs = {
  secret: { type: 'string' },
  type: { type: 'string' },
  to: { type: 'string' },
  amount: { type: 'string' },
  nonce: { type: 'string' },
  fee: { type: 'string' },
  timestamp: { type: 'string' },
  data: { type: 'string' },
};

type TxFields = CliTxFields;

/** Validates the transaction flags shared by `tx sign` and `tx send`. */
export function parseTxFields(values: Flags): TxFields {
  const f: TxFields = { type: parseTxType(str(values.type)) };
  const to = str(values.to);
  if (to !== undefined) f.to = parseAddressArg('--to', to);
  for (const k of ['amount', 'fee'] as const) {
    const v = str(values[k]);
    if (v === undefined) continue;
    if (parseAmount(v) === undefined)
      usage(`--${k} must be a non-negative integer in base units (1 coin = 1000000), got "${v}"`);
    f[k] = v;
  }
  const nonce = str(values.nonce);
  if (nonce !== undefined) f.nonce = parseNonNegInt('--nonce', nonce);
  const ts = str(values.timestamp);
  if (ts !== undefined) f.timestamp = parsePositiveInt('--timestamp', ts);
  const data = str(values.data);
  if (data !== undefined) {
    try {
      f.data = JSON.parse(data);
    } catch (e) {
      usage(`--data is not valid JSON: ${(e as Error).message}`);
    }
  }
  return f;
}

// ---------------------------------------------------------------------------------------
// Commands

async function cmdKeygen(args: string[], io: CliIo): Promise<number> {
  const { values } = parse('keygen', args, { out: { type: 'string' } }, 0);
  if (values.help) return help(io, 'keygen');
  const keys = deriveKeys(generateSecret());
  const pub = { address: keys.address, native: toNative(keys.address) };
  const file = json({
    secret: toHex(keys.secret).slice(2),
    ...pub,
    secp256k1PrivateKey: toHex(keys.secp256k1.privateKey),
  });
  const out = str(values.out);
  if (out === undefined) {
    // A secret redirected to a file must not be readable by the machine's other users (umask 022 makes it 0644).
    io.protectOut?.();
    io.out(file);
    return EXIT.OK;
  }
  try {
    writeFileSync(out, `${file}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    usage(code === 'EEXIST' ? `--out ${out} exists: keygen never overwrites a key` : `--out ${out}: ${String(e)}`);
  }
  io.out(json({ ...pub, file: out }));
  return EXIT.OK;
}

async function cmdAddress(args: string[], io: CliIo): Promise<number> {
  const { values } = parse('address', args, { secret: { type: 'string' } }, 0);
  if (values.help) return help(io, 'address');
  const keys = deriveKeys(parseSecret(str(values.secret), io.env));
  io.out(json({ address: keys.address, native: toNative(keys.address) }));
  return EXIT.OK;
}

async function cmdTxSign(args: string[], io: CliIo): Promise<number> {
  const { values } = parse('tx sign', args, { ...TX_OPTIONS, ...NETWORK_OPTIONS }, 0);
  if (values.help) return help(io, 'tx sign');
  const f = parseTxFields(values);
  if (f.nonce === undefined)
    usage(
      '--nonce is required for "tx sign" (it works offline); read nextNonce with "cairn account <address>", ' +
        'or use "cairn tx send", which fetches it',
    );
  const keys = deriveKeys(parseSecret(str(values.secret), io.env));
  io.out(encodeTx(sign(keys, f, f.nonce, await networkOf(values, () => new CairnClient(nodeUrl(values, io.env))))));
  return EXIT.OK;
}

async function cmdTxSend(args: string[], io: CliIo): Promise<number> {
  const { values } = parse('tx send', args, { ...TX_OPTIONS, ...SEND_OPTIONS }, 0);
  if (values.help) return help(io, 'tx send');
  const f = parseTxFields(values);
  const wait = parseWaitFlags(values);
  const keys = deriveKeys(parseSecret(str(values.secret), io.env));
  const client = new CairnClient(nodeUrl(values, io.env));
  const nonce = f.nonce ?? (await client.nextNonce(keys.address));
  return submitAndReport(io, client, sign(keys, f, nonce, await client.network()), wait);
}

async function cmdTxWait(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    'tx wait',
    args,
    { until: { type: 'string' }, timeout: { type: 'string' }, poll: { type: 'string' }, node: { type: 'string' } },
    1,
  );
  if (values.help) return help(io, 'tx wait');
  const id = positionals[0];
  if (id === undefined) return usage('missing transaction id: cairn tx wait <id>');
  if (!isHex(id, 32)) usage(`"${id}" is not a transaction id (0x + 64 hex)`);
  const until = parseLevel('--until', str(values.until)) ?? 'included';
  const timeoutMs =
    str(values.timeout) !== undefined ? parsePositiveInt('--timeout', str(values.timeout)!) : DEFAULT_WAIT_TIMEOUT_MS;
  const pollMs = str(values.poll) !== undefined ? parsePositiveInt('--poll', str(values.poll)!) : DEFAULT_POLL_MS;
  const w = await new CairnClient(nodeUrl(values, io.env)).waitFor(id.toLowerCase(), { until, timeoutMs, pollMs });
  io.out(json(formatWait(id.toLowerCase(), w)));
  return exitCodeFor(w.outcome);
}

async function cmdStatus(args: string[], io: CliIo): Promise<number> {
  const { values } = parse('status', args, { node: { type: 'string' } }, 0);
  if (values.help) return help(io, 'status');
  io.out(json(await new CairnClient(nodeUrl(values, io.env)).status()));
  return EXIT.OK;
}

async function cmdExplorer(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('explorer', args, { node: { type: 'string' } }, 1);
  if (values.help) return help(io, 'explorer');
  const base = nodeUrl(values, io.env).replace(/\/+$/, '');
  // The explorer is built by the node on first request: both parts must answer.
  for (const path of ['/', '/explorer/app.js']) {
    const r = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } });
    if (!r.ok) {
      io.err(
        `cairn: the node at ${base} did not serve its explorer: GET ${path} ` +
          `answered ${r.status} ${(await r.text()).slice(0, 200)}`,
      );
      return EXIT.FAILED;
    }
  }
  const q = positionals[0];
  if (q === undefined) {
    io.out(`${base}/`);
    return EXIT.OK;
  }
  const hits = (await new CairnClient(base).search({ q })).results;
  const route = (h: (typeof hits)[number]): string =>
    ({
      address: `address/${h.id}`,
      block: `block/${h.height ?? h.id}`,
      transaction: `tx/${h.id}`,
      token: `token/${h.id}`,
      name: `name/${h.name ?? h.id}`,
    })[h.kind];
  io.out(hits.length === 1 ? `${base}/#/${route(hits[0])}` : `${base}/#/search/${encodeURIComponent(q)}`);
  if (hits.length === 0) io.err(`cairn: nothing on this node matches ${q}`);
  return hits.length === 0 ? EXIT.FAILED : EXIT.OK;
}

async function cmdAccount(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('account', args, { node: { type: 'string' } }, 1);
  if (values.help) return help(io, 'account');
  if (positionals[0] === undefined) return usage('missing address: cairn account <address>');
  const address = parseAddressArg('<address>', positionals[0]) as `0x${string}`;
  const acct = await new CairnClient(nodeUrl(values, io.env)).account(address);
  io.out(
    json(
      acct
        ? { exists: true, ...acct }
        : { exists: false, address, native: toNative(address), balance: '0', staked: '0', nonce: 0, nextNonce: 0 },
    ),
  );
  return EXIT.OK;
}

async function cmdNode(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(configHelp());
    return EXIT.OK;
  }
  const config = loadConfig(args, io.env);
  // Loaded lazily so that wallet commands do not pay for the node's dependencies.
  const { startNode } = await import('../node/node');
  const node = await startNode(config);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        io.err(`${signal} again: exiting without a clean shutdown`);
        process.exit(1);
      }
      stopping = true;
      io.err(`${signal}: stopping (send it again to exit immediately)`);
      node.stop().then(
        () => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          resolve(EXIT.OK);
        },
        (e: unknown) => {
          io.err(`shutdown failed: ${(e as Error)?.stack ?? String(e)}`);
          resolve(EXIT.FAILED);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // A node that stops by itself (a supervision escalation, a storage failure) is a failure exit.
    void node.stopped.then(() => {
      if (stopping) return;
      io.err(`cairn: the node stopped: ${node.failure ?? 'see the log above'}`);
      resolve(EXIT.FAILED);
    });
  });
}

function help(io: CliIo, key: string): number {
  io.out(HELP[key]);
  return EXIT.OK;
}

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  keygen: cmdKeygen,
  address: cmdAddress,
  status: cmdStatus,
  explorer: cmdExplorer,
  account: cmdAccount,
  node: cmdNode,
  'tx sign': cmdTxSign,
  'tx send': cmdTxSend,
  'tx wait': cmdTxWait,
  ...GROUP_COMMANDS,
  ...GENESIS_COMMANDS,
  devnet: cmdDevnet,
};

/** Commands with sub-commands: `cairn <group> <sub>`. */
const GROUPS: Record<string, readonly string[]> = {
  tx: ['sign', 'send', 'wait'],
  ...COMMAND_GROUPS,
  genesis: GENESIS_SUBS,
};

const orList = (xs: string[]): string =>
  xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;

/** Runs one CLI invocation; returns the exit code (see EXIT). Never calls process.exit except for `node` signals. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      io.out(MAIN_HELP);
      return first === undefined ? EXIT.USAGE : EXIT.OK;
    }
    let name = first;
    let args = rest;
    if (Object.hasOwn(GROUPS, first)) {
      const sub = rest[0];
      if (sub === undefined || sub === '--help' || sub === '-h') {
        io.out(HELP[first]);
        return sub === undefined ? EXIT.USAGE : EXIT.OK;
      }
      name = `${first} ${sub}`;
      args = rest.slice(1);
      if (!Object.hasOwn(COMMANDS, name))
        usage(`unknown command "${name}"; expected ${orList(GROUPS[first].map((x) => `${first} ${x}`))}`);
    }
    const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!cmd) return usage(`unknown command "${first}"; run "cairn --help" for the list`);
    return await cmd(args, io);
  } catch (e) {
    if (isCairnError(e)) {
      if (e.code === 'USAGE' || e.code === 'CONFIG') {
        io.err(`cairn: ${e.message}`);
        return EXIT.USAGE;
      }
      io.err(`cairn: ${e.message}${e.code.startsWith('HTTP_') ? ` (${e.code.slice(5)})` : ''}`);
      return EXIT.FAILED;
    }
    io.err(`cairn: ${(e as Error)?.stack ?? String(e)}`);
    return EXIT.FAILED;
  }
}

/** Runs with the real process; the `node` command ends the process itself once stopped. */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), {
    out: (s) => process.stdout.write(s + '\n'),
    err: (s) => process.stderr.write(s + '\n'),
    env: process.env,
    protectOut: () => {
      if (fstatSync(1).isFile()) fchmodSync(1, 0o600);
    },
  });
  // A stopped node may leave unref'd-but-open handles behind; wallet commands end naturally.
  if (process.argv[2] === 'node') process.exit(code);
  process.exitCode = code;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) void main();
