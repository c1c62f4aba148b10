import { NAME_REGISTRATION_COST, SYMBOL_RE } from '../protocol/params';
import { deriveKeys } from '../crypto/keys';
import { CairnError, isCairnError } from '../errors/CairnError';
import { parseAmount } from '../primitives/amount';
import { buildAssetTx, createdAssetId, isValidName, type AssetTxInput, type AssetTxType, type PageOptions, type UnsignedAssetTx } from '../sdk/assets';
import { CairnClient, type TxRecord } from '../sdk/client';
import {
  DEFAULT_NODE,
  DEFAULT_POLL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
  EXIT,
  json,
  nodeUrl,
  parse,
  parseAddressArg,
  parseNonNegInt,
  parsePositiveInt,
  parseSecret,
  parseWaitFlags,
  printEnvelope,
  SEND_OPTIONS,
  sign,
  str,
  submitAndReport,
  usage,
  type CliIo,
  type Flags,
  type OptionDefs,
} from './common';

/**
 * `cairn token …`, `cairn nft …`, `cairn name …`: build an asset transaction from
 * human-friendly flags (sdk/assets buildAssetTx), sign it, and submit it (or print it with
 * --sign-only); plus the read commands over GET /tokens, /nfts, /names, /name/:name.
 */

type Command = (args: string[], io: CliIo) => Promise<number>;

/** What a write command's flags turn into, with a client created on first use. */
interface Ctx {
  values: Flags;
  positionals: string[];
  client(): CairnClient;
}

interface WriteSpec {
  type: AssetTxType;
  /** Command-specific options (the common ones are added). */
  options: OptionDefs;
  /** Takes the name as its one positional (name commands). */
  positional?: boolean;
  /** Builder field → how the user spelled it, for error messages (default `--<field>`). */
  flags?: Record<string, string>;
  input(ctx: Ctx): Promise<AssetTxInput> | AssetTxInput;
  help: string;
}

// ---------------------------------------------------------------------------------------
// Help texts

const WRITE_COMMON_HELP = `Signing and sending:
  --secret <hex>       32-byte master secret, 64 hex (or $CAIRN_SECRET, preferred)
  --node <url>         node URL (default $CAIRN_NODE or ${DEFAULT_NODE})
  --nonce <n>          default: the account's nextNonce, read from the node
  --fee <n>            most base units (native coin) the node may burn; default the
                       signer's default
  --timestamp <ms>     default now
  --wait <level>       included | finalized: wait for that outcome after acceptance
  --timeout <ms>       how long --wait waits (default ${DEFAULT_WAIT_TIMEOUT_MS})
  --poll <ms>          poll interval of --wait (default ${DEFAULT_POLL_MS})
  --sign-only          print the signed envelope (one line of JSON, ready to POST to
                       /tx) instead of sending it. Works offline with --nonce and
                       assets given by id; otherwise the node is asked for the nonce
                       and symbols are looked up on it.

Prints {accepted, id, reason?} (with --wait also {outcome, blockHeight?, blockHash?}).
Exit: 0 accepted (and included/finalized), 1 refused/failed/dropped, 2 usage error,
3 unknown (a timeout or a lost answer: check with "cairn tx wait <id>" before resending).`;

const TOKEN_FLAG_HELP = `  --token <id|SYMBOL>  the token: its id (0x + 40 hex) or its symbol, looked up on the
                       node with GET /tokens/:symbol`;

const AMOUNT_HELP = `integer in the token's base units
                       (no decimal point: with decimals 6, 1.5 tokens is 1500000)`;

const writeHelp = (usageLine: string, what: string, flags: string, example: string): string =>
  `Usage: cairn ${usageLine}

${what}

${flags}

${WRITE_COMMON_HELP}

Example:
  ${example}`;

const READ_NODE_HELP = `  --node <url>         node URL (default $CAIRN_NODE or ${DEFAULT_NODE})`;
const PAGE_HELP = `  --limit <n>          page size (the node's default when absent)
  --before <cursor>    the nextBefore of the previous page`;

/** Lines of `cairn --help` for the asset commands. */
export const ASSET_MAIN_HELP = `  token <sub>         FT20 tokens: create, transfer, approve, transfer-from, mint, burn,
                      pause, unpause, blacklist, freeze, unfreeze; info, holders,
                      transfers, list
  nft <sub>           NFT721: create, mint, transfer, approve, burn; info, list
  name <sub>          name service: register, update, transfer, release; resolve, list`;

// ---------------------------------------------------------------------------------------
// Flag helpers

