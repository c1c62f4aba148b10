import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { devAccountFile } from '../chain/devnet';
import { applyGenesis } from '../chain/genesis';
import type { Head } from '../protocol/chain';
import { TREASURY_ADDRESS } from '../protocol/params';
import { StateTrie } from '../state/stateTrie';
import type { ChainStore } from '../storage/chainStore';
import { devGenesis, devValidatorSecret, type DevAccount } from '../chain/devnet';
import type { GenesisSpec } from '../chain/genesis';
import { GenesisSpecError, parseGenesisText } from '../chain/genesisSpec';
import { deriveKeys, DEV_SEED, type HybridKeys } from '../crypto/keys';
import { CairnError } from '../errors/CairnError';
import { canonicalJson } from '../primitives/canonical';
import { fromHex, toHex } from '../primitives/hex';
import { getCandidate } from '../modules/staking';
import type { ExecState } from '../protocol/execState';
import type { Address } from '../protocol/types';
import type { NodeConfig } from '../config/config';
import { readSecretFile } from '../config/secretFile';

/**
 * Where a node's chain comes from: the chain specification of --genesis, or the development
 * network (which also hands out its keys); and the key this node signs blocks with, checked
 * against the chain.
 */

export type GenesisSource =
  | { kind: 'file'; file: string; spec: GenesisSpec }
  | { kind: 'dev'; spec: GenesisSpec; accounts: DevAccount[]; validator: HybridKeys };

const configError = (message: string, meta: Record<string, unknown>, cause?: unknown) =>
  new CairnError('CONFIG', message, meta, { cause });

async function readText(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw configError(`${flag}: cannot read ${file}: ${(e as Error).message}`, { file }, e);
  }
}

export async function genesisSource(config: NodeConfig): Promise<GenesisSource> {
  if (config.genesisFile === null) {
    const dev = devGenesis(config.devAccounts);
    return { kind: 'dev', spec: dev.spec, accounts: dev.accounts, validator: dev.validator };
  }
  const text = await readText('--genesis', config.genesisFile);
  let spec: GenesisSpec;
  try {
    spec = parseGenesisText(text);
  } catch (e) {
    if (e instanceof GenesisSpecError)
      throw configError(
        `--genesis ${config.genesisFile}: ${e.message}`,
        { file: config.genesisFile, path: e.meta.path },
        e,
      );
    throw e;
  }
  const published = publishedValidators(spec);
  if (published.length > 0 && !config.allowDevValidator) {
    throw configError(
      `--genesis ${config.genesisFile}: validator ${published.join(', ')} signs with a published development ` +
        `key (derived from the public development seed: anyone can sign its blocks). ` +
        'Put your own validators in the specification ("cairn genesis validator"), or pass ' +
        '--allow-dev-validator for a local test network',
      { file: config.genesisFile, validators: published },
    );
  }
  return { kind: 'file', file: config.genesisFile, spec };
}

/**
 * The specification's validators whose key is a published development key (`cairn node`'s
 * and `cairn devnet`'s: <DEV_SEED>/validator/<i>, one per validator the spec has at most).
 */
function publishedValidators(spec: GenesisSpec): string[] {
  const validators = new Set(spec.accounts.filter((a) => a.isValidator).map((a) => a.address));
  const published = new Set(
    Array.from({ length: validators.size }, (_, i) => deriveKeys(devValidatorSecret(DEV_SEED, i)).address),
  );
  return [...validators].filter((a) => published.has(a));
}

/**
 * Refuses to run a data directory's chain under a different specification: the store keeps
 * the one it was created from, and a --genesis file must say the same (normalised) thing.
 */
export function checkSameGenesis(source: GenesisSource, stored: GenesisSpec | undefined, dataDir: string): void {
  if (source.kind !== 'file') return; // without --genesis the node runs whatever chain the directory holds
  if (stored !== undefined && canonicalJson(stored) === canonicalJson(source.spec)) return;
  throw configError(
    `--genesis ${source.file} is not the chain specification the chain in ${dataDir} was created from; start ` +
      `with that file, without --genesis, or with an empty --data-dir`,
    { file: source.file, dataDir },
  );
}

/**
 * The block-signing key: a file with the 64-hex master secret, or dev-validators.json's shape ([{secret}] or {secret}).
 */
