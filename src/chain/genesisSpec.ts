import { parseAddress } from '../crypto/address';
import { keccakHex } from '../crypto/hash';
import { CairnError } from '../errors/CairnError';
import { fromHex, type Hex } from '../primitives/hex';
import { genesisParams, paramRefusal } from '../protocol/governable';
import { CHAIN_ID, MAX_CHAIN_ID } from '../protocol/params';
import type { Address } from '../protocol/types';
import type { GenesisAccount, GenesisSpec } from './genesis';

/**
 * The chain specification a node starts from (`cairn node --genesis <file>`, documented by
 * `cairn genesis --help`): checked whole before anything is written, each refusal naming
 * the JSON path it is about. The result is normalised (0x lower-case addresses, canonical
 * integer strings, derived ML-DSA key hashes), so two files that mean the same chain
 * compare equal.
 */

export class GenesisSpecError extends CairnError<'GENESIS_SPEC'> {
  constructor(path: string, message: string) {
    super('GENESIS_SPEC', `${path}: ${message}`, { path });
  }
}

const SECP_PUBLIC_BYTES = 65; // uncompressed, as transactions carry it
const MLDSA44_PUBLIC_BYTES = 1312;
const MAX_ACCOUNTS = 100_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKeys(path: string, v: Record<string, unknown>, known: readonly string[]): void {
  // A misspelt key would otherwise be ignored and the default used without a word.
  for (const k of Object.keys(v))
    if (!known.includes(k)) throw new GenesisSpecError(`${path}.${k}`, `unknown key (known: ${known.join(', ')})`);
}

function coins(path: string, v: unknown, optional: boolean): string | undefined {
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || !/^(0|[1-9][0-9]{0,77})$/.test(v))
    throw new GenesisSpecError(
      path,
      `must be an integer string of base units (1 coin = 1000000), got ${JSON.stringify(v)}`,
    );
  return v;
}

function publicKey(path: string, v: unknown, bytes: number): Hex {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v) || fromHex(v).length !== bytes)
    throw new GenesisSpecError(path, `must be 0x + ${bytes * 2} hex (a ${bytes}-byte public key)`);
  return v.toLowerCase() as Hex;
}

function account(path: string, v: unknown): GenesisAccount {
  if (!isObject(v))
    throw new GenesisSpecError(
      path,
      'must be an object {address, balance, staked?, isValidator?, signingKeys?, commissionBps?, feeExempt?}',
    );
  // mldsaKeyHash is derived; accepted when it says the same, so a normalised specification reads back as itself.
  onlyKeys(path, v, [
    'address',
    'balance',
    'staked',
    'feeExempt',
    'isValidator',
    'signingKeys',
    'commissionBps',
    'mldsaKeyHash',
  ]);
  const address = typeof v.address === 'string' ? parseAddress(v.address) : undefined;
  if (!address)
    throw new GenesisSpecError(
      `${path}.address`,
      `must be an address (0x + 40 hex, or cairn1…), got ${JSON.stringify(v.address)}`,
    );
  const out: GenesisAccount = { address, balance: coins(`${path}.balance`, v.balance, false)! };
  const staked = coins(`${path}.staked`, v.staked, true);
  if (staked !== undefined && staked !== '0') out.staked = staked;
  for (const flag of ['feeExempt', 'isValidator'] as const) {
    if (v[flag] === undefined) continue;
    if (typeof v[flag] !== 'boolean') throw new GenesisSpecError(`${path}.${flag}`, 'must be true or false');
    if (v[flag]) out[flag] = true;
  }
  if (v.commissionBps !== undefined) {
    if (!Number.isInteger(v.commissionBps) || (v.commissionBps as number) < 0 || (v.commissionBps as number) > 10_000)
      throw new GenesisSpecError(`${path}.commissionBps`, 'must be an integer from 0 to 10000 (basis points)');
    if (!out.isValidator)
      throw new GenesisSpecError(`${path}.commissionBps`, 'applies to validators only (isValidator: true)');
    out.commissionBps = v.commissionBps as number;
  }
  if (v.signingKeys !== undefined && !out.isValidator)
    throw new GenesisSpecError(`${path}.signingKeys`, 'applies to validators only (isValidator: true)');
  if (out.isValidator) {
    const k = v.signingKeys;
    if (!isObject(k))
      throw new GenesisSpecError(
        `${path}.signingKeys`,
        'a validator needs {secp256k1, mldsa44}: the public keys it signs blocks with ("cairn keygen" prints them)',
      );
    onlyKeys(`${path}.signingKeys`, k, ['secp256k1', 'mldsa44']);
    const keys = {
      secp256k1: publicKey(`${path}.signingKeys.secp256k1`, k.secp256k1, SECP_PUBLIC_BYTES),
      mldsa44: publicKey(`${path}.signingKeys.mldsa44`, k.mldsa44, MLDSA44_PUBLIC_BYTES),
    };
    out.signingKeys = keys;
    // The account's ML-DSA key is bound from genesis: nobody can claim it with another key first.
    out.mldsaKeyHash = keccakHex(fromHex(keys.mldsa44));
  }
  if (v.mldsaKeyHash !== undefined && v.mldsaKeyHash !== out.mldsaKeyHash)
    throw new GenesisSpecError(
      `${path}.mldsaKeyHash`,
      'must be keccak256 of signingKeys.mldsa44 (or be left out: it is derived)',
    );
  return out;
}