const need = (values: Flags, flag: string): string => {
  const v = str(values[flag]);
  if (v === undefined || v === '') return usage(`--${flag} is required`);
  return v;
};

const ADDRESS_LIKE = /^0x[0-9a-fA-F]{40}$/;

/** A token given by id (used as is) or by symbol (looked up on the node). */
async function resolveToken(ctx: Ctx, flag: string, v: string): Promise<string> {
  if (ADDRESS_LIKE.test(v)) return v.toLowerCase();
  const symbol = v.toUpperCase();
  if (!SYMBOL_RE.test(symbol)) usage(`${flag} must be a token id (0x + 40 hex) or a token symbol (e.g. USDC), got "${v}"`);
  const t = await ctx.client().token(symbol);
  if (!t) throw new CairnError('NOT_FOUND', `no token with symbol ${symbol} on ${ctx.client().baseUrl}`);
  return t.id;
}

/** A collection given by id (used as is) or by symbol (looked up on the node). */
async function resolveCollection(ctx: Ctx, flag: string, v: string): Promise<string> {
  if (ADDRESS_LIKE.test(v)) return v.toLowerCase();
  const symbol = v.toUpperCase();
  if (!SYMBOL_RE.test(symbol)) usage(`${flag} must be a collection id (0x + 40 hex) or a collection symbol, got "${v}"`);
  const c = await ctx.client().nftCollection(symbol, { limit: 1 });
  if (!c) throw new CairnError('NOT_FOUND', `no collection with symbol ${symbol} on ${ctx.client().baseUrl}`);
  return c.id;
}

const collectionFlag = (ctx: Ctx): Promise<string> => resolveCollection(ctx, '--collection', need(ctx.values, 'collection'));
const tokenFlag = (ctx: Ctx): Promise<string> => resolveToken(ctx, '--token', need(ctx.values, 'token'));
const addressFlag = (ctx: Ctx, flag: string): string => parseAddressArg(`--${flag}`, need(ctx.values, flag));
const intFlag = (ctx: Ctx, flag: string): number => parseNonNegInt(`--${flag}`, need(ctx.values, flag));

function nameArg(ctx: Ctx, cmd: string): string {
  const name = ctx.positionals[0];
  if (name === undefined) return usage(`missing name: cairn ${cmd} <name>`);
  return name;
}

/** The builder's field-prefixed message, with the field spelled as the user typed it. */
function buildOrUsage(spec: WriteSpec, input: AssetTxInput): UnsignedAssetTx {
  try {
    return buildAssetTx(input);
  } catch (e) {
    if (!isCairnError(e) || e.code !== 'INVALID_ASSET_TX') throw e;
    const field = String(e.meta.field ?? '');
    const flag = spec.flags?.[field] ?? `--${field}`;
    return usage(e.message.startsWith(`${field} `) ? `${flag}${e.message.slice(field.length)}` : e.message);
  }
}

// ---------------------------------------------------------------------------------------
// Write commands