export async function validatorKeys(config: NodeConfig): Promise<HybridKeys> {
  if (config.validatorKey === null) return devGenesis(0).validator;
  const file = config.validatorKey;
  const text = readSecretFile('--validator-key', file, config.allowInsecureKeyFile).trim();
  let secret: unknown = text;
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      const json = JSON.parse(text) as unknown;
      const entry = Array.isArray(json) && json.length === 1 ? json[0] : json;
      secret = (entry as { secret?: unknown } | null)?.secret;
    } catch (e) {
      throw configError(`--validator-key ${file}: not valid JSON: ${(e as Error).message}`, { file }, e);
    }
  }
  const hex = typeof secret === 'string' ? secret.replace(/^0x/i, '') : '';
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw configError(
      `--validator-key ${file}: must hold a 32-byte master secret as 64 hex, or {"secret": …} as in ` +
        `dev-validators.json`,
      { file },
    );
  return deriveKeys(fromHex(hex));
}

/**
 * The store's head: the genesis block is created on an empty store (the chain specification of
 * --genesis, or the development network, whose keys go to dev-accounts.json and
 * dev-validators.json), a reopened store must hold the chain of --genesis; a genesis time after
 * `now` is warned of (the first block comes after it).
 */
export async function ensureGenesis(
  store: ChainStore,
  config: NodeConfig,
  log: Logger,
  now: () => number = Date.now,
): Promise<Head> {
  const head = await openOrCreate(store, config, log);
  if (head.height === 0 && head.timestamp > now()) {
    log.warn(
      { genesisTime: new Date(head.timestamp).toISOString() },
      'the genesis time is in the future: the first block comes after it',
    );
  }
  return head;
}

/** Writes the genesis block of `spec` (its state, block, indexes and the spec itself) into an empty store. */
export async function writeGenesis(store: ChainStore, spec: GenesisSpec): Promise<Head> {
  const state = await StateTrie.open(store.kv, null);
  const block = await applyGenesis(state, spec);
  const batch = store.kv.batch();
  const stateRoot = await state.flush(batch);
  const head: Head = {
    height: 0,
    hash: block.header.hash,
    stateRoot,
    finalizedHeight: 0,
    timestamp: block.header.timestamp,
  };
  const addrs = [...spec.accounts.map((a) => a.address), TREASURY_ADDRESS];
  store.putBlock(batch, block, head, addrs);
  store.putGenesisSpec(batch, spec);
  await store.kv.write(batch);
  state.settle();
  return head;
}

async function openOrCreate(store: ChainStore, config: NodeConfig, log: Logger): Promise<Head> {
  const source = await genesisSource(config);
  const existing = await store.head();
  if (existing) {
    checkSameGenesis(source, await store.genesisSpec(), config.dataDir);
    return existing;
  }
  const { spec } = source;
  const head = await writeGenesis(store, spec);
  if (source.kind === 'file') {
    log.info(
      {
        hash: head.hash,
        stateRoot: head.stateRoot,
        file: source.file,
        accounts: spec.accounts.length,
        validators: spec.accounts.filter((a) => a.isValidator).length,
      },
      'genesis created from the chain specification',
    );
    return head;
  }
  const dev = { accounts: source.accounts, validator: source.validator };
  // The development keys, so a developer can act as any account and as the validator locally.
  for (const [name, content] of [
    ['dev-accounts.json', dev.accounts],
    ['dev-validators.json', [devAccountFile(dev.validator)]],
  ] as const) {
    const file = join(config.dataDir, name);
    try {
      await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    } catch (e) {
      throw new CairnError(
        'STORAGE_WRITE',
        `cannot write ${file}: ${(e as Error).message}`,
        { dir: config.dataDir },
        { cause: e },
      );
    }
  }
  log.info(
    { hash: head.hash, stateRoot: head.stateRoot, accounts: dev.accounts.length },
    'genesis created (development network)',
  );
  return head;
}

/**
 * This node's block-signing key against the chain at its head (`state`, whose set in force is
 * `validators`): a key outside the set follows the chain (warned: an exchange's or an
 * indexer's node, or a candidate not elected yet; it produces once elected); a key whose
 * validator bound other block-signing keys is refused.
 */
export async function checkValidatorKey(
  state: ExecState,
  validators: readonly Address[],
  keys: HybridKeys,
  config: NodeConfig,
  log: Logger,
): Promise<void> {
  if (!validators.includes(keys.address)) {
    const hint = config.validatorKey === null ? " (no --validator-key: the development validator's key)" : '';
    log.warn(
      { key: keys.address, validators },
      `this node's key is not in the active set${hint}: it follows the chain and produces only if elected`,
    );
  }
  const bound = (await getCandidate(state, keys.address))?.signingKeys;
  if (
    bound &&
    (bound.secp256k1 !== toHex(keys.secp256k1.publicKey) || bound.mldsa44 !== toHex(keys.mldsa44.publicKey))
  ) {
    throw new CairnError(
      'CONFIG',
      `validator ${keys.address} has bound other block-signing keys than this node's key ` +
        `(signingKeys ${bound.secp256k1.slice(0, 12)}…)`,
    );
  }
}
