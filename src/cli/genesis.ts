import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DEV_PARAMS, devGenesis } from '../chain/devnet';
import { GenesisSpecError, parseGenesisText } from '../chain/genesisSpec';
import { deriveKeys } from '../crypto/keys';
import { COIN } from '../primitives/amount';
import { toHex } from '../primitives/hex';
import { genesisParams, PARAM_NAMES, PARAMS } from '../protocol/governable';
import { CHAIN_ID, MAX_CHAIN_ID } from '../protocol/params';
import { wrap } from './commands/help';
import { EXIT, json, parse, parseNonNegInt, parseSecret, str, usage, type CliIo } from './common';

/**
 * `cairn genesis template|validator|check`: write and check the chain specification that
 * `cairn node --genesis <file>` starts an empty data directory from.
 */

const paramLines = PARAM_NAMES.map(
  (n) => `    ${n.padEnd(24)} ${PARAMS[n].default} (${PARAMS[n].min}..${PARAMS[n].max} ${PARAMS[n].unit})`,
).join('\n');

/** The development network's windows, for the help of `cairn genesis`. */
const devWindows = wrap(
  '',
  [
    ..."The development network's short windows (every lifecycle within a minute or two of blocks):".split(' '),
    ...Object.entries(DEV_PARAMS).map(([k, v], i, all) => `${k} ${v}${i < all.length - 1 ? ',' : '.'}`),
  ],
  '',
  88,
);

export const GENESIS_HELP: Record<string, string> = {
  genesis: `Usage: cairn genesis <sub> [options]

The chain specification: the JSON file "cairn node --genesis <file>" starts an empty
data directory from. A data directory keeps the specification it was created from and
refuses another one; without --genesis a node runs the development network.

  genesis template     print a specification to edit: a fresh chain id, the
                       development accounts, no validators yet
  genesis validator    print a validator's entry for "accounts" from its secret
  genesis check <file> check a specification; print its supply, validators, parameters

The file is one JSON object:
  chainId      the network's id, 1..${MAX_CHAIN_ID}: its EIP-155 chain id (eth_chainId)
               and part of what every transaction signs. The development network's
               is ${CHAIN_ID}; give every other network its own (see docs/VALIDATOR.md)
  timestamp    the genesis block's time, ms since 1970
  accounts     array of:
    address        0x + 40 hex, or cairn1…
    balance        liquid coins, an integer string of base units (1 coin = 1000000)
    staked         staked coins (default "0"); a validator needs MIN_CANDIDATE_STAKE
    isValidator    true: in the first active set and a candidate from the start (at
                   least one; at most MAX_VALIDATORS)
    signingKeys    a validator's {secp256k1, mldsa44} public keys, 0x hex: the keys its
                   node signs blocks with ("cairn genesis validator" prints them)
    commissionBps  a validator's commission, 0..10000 (default 1000)
    feeExempt      true: the account burns no fees
  params       governable parameters, name → integer string; absent ones take the
               default. Name, default (bounds):
${paramLines}

${devWindows}

Unknown keys, duplicate addresses and values out of bounds are refused with the JSON
path they are about. Run "cairn genesis <sub> --help" for details.`,

  'genesis template': `Usage: cairn genesis template [--dev-accounts <n>] [--chain-id <n>]

Prints a chain specification to edit: a fresh random chain id (Ethereum transactions
are bound to a network by their chain id alone, so a network needs its own), <n>
development accounts of 10,000,000 coins (default 10; their keys are published: replace
them) and the development network's short windows. It has no validators yet: add each
one's entry from "cairn genesis validator" to "accounts".

  --chain-id <n>       the chain id, 1..${MAX_CHAIN_ID} (default: a random one)

Example:
  cairn genesis template --dev-accounts 2 > genesis.json
  cairn genesis validator --secret $(jq -r .secret v1.json) > v1-entry.json
  jq --slurpfile v v1-entry.json '.accounts += $v' genesis.json > genesis.tmp && mv genesis.tmp genesis.json`,

  'genesis validator':
    `Usage: cairn genesis validator [--secret <hex>] ` +
    `[--stake <n>] [--balance <n>] [--commission <bps>]

Prints one validator's entry for the "accounts" array: its address, its stake and the
public keys its node signs blocks with, derived from the master secret (--secret or
$CAIRN_SECRET; "cairn keygen" makes one). Run its node with --validator-key <file>
holding that secret.

  --secret <hex>       the validator's 32-byte master secret, 64 hex
  --stake <n>          staked coins in base units (default 1000000000000: 1,000,000 coins)
  --balance <n>        liquid coins in base units (default 0)
  --commission <bps>   commission in basis points, 0..10000 (default 1000)

Example:
  cairn genesis validator --secret $(jq -r .secret v1.json) --stake 5000000000000`,

  'genesis check': `Usage: cairn genesis check <file>

Checks a chain specification as "cairn node --genesis" would and prints a summary:
{chainId, timestamp, accounts, validators, supply, staked, params} with every parameter's
value. Exit 0 when valid; 2 with the JSON path of the first problem.

Example:
  cairn genesis check genesis.json`,
};