const WRITE: Record<string, WriteSpec> = {
  'token create': {
    type: 'TOKEN_CREATE',
    options: { name: { type: 'string' }, symbol: { type: 'string' }, decimals: { type: 'string' }, supply: { type: 'string' }, mintable: { type: 'boolean' } },
    input: ({ values }) => ({
      type: 'TOKEN_CREATE',
      name: need(values, 'name'),
      symbol: need(values, 'symbol'),
      decimals: str(values.decimals) === undefined ? 0 : parseNonNegInt('--decimals', str(values.decimals)!),
      supply: need(values, 'supply'),
      ...(values.mintable ? { mintable: true } : {}),
    }),
    help: writeHelp(
      'token create --name <text> --symbol <SYMBOL> --supply <n> [--decimals <d>] [--mintable]',
      `Creates an FT20 token owned by the sender, who receives the whole initial supply.
Prints the new token's id ("token") with the verdict: it is derived from the
transaction id, so it is known before the transaction is included.`,
      `  --name <text>        display name, 1 to 64 bytes
  --symbol <SYMBOL>    an upper-case letter then up to 11 upper-case letters or digits;
                       unique on the chain
  --supply <n>         initial supply, ${AMOUNT_HELP}
  --decimals <d>       0 to 18 (default 0): display precision only
  --mintable           the owner may mint more later (default: fixed supply)`,
      'cairn token create --name "Cairn Dollar" --symbol CUSD --decimals 6 --supply 1000000000000 --wait included',
    ),
  },
  'token transfer': {
    type: 'TOKEN_TRANSFER',
    options: { token: { type: 'string' }, to: { type: 'string' }, amount: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_TRANSFER', token: await tokenFlag(ctx), to: addressFlag(ctx, 'to'), amount: need(ctx.values, 'amount') }),
    help: writeHelp(
      'token transfer --token <id|SYMBOL> --to <address> --amount <n>',
      'Sends tokens from the sender to --to.',
      `${TOKEN_FLAG_HELP}
  --to <address>       recipient, 0x… or cairn1…
  --amount <n>         ${AMOUNT_HELP}`,
      'cairn token transfer --token CUSD --to cairn1… --amount 2500000 --wait included',
    ),
  },
  'token approve': {
    type: 'TOKEN_APPROVE',
    options: { token: { type: 'string' }, spender: { type: 'string' }, amount: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_APPROVE', token: await tokenFlag(ctx), spender: addressFlag(ctx, 'spender'), amount: need(ctx.values, 'amount') }),
    help: writeHelp(
      'token approve --token <id|SYMBOL> --spender <address> --amount <n>',
      `Sets how much --spender may move from the sender's balance with
"cairn token transfer-from" (replaces the previous allowance; 0 revokes it).`,
      `${TOKEN_FLAG_HELP}
  --spender <address>  the account allowed to spend, 0x… or cairn1…
  --amount <n>         the allowance (0 revokes), ${AMOUNT_HELP}`,
      'cairn token approve --token CUSD --spender 0x… --amount 1000000',
    ),
  },
  'token transfer-from': {
    type: 'TOKEN_TRANSFER_FROM',
    options: { token: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, amount: { type: 'string' } },
    input: async (ctx) => ({
      type: 'TOKEN_TRANSFER_FROM',
      token: await tokenFlag(ctx),
      from: addressFlag(ctx, 'from'),
      to: addressFlag(ctx, 'to'),
      amount: need(ctx.values, 'amount'),
    }),
    help: writeHelp(
      'token transfer-from --token <id|SYMBOL> --from <address> --to <address> --amount <n>',
      'Moves tokens from --from (who approved the sender) to --to, using the allowance.',
      `${TOKEN_FLAG_HELP}
  --from <address>     the holder who approved the sender
  --to <address>       recipient
  --amount <n>         ${AMOUNT_HELP}`,
      'cairn token transfer-from --token CUSD --from 0x… --to 0x… --amount 500000',
    ),
  },
  'token mint': {
    type: 'TOKEN_MINT',
    options: { token: { type: 'string' }, to: { type: 'string' }, amount: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_MINT', token: await tokenFlag(ctx), to: addressFlag(ctx, 'to'), amount: need(ctx.values, 'amount') }),
    help: writeHelp(
      'token mint --token <id|SYMBOL> --to <address> --amount <n>',
      'Creates new tokens for --to. Only the owner of a mintable token may mint.',
      `${TOKEN_FLAG_HELP}
  --to <address>       recipient of the new tokens
  --amount <n>         ${AMOUNT_HELP}`,
      'cairn token mint --token CUSD --to 0x… --amount 1000000',
    ),
  },
  'token burn': {
    type: 'TOKEN_BURN',
    options: { token: { type: 'string' }, amount: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_BURN', token: await tokenFlag(ctx), amount: need(ctx.values, 'amount') }),
    help: writeHelp(
      'token burn --token <id|SYMBOL> --amount <n>',
      "Destroys tokens from the sender's own balance (the supply shrinks).",
      `${TOKEN_FLAG_HELP}
  --amount <n>         ${AMOUNT_HELP}`,
      'cairn token burn --token CUSD --amount 1000',
    ),
  },
  'token pause': {
    type: 'TOKEN_PAUSE',
    options: { token: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_PAUSE', token: await tokenFlag(ctx) }),
    help: writeHelp('token pause --token <id|SYMBOL>', 'Stops every transfer of the token until unpaused (owner only).', TOKEN_FLAG_HELP, 'cairn token pause --token CUSD'),
  },
  'token unpause': {
    type: 'TOKEN_UNPAUSE',
    options: { token: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_UNPAUSE', token: await tokenFlag(ctx) }),
    help: writeHelp('token unpause --token <id|SYMBOL>', 'Lets a paused token move again (owner only).', TOKEN_FLAG_HELP, 'cairn token unpause --token CUSD'),
  },
  'token blacklist': {
    type: 'TOKEN_BLACKLIST',
    options: { token: { type: 'string' }, address: { type: 'string' }, remove: { type: 'boolean' } },
    flags: { target: '--address' },
    input: async (ctx) => ({
      type: 'TOKEN_BLACKLIST',
      token: await tokenFlag(ctx),
      target: addressFlag(ctx, 'address'),
      blacklisted: ctx.values.remove !== true,
    }),
    help: writeHelp(
      'token blacklist --token <id|SYMBOL> --address <address> [--remove]',
      'Blacklists an address for the token (owner only), or with --remove lifts it.',
      `${TOKEN_FLAG_HELP}
  --address <address>  the account to blacklist, 0x… or cairn1…
  --remove             take it off the blacklist instead`,
      'cairn token blacklist --token CUSD --address cairn1… --remove',
    ),
  },
  'token freeze': {
    type: 'TOKEN_FREEZE',
    options: { token: { type: 'string' }, until: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_FREEZE', token: await tokenFlag(ctx), until: intFlag(ctx, 'until') }),
    help: writeHelp(
      'token freeze --token <id|SYMBOL> --until <height>',
      "Freezes the sender's own balance of the token until block --until.",
      `${TOKEN_FLAG_HELP}
  --until <height>     block height the freeze lasts until`,
      'cairn token freeze --token CUSD --until 250000',
    ),
  },
  'token unfreeze': {
    type: 'TOKEN_UNFREEZE',
    options: { token: { type: 'string' } },
    input: async (ctx) => ({ type: 'TOKEN_UNFREEZE', token: await tokenFlag(ctx) }),
    help: writeHelp('token unfreeze --token <id|SYMBOL>', "Lifts the sender's own freeze of the token.", TOKEN_FLAG_HELP, 'cairn token unfreeze --token CUSD'),
  },

  'nft create': {
    type: 'NFT_CREATE',
    options: { name: { type: 'string' }, symbol: { type: 'string' } },
    input: ({ values }) => ({ type: 'NFT_CREATE', name: need(values, 'name'), symbol: need(values, 'symbol') }),
    help: writeHelp(
      'nft create --name <text> --symbol <SYMBOL>',
      `Creates an NFT721 collection owned by the sender (the only account that may mint).
Prints the new collection's id ("collection") with the verdict.`,
      `  --name <text>        display name, 1 to 64 bytes
  --symbol <SYMBOL>    an upper-case letter then up to 11 upper-case letters or digits`,
      'cairn nft create --name "Cairn Stones" --symbol STONE --wait included',
    ),
  },
  'nft mint': {
    type: 'NFT_MINT',
    options: { collection: { type: 'string' }, to: { type: 'string' }, uri: { type: 'string' } },
    input: async (ctx) => ({
      type: 'NFT_MINT',
      collection: await collectionFlag(ctx),
      to: addressFlag(ctx, 'to'),
      ...(str(ctx.values.uri) !== undefined ? { uri: str(ctx.values.uri)! } : {}),
    }),
    help: writeHelp(
      'nft mint --collection <id> --to <address> [--uri <uri>]',
      `Mints the collection's next item (numbered 1, 2, 3…) to --to (collection owner only).
With --wait, the minted item number is printed ("item").`,
      `  --collection <id>    collection id (0x + 40 hex) or symbol (looked up on the node)
  --to <address>       recipient, 0x… or cairn1…
  --uri <uri>          optional metadata URI, at most 256 bytes`,
      'cairn nft mint --collection 0x… --to cairn1… --uri ipfs://… --wait included',
    ),
  },
  'nft transfer': {
    type: 'NFT_TRANSFER',
    options: { collection: { type: 'string' }, item: { type: 'string' }, to: { type: 'string' } },
    input: async (ctx) => ({ type: 'NFT_TRANSFER', collection: await collectionFlag(ctx), item: intFlag(ctx, 'item'), to: addressFlag(ctx, 'to') }),
    help: writeHelp(
      'nft transfer --collection <id> --item <n> --to <address>',
      'Gives an item to --to (its owner, or the account approved for it).',
      `  --collection <id>    collection id (0x + 40 hex) or symbol (looked up on the node)
  --item <n>           item number (from 1)
  --to <address>       recipient, 0x… or cairn1…`,
      'cairn nft transfer --collection STONE --item 3 --to cairn1…',
    ),
  },
  'nft approve': {
    type: 'NFT_APPROVE',
    options: { collection: { type: 'string' }, item: { type: 'string' }, to: { type: 'string' }, clear: { type: 'boolean' } },
    flags: { approved: '--to' },
    input: async (ctx) => {
      if ((ctx.values.clear === true) === (ctx.values.to !== undefined)) usage('give exactly one of --to <address> (approve) or --clear (remove the approval)');
      return {
        type: 'NFT_APPROVE',
        collection: await collectionFlag(ctx),
        item: intFlag(ctx, 'item'),
        approved: ctx.values.clear === true ? null : addressFlag(ctx, 'to'),
      };
    },
    help: writeHelp(
      'nft approve --collection <id> --item <n> (--to <address> | --clear)',
      'Lets one other account transfer an item (owner only); a transfer clears it.',
      `  --collection <id>    collection id (0x + 40 hex) or symbol (looked up on the node)
  --item <n>           item number (from 1)
  --to <address>       the account approved
  --clear              remove the approval instead`,
      'cairn nft approve --collection 0x… --item 3 --to 0x…',
    ),
  },
  'nft burn': {
    type: 'NFT_BURN',
    options: { collection: { type: 'string' }, item: { type: 'string' } },
    input: async (ctx) => ({ type: 'NFT_BURN', collection: await collectionFlag(ctx), item: intFlag(ctx, 'item') }),
    help: writeHelp(
      'nft burn --collection <id> --item <n>',
      'Destroys an item the sender owns; its number is never reused.',
      `  --collection <id>    collection id (0x + 40 hex) or symbol (looked up on the node)
  --item <n>           item number (from 1)`,
      'cairn nft burn --collection 0x… --item 3',
    ),
  },

  'name register': {
    type: 'NAME_REGISTER',
    options: { target: { type: 'string' } },
    positional: true,
    flags: { name: '<name>' },
    input: (ctx) => ({
      type: 'NAME_REGISTER',
      name: nameArg(ctx, 'name register'),
      ...(ctx.values.target !== undefined ? { target: addressFlag(ctx, 'target') } : {}),
    }),
    help: writeHelp(
      'name register <name> [--target <address>]',
      `Registers a name owned by the sender. It costs ${NAME_REGISTRATION_COST / 1_000_000n} coins (${NAME_REGISTRATION_COST} base units,
sent as the transaction's amount to the treasury).`,
      `  <name>               3 to 32 characters of a-z, 0-9 and '-', not starting or
                       ending with '-'
  --target <address>   what the name resolves to (default: the sender)`,
      'cairn name register alice --wait included',
    ),
  },
  'name update': {
    type: 'NAME_UPDATE',
    options: { target: { type: 'string' } },
    positional: true,
    flags: { name: '<name>' },
    input: (ctx) => ({ type: 'NAME_UPDATE', name: nameArg(ctx, 'name update'), target: addressFlag(ctx, 'target') }),
    help: writeHelp(
      'name update <name> --target <address>',
      'Points a name the sender owns to another address.',
      `  <name>               the name
  --target <address>   the new address it resolves to`,
      'cairn name update alice --target cairn1…',
    ),
  },
  'name transfer': {
    type: 'NAME_TRANSFER',
    options: { to: { type: 'string' } },
    positional: true,
    flags: { name: '<name>', owner: '--to' },
    input: (ctx) => ({ type: 'NAME_TRANSFER', name: nameArg(ctx, 'name transfer'), owner: addressFlag(ctx, 'to') }),
    help: writeHelp(
      'name transfer <name> --to <address>',
      'Gives a name the sender owns to a new owner (what it resolves to is unchanged).',
      `  <name>               the name
  --to <address>       the new owner`,
      'cairn name transfer alice --to cairn1…',
    ),
  },
  'name release': {
    type: 'NAME_RELEASE',
    options: {},
    positional: true,
    flags: { name: '<name>' },
    input: (ctx) => ({ type: 'NAME_RELEASE', name: nameArg(ctx, 'name release') }),
    help: writeHelp('name release <name>', 'Gives up a name the sender owns; anyone may then register it again.', '  <name>               the name', 'cairn name release alice'),
  },
};

const WRITE_OPTIONS: OptionDefs = {
  secret: { type: 'string' },
  nonce: { type: 'string' },
  fee: { type: 'string' },
  timestamp: { type: 'string' },
  'sign-only': { type: 'boolean' },
  ...SEND_OPTIONS,
};

/** The minted item number, from the events of an included NFT_MINT. */
function mintedItem(record: TxRecord | null): Record<string, unknown> {
  const events = (record?.result as { events?: { kind?: string; item?: unknown; from?: unknown }[] } | undefined)?.events;
  const ev = events?.find((e) => e.kind === 'nft.transfer' && e.from === null);
  return typeof ev?.item === 'number' ? { item: ev.item } : {};
}

function writeCommand(key: string, spec: WriteSpec): Command {
  return async (args, io) => {
    const { values, positionals } = parse(key, args, { ...spec.options, ...WRITE_OPTIONS }, spec.positional ? 1 : 0);
    if (values.help) {
      io.out(spec.help);
      return EXIT.OK;
    }
    const signOnly = values['sign-only'] === true;
    if (signOnly && (values.wait !== undefined || values.timeout !== undefined || values.poll !== undefined))
      usage('--wait, --timeout and --poll do not apply with --sign-only (nothing is sent)');
    const wait = parseWaitFlags(values);
    const nonceFlag = str(values.nonce) !== undefined ? parseNonNegInt('--nonce', str(values.nonce)!) : undefined;
    const fee = str(values.fee);
    if (fee !== undefined && parseAmount(fee) === undefined) usage(`--fee must be a non-negative integer in base units (1 coin = 1000000), got "${fee}"`);
    const timestamp = str(values.timestamp) !== undefined ? parsePositiveInt('--timestamp', str(values.timestamp)!) : undefined;
    const keys = deriveKeys(parseSecret(str(values.secret), io.env));
    let client: CairnClient | undefined;
    const ctx: Ctx = { values, positionals, client: () => (client ??= new CairnClient(nodeUrl(values, io.env))) };
    if (!signOnly || nonceFlag === undefined || values.node !== undefined) ctx.client(); // check --node early

    const unsigned = buildOrUsage(spec, await spec.input(ctx));
    const nonce = nonceFlag ?? (await ctx.client().nextNonce(keys.address));
    const tx = sign(keys, { ...unsigned, ...(fee !== undefined ? { fee } : {}), ...(timestamp !== undefined ? { timestamp } : {}) }, nonce);
    const created = createdAssetId(tx);
    const extra: Record<string, unknown> = created === undefined ? {} : { [tx.type === 'TOKEN_CREATE' ? 'token' : 'collection']: created };
    if (signOnly) {
      printEnvelope(io, tx);
      if (created !== undefined) io.err(`${tx.type === 'TOKEN_CREATE' ? 'token' : 'collection'} id: ${created}`);
      return EXIT.OK;
    }
    return submitAndReport(io, ctx.client(), tx, wait, extra, tx.type === 'NFT_MINT' ? mintedItem : undefined);
  };
}

// ---------------------------------------------------------------------------------------
// Read commands

const PAGE_OPTIONS: OptionDefs = { node: { type: 'string' }, limit: { type: 'string' }, before: { type: 'string' } };
const PAGE_OPTIONS_WITH_ITEM: OptionDefs = { ...PAGE_OPTIONS, item: { type: 'string' } };

function pageOf(values: Flags): PageOptions {
  const p: PageOptions = {};
  const limit = str(values.limit);
  if (limit !== undefined) p.limit = parsePositiveInt('--limit', limit);
  const before = str(values.before);
  if (before !== undefined) p.before = before;
  return p;
}

interface ReadSpec {
  options: OptionDefs;
  positional: boolean;
  run(ctx: Ctx, io: CliIo): Promise<number>;
  help: string;
}

function tokenArg(ctx: Ctx, cmd: string): string {
  const t = ctx.positionals[0];
  if (t === undefined) return usage(`missing token: cairn ${cmd} <id|SYMBOL>`);
  return t;
}

/** A token id (lower-cased) or symbol (upper-cased) as the read endpoints take it. */
function tokenRef(t: string): string {
  const ref = ADDRESS_LIKE.test(t) ? t.toLowerCase() : t.toUpperCase();
  if (!ADDRESS_LIKE.test(ref) && !SYMBOL_RE.test(ref)) usage(`<token> must be a token id (0x + 40 hex) or a token symbol (e.g. USDC), got "${t}"`);
  return ref;
}

const notFound = (what: string): never => {
  throw new CairnError('NOT_FOUND', `${what} not found`);
};

const READ: Record<string, ReadSpec> = {
  'token info': {
    options: { node: { type: 'string' } },
    positional: true,
    async run(ctx, io) {
      const t = tokenArg(ctx, 'token info');
      const ref = tokenRef(t);
      io.out(json((await ctx.client().token(ref)) ?? notFound(`token ${t}`)));
      return EXIT.OK;
    },
    help: `Usage: cairn token info <id|SYMBOL> [--node <url>]

Prints the token (GET /tokens/:id): id, name, symbol, decimals, owner, supply, paused…
Exit 1 when the node has no such token.

${READ_NODE_HELP}

Example:
  cairn token info CUSD`,
  },
  'token holders': {
    options: PAGE_OPTIONS,
    positional: true,
    async run(ctx, io) {
      const ref = tokenRef(tokenArg(ctx, 'token holders'));
      io.out(json(await ctx.client().tokenHolders(ref, pageOf(ctx.values))));
      return EXIT.OK;
    },
    help: `Usage: cairn token holders <id|SYMBOL> [--limit <n>] [--before <cursor>] [--node <url>]

Prints {token, holders: [{address, native, balance}], nextBefore}, largest first
(GET /tokens/:id/holders). Pass nextBefore as --before for the next page.

${PAGE_HELP}
${READ_NODE_HELP}

Example:
  cairn token holders CUSD --limit 20`,
  },
  'token transfers': {
    options: PAGE_OPTIONS,
    positional: true,
    async run(ctx, io) {
      const ref = tokenRef(tokenArg(ctx, 'token transfers'));
      io.out(json(await ctx.client().tokenTransfers(ref, pageOf(ctx.values))));
      return EXIT.OK;
    },
    help: `Usage: cairn token transfers <id|SYMBOL> [--limit <n>] [--before <cursor>] [--node <url>]

Prints {token, transfers: [{txId, kind, from, to, amount, blockHeight…}], nextBefore},
newest first (GET /tokens/:id/transfers). Mints have from null, burns to null.

${PAGE_HELP}
${READ_NODE_HELP}

Example:
  cairn token transfers 0x… --limit 50`,
  },
  'token list': {
    options: PAGE_OPTIONS,
    positional: false,
    async run(ctx, io) {
      io.out(json(await ctx.client().tokens(pageOf(ctx.values))));
      return EXIT.OK;
    },
    help: `Usage: cairn token list [--limit <n>] [--before <cursor>] [--node <url>]

Prints {tokens, nextBefore} (GET /tokens).

${PAGE_HELP}
${READ_NODE_HELP}`,
  },
  'nft info': {
    options: PAGE_OPTIONS_WITH_ITEM,
    positional: true,
    async run(ctx, io) {
      const arg = ctx.positionals[0];
      if (arg === undefined) return usage('missing collection: cairn nft info <collection>[:<item>]');
      const m = /^([^:]+)(?::([^:]*))?$/.exec(arg);
      const ref = m ? (ADDRESS_LIKE.test(m[1]) ? m[1].toLowerCase() : m[1].toUpperCase()) : '';
      if (!m || !(ADDRESS_LIKE.test(ref) || SYMBOL_RE.test(ref)))
        usage(`expected <collection>[:<item>] with a collection id (0x + 40 hex) or symbol, got "${arg}"`);
      if (m[2] !== undefined && ctx.values.item !== undefined) usage('give the item either as <collection>:<item> or with --item, not both');
      const itemText = m[2] ?? str(ctx.values.item);
      if (itemText === undefined) {
        io.out(json((await ctx.client().nftCollection(ref, pageOf(ctx.values))) ?? notFound(`collection ${ref}`)));
      } else {
        if (ctx.values.limit !== undefined || ctx.values.before !== undefined) usage('--limit and --before page the items of a collection, not one item');
        const item = parsePositiveInt('item', itemText);
        io.out(json((await ctx.client().nftItem(ref, item)) ?? notFound(`item ${item} of collection ${ref}`)));
      }
      return EXIT.OK;
    },
    help: `Usage: cairn nft info <collection>[:<item>] [--item <n>] [--limit <n>] [--before <cursor>] [--node <url>]

Prints a collection (name, symbol, owner, minted, supply… and a page of its items,
newest first) or, with an item number, one item (owner, uri, approved…), from
GET /nfts/:id. The collection is its id (0x + 40 hex) or its symbol. Exit 1 when the
node has no such collection or item (a burned item no longer exists).

  --item <n>           the item number (same as <collection>:<n>)
${PAGE_HELP}
${READ_NODE_HELP}

Example:
  cairn nft info STONE:3`,
  },
  'nft list': {
    options: PAGE_OPTIONS,
    positional: false,
    async run(ctx, io) {
      io.out(json(await ctx.client().nfts(pageOf(ctx.values))));
      return EXIT.OK;
    },
    help: `Usage: cairn nft list [--limit <n>] [--before <cursor>] [--node <url>]

Prints {collections, nextBefore} (GET /nfts).

${PAGE_HELP}
${READ_NODE_HELP}`,
  },
  'name resolve': {
    options: { node: { type: 'string' } },
    positional: true,
    async run(ctx, io) {
      const name = nameArg(ctx, 'name resolve');
      if (!isValidName(name)) usage(`"${name}" is not a valid name: 3 to 32 characters of a-z, 0-9 and '-', not starting or ending with '-'`);
      const r = await ctx.client().resolveName(name);
      if (!r) throw new CairnError('NOT_FOUND', `name "${name}" is not registered`);
      io.out(json(r));
      return EXIT.OK;
    },
    help: `Usage: cairn name resolve <name> [--node <url>]

Prints {name, address, native, owner, ownerNative, registeredAt} (GET /name/:name).
Exit 1 when the name is not registered.

${READ_NODE_HELP}

Example:
  cairn name resolve alice`,
  },
  'name list': {
    options: PAGE_OPTIONS,
    positional: false,
    async run(ctx, io) {
      io.out(json(await ctx.client().names(pageOf(ctx.values))));
      return EXIT.OK;
    },
    help: `Usage: cairn name list [--limit <n>] [--before <cursor>] [--node <url>]

Prints {names, nextBefore} (GET /names).

${PAGE_HELP}
${READ_NODE_HELP}`,
  },
};

function readCommand(key: string, spec: ReadSpec): Command {
  return async (args, io) => {
    const { values, positionals } = parse(key, args, spec.options, spec.positional ? 1 : 0);
    if (values.help) {
      io.out(spec.help);
      return EXIT.OK;
    }
    let client: CairnClient | undefined;
    const ctx: Ctx = { values, positionals, client: () => (client ??= new CairnClient(nodeUrl(values, io.env))) };
    ctx.client();
    return spec.run(ctx, io);
  };
}

// ---------------------------------------------------------------------------------------
// Exports for main.ts

/** `cairn <group> <sub>` sub-commands by group. */
export const ASSET_GROUPS: Record<string, readonly string[]> = {
  token: ['create', 'transfer', 'approve', 'transfer-from', 'mint', 'burn', 'pause', 'unpause', 'blacklist', 'freeze', 'unfreeze', 'info', 'holders', 'transfers', 'list'],
  nft: ['create', 'mint', 'transfer', 'approve', 'burn', 'info', 'list'],
  name: ['register', 'update', 'transfer', 'release', 'resolve', 'list'],
};

export const ASSET_COMMANDS: Record<string, Command> = {
  ...Object.fromEntries(Object.entries(WRITE).map(([k, spec]) => [k, writeCommand(k, spec)])),
  ...Object.fromEntries(Object.entries(READ).map(([k, spec]) => [k, readCommand(k, spec)])),
};

const GROUP_HELP: Record<string, string> = {
  token: `Usage: cairn token <sub> [options]

FT20 tokens. Amounts are integers in the token's base units.

Send (sign, submit, optionally --wait; or --sign-only):
  token create          create a token: --name --symbol --supply [--decimals] [--mintable]
  token transfer        --token --to --amount
  token approve         --token --spender --amount (allowance; 0 revokes)
  token transfer-from   --token --from --to --amount (spend an allowance)
  token mint            --token --to --amount (owner of a mintable token)
  token burn            --token --amount
  token pause           --token (owner)
  token unpause         --token (owner)
  token blacklist       --token --address [--remove] (owner)
  token freeze          --token --until <height> (your own balance)
  token unfreeze        --token

Read:
  token info <token>        the token
  token holders <token>     holders and balances, paginated
  token transfers <token>   transfers, paginated
  token list                all tokens, paginated

--token and <token> take a token id (0x + 40 hex) or its symbol.
Run "cairn token <sub> --help" for details.`,

  nft: `Usage: cairn nft <sub> [options]

NFT721 collections and items.

Send (sign, submit, optionally --wait; or --sign-only):
  nft create     create a collection: --name --symbol
  nft mint       --collection --to [--uri] (collection owner)
  nft transfer   --collection --item --to
  nft approve    --collection --item (--to <address> | --clear)
  nft burn       --collection --item

Read:
  nft info <collection>[:<item>]   a collection or one item
  nft list                         all collections, paginated

--collection and <collection> take a collection id (0x + 40 hex) or its symbol.
Run "cairn nft <sub> --help" for details.`,

  name: `Usage: cairn name <sub> <name> [options]

The name service: names of 3 to 32 characters of a-z, 0-9 and '-'.

Send (sign, submit, optionally --wait; or --sign-only):
  name register <name>   [--target <address>]; costs ${NAME_REGISTRATION_COST / 1_000_000n} coins
  name update <name>     --target <address>: what it resolves to
  name transfer <name>   --to <address>: a new owner
  name release <name>    give it up

Read:
  name resolve <name>    the address it resolves to, its owner
  name list              all names, paginated

Run "cairn name <sub> --help" for details.`,
};

/** Help texts by command key ("token", "token create", …). */
export const ASSET_HELP: Record<string, string> = {
  ...GROUP_HELP,
  ...Object.fromEntries(Object.entries(WRITE).map(([k, s]) => [k, s.help])),
  ...Object.fromEntries(Object.entries(READ).map(([k, s]) => [k, s.help])),
};