/** Checks and normalises a chain specification. Throws GenesisSpecError naming the path. */
export function parseGenesisSpec(v: unknown): GenesisSpec {
  if (!isObject(v)) throw new GenesisSpecError('$', 'must be a JSON object {chainId, timestamp, accounts, params?}');
  onlyKeys('$', v, ['chainId', 'timestamp', 'accounts', 'params']);
  const chainId = v.chainId;
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId < 1 || chainId > MAX_CHAIN_ID) {
    throw new GenesisSpecError(
      '$.chainId',
      `must be an integer from 1 to ${MAX_CHAIN_ID} ` +
        `(the development network's is ${CHAIN_ID}; a network of its own takes its own), ` +
        `got ${JSON.stringify(chainId)}`,
    );
  }
  if (!Number.isSafeInteger(v.timestamp) || (v.timestamp as number) <= 0)
    throw new GenesisSpecError('$.timestamp', "must be a positive integer (ms since 1970), the genesis block's time");
  const params: Record<string, string> = {};
  if (v.params !== undefined) {
    if (!isObject(v.params))
      throw new GenesisSpecError(
        '$.params',
        'must be an object of parameter name → integer string (see GET /governance)',
      );
    for (const [name, value] of Object.entries(v.params)) {
      const why = paramRefusal(name, typeof value === 'string' ? value : JSON.stringify(value));
      if (why !== undefined || typeof value !== 'string')
        throw new GenesisSpecError(`$.params.${name}`, why ?? 'must be an integer string');
      params[name] = BigInt(value).toString();
    }
  }
  if (!Array.isArray(v.accounts) || v.accounts.length === 0 || v.accounts.length > MAX_ACCOUNTS)
    throw new GenesisSpecError('$.accounts', `must be an array of 1 to ${MAX_ACCOUNTS} accounts`);
  const accounts = v.accounts.map((a, i) => account(`$.accounts[${i}]`, a));
  const seen = new Map<Address, number>();
  accounts.forEach((a, i) => {
    if (seen.has(a.address))
      throw new GenesisSpecError(
        `$.accounts[${i}].address`,
        `${a.address} is already $.accounts[${seen.get(a.address)}]`,
      );
    seen.set(a.address, i);
  });
  const p = genesisParams(params).values;
  const validators = accounts.filter((a) => a.isValidator);
  if (validators.length === 0)
    throw new GenesisSpecError(
      '$.accounts',
      'needs at least one validator (isValidator: true, with signingKeys and MIN_CANDIDATE_STAKE of staked coins)',
    );
  if (BigInt(validators.length) > BigInt(p.MAX_VALIDATORS))
    throw new GenesisSpecError(
      '$.accounts',
      `has ${validators.length} validators but MAX_VALIDATORS is ${p.MAX_VALIDATORS}`,
    );
  accounts.forEach((a, i) => {
    if (a.isValidator && BigInt(a.staked ?? '0') < BigInt(p.MIN_CANDIDATE_STAKE)) {
      throw new GenesisSpecError(
        `$.accounts[${i}].staked`,
        `a validator needs at least ${p.MIN_CANDIDATE_STAKE} base units staked (MIN_CANDIDATE_STAKE)`,
      );
    }
  });
  return { chainId, timestamp: v.timestamp as number, accounts, ...(Object.keys(params).length ? { params } : {}) };
}

/** Parses a chain specification file's text. */
export function parseGenesisText(text: string): GenesisSpec {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new GenesisSpecError('$', `not valid JSON: ${(e as Error).message}`);
  }
  return parseGenesisSpec(json);
}