async function cmdTemplate(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(
    'genesis template',
    args,
    { 'dev-accounts': { type: 'string' }, 'chain-id': { type: 'string' } },
    0,
  );
  if (values.help) return (io.out(GENESIS_HELP['genesis template']), EXIT.OK);
  const n =
    str(values['dev-accounts']) === undefined ? 10 : parseNonNegInt('--dev-accounts', str(values['dev-accounts'])!);
  if (n > 1000) usage('--dev-accounts must be at most 1000');
  const chainIdFlag = str(values['chain-id']);
  const chainId = chainIdFlag === undefined ? freshChainId() : parseNonNegInt('--chain-id', chainIdFlag);
  if (chainId < 1 || chainId > MAX_CHAIN_ID) usage(`--chain-id must be from 1 to ${MAX_CHAIN_ID}`);
  const { spec } = devGenesis(n);
  // The validators are the operator's to add (cairn genesis validator): a chain on the published development key is
  // anyone's.
  io.out(
    json({
      ...spec,
      chainId,
      accounts: spec.accounts.filter((a) => !a.isValidator).map(({ mldsaKeyHash: _, ...a }) => a),
    }),
  );
  return EXIT.OK;
}

/** A random chain id well away from the small ones public networks use (and from the development network's). */
function freshChainId(): number {
  for (;;) {
    const id = randomInt(1_000_000, 2 ** 31);
    if (id !== CHAIN_ID) return id;
  }
}

function coinsFlag(name: string, v: string | undefined, fallback: bigint): string {
  if (v === undefined) return fallback.toString();
  if (!/^(0|[1-9][0-9]*)$/.test(v)) usage(`${name} must be an integer of base units (1 coin = 1000000), got "${v}"`);
  return v;
}

async function cmdValidator(args: string[], io: CliIo): Promise<number> {
  const opts = {
    secret: { type: 'string' },
    stake: { type: 'string' },
    balance: { type: 'string' },
    commission: { type: 'string' },
  } as const;
  const { values } = parse('genesis validator', args, opts, 0);
  if (values.help) return (io.out(GENESIS_HELP['genesis validator']), EXIT.OK);
  const keys = deriveKeys(parseSecret(str(values.secret), io.env));
  const commission =
    str(values.commission) === undefined ? undefined : parseNonNegInt('--commission', str(values.commission)!);
  if (commission !== undefined && commission > 10_000) usage('--commission must be from 0 to 10000 basis points');
  io.out(
    json({
      address: keys.address,
      balance: coinsFlag('--balance', str(values.balance), 0n),
      staked: coinsFlag('--stake', str(values.stake), 1_000_000n * COIN),
      isValidator: true,
      ...(commission !== undefined ? { commissionBps: commission } : {}),
      signingKeys: { secp256k1: toHex(keys.secp256k1.publicKey), mldsa44: toHex(keys.mldsa44.publicKey) },
    }),
  );
  return EXIT.OK;
}

async function cmdCheck(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('genesis check', args, {}, 1);
  if (values.help) return (io.out(GENESIS_HELP['genesis check']), EXIT.OK);
  const file = positionals[0] ?? usage('missing file: cairn genesis check <file>');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return usage(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const spec = parseGenesisText(text);
    const staked = spec.accounts.reduce((n, a) => n + BigInt(a.staked ?? '0'), 0n);
    const supply = spec.accounts.reduce((n, a) => n + BigInt(a.balance), staked);
    io.out(
      json({
        chainId: spec.chainId,
        timestamp: spec.timestamp,
        accounts: spec.accounts.length,
        validators: spec.accounts.filter((a) => a.isValidator).map((a) => a.address),
        supply: supply.toString(),
        staked: staked.toString(),
        params: genesisParams(spec.params).values,
      }),
    );
    return EXIT.OK;
  } catch (e) {
    if (e instanceof GenesisSpecError) return usage(`${file}: ${e.message}`);
    throw e;
  }
}

export const GENESIS_COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  'genesis template': cmdTemplate,
  'genesis validator': cmdValidator,
  'genesis check': cmdCheck,
};
export const GENESIS_SUBS = ['template', 'validator', 'check'] as const;
