import { parseArgs } from 'node:util';
import { encodeTx, signTx } from '../chain/envelope';
import type { HybridTx, TxType } from '../protocol/types';
import { parseAddress } from '../crypto/address';
import type { HybridKeys } from '../crypto/keys';
import { CairnError, isCairnError } from '../errors/CairnError';
import { fromHex, isHex, type Hex } from '../primitives/hex';
import type { Network } from '../protocol/network';
import { CHAIN_ID } from '../protocol/params';
import { inBlock, type CairnClient, type TxRecord, type WaitOutcome, type WaitResult } from '../sdk/client';

/**
 * What the CLI commands share: option parsing, value checks, signing and the
 * submit → verdict → wait flow with its exit codes. main.ts (tx, keys, node) and
 * assets.ts (token, nft, name) both build on these.
 */

/** Where the CLI writes; tests pass collectors, the entry point passes process streams. */
export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
  /**
   * Makes standard output, where it is a regular file (`cairn keygen > key.json`), readable by its owner only;
   * absent where output is not the process's own (tests).
   */
  protectOut?(): void;
}

/**
 * Exit codes. A timeout is UNKNOWN (3), never FAILED: the transaction may still land,
 * so confirm it by id before resending.
 */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, UNKNOWN: 3 } as const;

export const DEFAULT_NODE = 'http://127.0.0.1:6070';
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;
export const DEFAULT_POLL_MS = 500;
/** Connection errors after which the request certainly never reached the node. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Bad invocation: message to stderr, exit 2. */
export function usage(message: string): never {
  throw new CairnError('USAGE', message);
}

export type Flags = Record<string, string | boolean | undefined>;
export type OptionDefs = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** Strict parseArgs plus --help/-h; at most `maxPositionals` positionals. */
export function parse(
  cmd: string,
  args: string[],
  options: OptionDefs,
  maxPositionals: number,
): { values: Flags; positionals: string[] } {
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    return usage(`${(e as Error).message}\nRun "cairn ${cmd} --help" for the options.`);
  }
  if (!parsed.values.help && parsed.positionals.length > maxPositionals)
    usage(`unexpected argument "${parsed.positionals[maxPositionals]}" for "cairn ${cmd}"`);
  return parsed;
}

export const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

export const json = (v: unknown): string => JSON.stringify(v, null, 2);

/** A master secret from 64 hex characters, with or without 0x. */
export function parseSecret(flag: string | undefined, env: NodeJS.ProcessEnv): Uint8Array {
  const raw = flag ?? env.CAIRN_SECRET;
  if (raw === undefined || raw === '') return usage('a secret is required: pass --secret <hex> or set $CAIRN_SECRET');
  const src = flag !== undefined ? '--secret' : '$CAIRN_SECRET';
  const h = raw.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(h)) usage(`${src} must be 32 bytes as 64 hex characters`);
  return fromHex(h);
}

export function parseNonNegInt(name: string, s: string): number {
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(Number(s))) usage(`${name} must be a non-negative integer, got "${s}"`);
  return Number(s);
}

export function parsePositiveInt(name: string, s: string): number {
  const n = parseNonNegInt(name, s);
  if (n === 0) usage(`${name} must be positive`);
  return n;
}

export function parseLevel(name: string, s: string | undefined): 'included' | 'finalized' | undefined {
  if (s === undefined) return undefined;
  if (s !== 'included' && s !== 'finalized') usage(`${name} must be "included" or "finalized", got "${s}"`);
  return s as 'included' | 'finalized';
}

export function parseAddressArg(name: string, s: string): `0x${string}` {
  const a = parseAddress(s);
  if (a === undefined) return usage(`${name} is not a valid address (0x + 40 hex, or cairn1…): "${s}"`);
  return a;
}

/** The node URL from --node, $CAIRN_NODE or the default; must be http(s). */
export function nodeUrl(values: Flags, env: NodeJS.ProcessEnv): string {
  const flag = str(values.node);
  const url = flag ?? (env.CAIRN_NODE || DEFAULT_NODE);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    usage(`${flag !== undefined ? '--node' : '$CAIRN_NODE'} must be an http(s) URL, got "${url}"`);
  return url;
}

/** The fields a command signs (CLI side: already checked, amounts as strings). */
export interface CliTxFields {
  type: TxType;
  to?: string | null;
  amount?: string;
  nonce?: number;
  fee?: string;
  timestamp?: number;
  data?: unknown;
}

/**
 * The chain to sign for (a hybrid signature covers its genesis hash): --genesis-hash (with
 * --chain-id, default the development network's ${CHAIN_ID}) to sign offline, else the node's
 * GET /status.
 */
export const NETWORK_OPTIONS: OptionDefs = {
  node: { type: 'string' },
  'genesis-hash': { type: 'string' },
  'chain-id': { type: 'string' },
};

export const NETWORK_HELP = `  --genesis-hash <0x…> the chain's genesis hash (GET /status genesisHash): sign
                       without asking the node; otherwise the node (--node) is asked
  --chain-id <n>       with --genesis-hash: the chain's id (default ${CHAIN_ID})`;

export async function networkOf(values: Flags, client: () => CairnClient): Promise<Network> {
  const hash = str(values['genesis-hash']);
  const id = str(values['chain-id']);
  if (hash === undefined) {
    if (id !== undefined) usage('--chain-id goes with --genesis-hash (without them the node is asked for both)');
    return client().network();
  }
  if (!isHex(hash, 32)) usage(`--genesis-hash must be 0x and 64 hex digits (GET /status genesisHash), got "${hash}"`);
  const chainId = id === undefined ? CHAIN_ID : Number(id);
  if (!/^[1-9][0-9]*$/.test(id ?? '1') || !Number.isSafeInteger(chainId))
    usage(`--chain-id must be a positive integer, got "${id}"`);
  return { chainId, genesisHash: hash.toLowerCase() as Hex };
}

