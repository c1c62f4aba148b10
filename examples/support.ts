/**
 * What the example programs (oracle.ts, relayer.ts) share: a state file replaced atomically,
 * retries that honour 429 Retry-After and 503, and "send, then wait for inclusion" with every
 * outcome logged rather than thrown.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { deriveKeys, inBlock, retrying, type CairnClient, type HybridKeys } from '../src/sdk';
import { fromHex } from '../src/primitives/hex';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const loadState = <T>(file: string, fresh: T): T =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : fresh;

/** The state file is replaced atomically: a crash leaves the old one or the new one. */
export function saveState(file: string, state: unknown): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

/**
 * The SDK's `retrying` (429 Retry-After, 503, transport errors), logging each wait; `signal` ends it (a stopped program
 * does not retry forever).
 */
export const retryingLogged = <T>(f: () => Promise<T>, log: (m: string) => void, signal?: AbortSignal): Promise<T> =>
  retrying(f, { signal, onRetry: ({ code, waitMs }) => log(`${code}: waiting ${waitMs} ms`) });

/** Sends a transaction and waits for its inclusion: true when it succeeded; a refusal or failure is logged. */
export async function sendIncluded(
  client: CairnClient,
  keys: HybridKeys,
  input: Parameters<CairnClient['sendTx']>[1],
  what: string,
  log: (m: string) => void,
): Promise<boolean> {
  const r = await client.sendTx(keys, input, { wait: 'included', timeoutMs: 30_000, pollMs: 100 });
  if (!r.verdict.accepted) return (log(`${what}: refused: ${r.verdict.reason}`), false);
  const res = r.wait?.record?.result;
  if (!inBlock(r.wait?.outcome) || res?.status !== 'success')
    return (log(`${what}: ${r.wait?.outcome} ${res?.error ?? ''}`), false);
  log(`${what}: included`);
  return true;
}

/** `--name value` from the command line. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Keys from a JSON file {"secret": "<64 hex>"} (`cairn keygen > key.json` writes one). */
export const keysFromFile = (file: string): HybridKeys =>
  deriveKeys(fromHex((JSON.parse(readFileSync(file, 'utf8')) as { secret: string }).secret));