export function sign(keys: HybridKeys, f: CliTxFields, nonce: number, network: Network): HybridTx {
  try {
    return signTx(
      keys,
      {
        type: f.type,
        nonce,
        ...(f.to !== undefined ? { to: f.to } : {}),
        ...(f.amount !== undefined ? { amount: f.amount } : {}),
        ...(f.fee !== undefined ? { fee: f.fee } : {}),
        ...(f.timestamp !== undefined ? { timestamp: f.timestamp } : {}),
        ...(f.data !== undefined ? { data: f.data } : {}),
      },
      network,
    );
  } catch (e) {
    // The envelope refuses what it cannot sign (e.g. oversized data): an input problem.
    return usage(`cannot sign: ${(e as Error).message}`);
  }
}

export function exitCodeFor(outcome: WaitOutcome): number {
  if (inBlock(outcome)) return EXIT.OK;
  if (outcome === 'unknown') return EXIT.UNKNOWN;
  return EXIT.FAILED;
}

/** The printed summary of a wait: the outcome and, when known, where it landed. */
export function formatWait(id: string, w: WaitResult): Record<string, unknown> {
  const r = w.record;
  const out: Record<string, unknown> = { id, outcome: w.outcome };
  if (r?.blockHeight !== undefined && w.outcome !== 'dropped' && w.outcome !== 'unknown')
    out.blockHeight = r.blockHeight;
  if (r?.blockHash !== undefined && w.outcome !== 'dropped' && w.outcome !== 'unknown') out.blockHash = r.blockHash;
  if (w.outcome === 'failed' && r?.result?.error) out.reason = r.result.error;
  if (w.outcome === 'dropped' && r?.reason) out.reason = r.reason;
  if (w.outcome === 'unknown') {
    out.lastStatus = r?.status ?? 'not found';
    out.note = 'timed out: the transaction may still land; wait again before resending';
  }
  return out;
}

/** --wait / --timeout / --poll of a sending command. */
export interface WaitFlags {
  until?: 'included' | 'finalized';
  timeoutMs: number;
  pollMs: number;
}

export const SEND_OPTIONS: OptionDefs = {
  node: { type: 'string' },
  wait: { type: 'string' },
  timeout: { type: 'string' },
  poll: { type: 'string' },
};

export function parseWaitFlags(values: Flags): WaitFlags {
  const until = parseLevel('--wait', str(values.wait));
  const timeoutMs =
    str(values.timeout) !== undefined ? parsePositiveInt('--timeout', str(values.timeout)!) : DEFAULT_WAIT_TIMEOUT_MS;
  const pollMs = str(values.poll) !== undefined ? parsePositiveInt('--poll', str(values.poll)!) : DEFAULT_POLL_MS;
  if (until === undefined && (values.timeout !== undefined || values.poll !== undefined))
    usage('--timeout and --poll only apply with --wait');
  return { until, timeoutMs, pollMs };
}

/**
 * POST /tx, print the verdict (merged with `extra`, e.g. a created token's id) and, with
 * `wait.until`, wait and print the outcome (plus what `fromRecord` reads from the
 * record of a successful transaction). Returns the exit code: 0 accepted (and
 * included/finalized), 1 refused/failed/dropped, 3 unknown (a lost answer or a timeout).
 */
export async function submitAndReport(
  io: CliIo,
  client: CairnClient,
  tx: HybridTx,
  wait: WaitFlags,
  extra: Record<string, unknown> = {},
  fromRecord?: (record: TxRecord | null) => Record<string, unknown>,
  /** Printed on stderr once the node accepted the transaction. */
  acceptedNote?: string,
): Promise<number> {
  let verdict: Awaited<ReturnType<CairnClient['submit']>>;
  try {
    verdict = await client.submit(tx);
  } catch (e) {
    // Refused or unresolvable connection: nothing reached the node, a plain error.
    if (isCairnError(e) && typeof e.meta.errno === 'string' && NOT_SENT.has(e.meta.errno)) throw e;
    // Otherwise the request may have reached the node before the answer was lost.
    if (isCairnError(e) && (e.code === 'NETWORK' || e.code === 'TIMEOUT')) {
      io.out(json({ accepted: null, id: tx.id, ...extra, outcome: 'unknown', error: e.message }));
      io.err(`submission outcome unknown: check with "cairn tx wait ${tx.id}" before resending`);
      return EXIT.UNKNOWN;
    }
    throw e;
  }
  if (!verdict.accepted) {
    io.out(json({ ...verdict, ...extra }));
    return EXIT.FAILED;
  }
  if (acceptedNote) io.err(acceptedNote);
  if (wait.until === undefined) {
    io.out(json({ ...verdict, ...extra }));
    return EXIT.OK;
  }
  const w = await client.waitFor(tx.id, { until: wait.until, timeoutMs: wait.timeoutMs, pollMs: wait.pollMs });
  const learned = fromRecord && inBlock(w.outcome) ? fromRecord(w.record) : {};
  io.out(json({ ...verdict, ...extra, ...formatWait(tx.id, w), ...learned }));
  return exitCodeFor(w.outcome);
}

/** Prints a signed envelope: one line of JSON, ready to POST to /tx. */
export const printEnvelope = (io: CliIo, tx: HybridTx): void => io.out(encodeTx(tx));
