import { CairnError } from '../../errors/CairnError';
import { CHAIN_ID, SYMBOL_RE } from '../../protocol/params';
import { isValidName, type PageOptions } from '../../sdk/assets';
import { CairnClient } from '../../sdk/client';
import { committeeDigest, deriveKeys, inboundDigest, memberOf, parseAddress, signAsMember, taskCommitment, type MemberSignature } from '../../sdk';
import { Value } from '@sinclair/typebox/value';
import { bridgeCommitteeUpdate, bridgeIn } from '../../modules/bridge';
import { fullCommitteeRefusal } from '../../modules/bridge/committee';
import type { CommitteeMember } from '../../protocol/bridge';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { Hex } from '../../primitives/hex';
import { DEFAULT_NODE, EXIT, json, nodeUrl, parse, parseNonNegInt, parsePositiveInt, parseSecret, str, usage, type CliIo, type Flags, type OptionDefs } from '../common';
import { ADDRESS_LIKE, nameArg, type Command, type Ctx } from './context';

/** The read commands over GET /tokens, /nfts, /names, /name/:name. */

const READ_NODE_HELP = `  --node <url>         node URL (default $CAIRN_NODE or ${DEFAULT_NODE})`;
/** `height`: the feeds ordered by height (any block height pages from below it); `cursor`: holders and a collection's items. */
const pageHelp = (before: 'height' | 'cursor') => `  --limit <n>          page size (the node's default when absent; above its maximum, capped)
  --before <${before}>    the nextBefore of the previous page${before === 'height' ? ' (or any block height: what is below it)' : ''}`;

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

${pageHelp('cursor')}
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
    help: `Usage: cairn token transfers <id|SYMBOL> [--limit <n>] [--before <height>] [--node <url>]

Prints {token, transfers: [{txId, kind, from, to, amount, blockHeight…}], nextBefore},
newest first (GET /tokens/:id/transfers). Mints have from null, burns to null.

${pageHelp('height')}
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
    help: `Usage: cairn token list [--limit <n>] [--before <height>] [--node <url>]

Prints {tokens, nextBefore} (GET /tokens).

${pageHelp('height')}
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
${pageHelp('cursor')}
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
    help: `Usage: cairn nft list [--limit <n>] [--before <height>] [--node <url>]

Prints {collections, nextBefore} (GET /nfts).

${pageHelp('height')}
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
    help: `Usage: cairn name list [--limit <n>] [--before <height>] [--node <url>]

Prints {names, nextBefore} (GET /names).

${pageHelp('height')}
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


/** The staking and governance reads (GET /validators, /governance…, /treasury). */
const plain = (cmd: string, path: string, call: (ctx: Ctx) => Promise<unknown>): ReadSpec => ({
  options: { node: { type: 'string' } },
  positional: false,
  async run(ctx, io) {
    io.out(json(await call(ctx)));
    return EXIT.OK;
  },
  help: `Usage: cairn ${cmd} [--node <url>]

Prints GET ${path}.

${READ_NODE_HELP}`,
});
READ['stake validators'] = plain('stake validators', '/validators (active set, bank, slot producer, epoch, performance)', (ctx) => ctx.client().validators());
READ['gov params'] = plain('gov params', '/governance (every governable parameter: value, bounds, changedAt)', (ctx) => ctx.client().governance());
READ['gov treasury'] = plain('gov treasury', '/treasury (balance, income, spends, policy)', (ctx) => ctx.client().treasury());
/** The machine feeds' --since, --limit and --final (gov, ai and bridge lists). */
function feedQuery(values: Flags): { since?: number; limit?: number; final?: true } {
  return {
    since: str(values.since) !== undefined ? parseNonNegInt('--since', str(values.since)!) : undefined,
    limit: str(values.limit) !== undefined ? parsePositiveInt('--limit', str(values.limit)!) : undefined,
    final: values.final === true ? true : undefined,
  };
}
const FEED_HELP = `  --since <height>     the transitions after this height, whole blocks; poll again with
                       the answer's cursor: nothing is skipped or repeated
  --final              with --since: final heights only (no reorganization can undo them)
  --limit <n>          page size
`;

READ['gov list'] = {
  options: { node: { type: 'string' }, status: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
  positional: false,
  async run(ctx, io) {
    const { values } = ctx;
    const status = str(values.status) as never;
    const { since, limit } = feedQuery(values);
    io.out(json(await ctx.client().proposals({ status, since, limit })));
    return EXIT.OK;
  },
  help: `Usage: cairn gov list [--status <S>] [--since <height>] [--limit <n>] [--node <url>]

Prints GET /governance/proposals: {proposals, cursor, finalizedHeight}.

  --status <S>         VOTING, QUEUED, EXECUTED, REJECTED, VETOED, EXPIRED or FAILED
  --since <height>     only proposals that changed after this height (poll again
                       with the answer's cursor: no transition is skipped)
  --limit <n>          page size
${READ_NODE_HELP}`,
};
READ['gov show'] = {
  options: { node: { type: 'string' } },
  positional: true,
  async run(ctx, io) {
    const id = ctx.positionals[0] ?? usage('missing proposal: cairn gov show <id>');
    io.out(json((await ctx.client().proposal(id)) ?? notFound(`proposal ${id}`)));
    return EXIT.OK;
  },
  help: `Usage: cairn gov show <id> [--node <url>]

Prints GET /governance/proposals/:id: status, live tally, tally and state history.

${READ_NODE_HELP}`,
};

READ['oracle list'] = plain('oracle list', '/ai/oracles (stake, counters, reputation, open duties)', (ctx) => ctx.client().oracles());
READ['ai list'] = {
  options: { node: { type: 'string' }, status: { type: 'string' }, mode: { type: 'string' }, oracle: { type: 'string' }, since: { type: 'string' }, final: { type: 'boolean' }, limit: { type: 'string' } },
  positional: false,
  async run(ctx, io) {
    const { values } = ctx;
    const { since, limit, final } = feedQuery(values);
    io.out(json(await ctx.client().tasks({ status: str(values.status) as never, mode: str(values.mode) as never, oracle: str(values.oracle), since, final, limit })));
    return EXIT.OK;
  },
  help: `Usage: cairn ai list [--status <S>] [--mode <m>] [--oracle <address>] [--since <height> [--final]] [--limit <n>] [--node <url>]

Prints GET /ai/tasks: {tasks, transitions (with --since), cursor, finalizedHeight}.

  --status <S>         COMMIT, REVEAL, BIDDING, PENDING, CHALLENGE, DISPUTED, DONE, UPHELD,
                       OVERTURNED, EXPIRED or REFUNDED
  --mode <m>           quorum, designated or auction
  --oracle <address>   tasks this oracle takes part in
${FEED_HELP}${READ_NODE_HELP}`,
};
READ['ai show'] = {
  options: { node: { type: 'string' } },
  positional: true,
  async run(ctx, io) {
    const id = ctx.positionals[0] ?? usage('missing task: cairn ai show <id>');
    io.out(json((await ctx.client().task(id)) ?? notFound(`task ${id}`)));
    return EXIT.OK;
  },
  help: `Usage: cairn ai show <id> [--node <url>]

Prints GET /ai/tasks/:id: status, deadlines (and the next one), commits, reveals, bids,
verdicts, result and transitions with heights.

${READ_NODE_HELP}`,
};
READ['ai commitment'] = {
  options: { task: { type: 'string' }, oracle: { type: 'string' }, output: { type: 'string' }, salt: { type: 'string' } },
  positional: false,
  async run(ctx, io) {
    const need = (k: string) => str(ctx.values[k]) ?? usage(`missing --${k}: cairn ai commitment --task <id> --oracle <address> --output <text> --salt <text>`);
    const oracle = parseAddress(need('oracle')) ?? usage('--oracle must be an address (0x… or cairn1…)');
    const taskId = need('task');
    if (!/^0x[0-9a-fA-F]{64}$/.test(taskId)) usage('--task must be a task id (0x + 64 hex digits)');
    io.out(json({ commit: taskCommitment({ oracle, output: need('output'), salt: need('salt'), taskId: taskId as Hex }) }));
    return EXIT.OK;
  },
  help: `Usage: cairn ai commitment --task <id> --oracle <address> --output <text> --salt <text>

Prints {commit}: the AI_COMMIT commitment, 0x + keccak-256 of the UTF-8 RFC 8785 JSON of
{"oracle", "output", "salt", "taskId"} (computed here, nothing is sent). Keep the output and
the salt: "cairn ai reveal" needs them.`,
};

READ['bridge status'] = plain('bridge status', '/bridge (committee, pools, the circuit breaker of the current window)', (ctx) => ctx.client().bridge());
READ['bridge list'] = {
  options: { node: { type: 'string' }, direction: { type: 'string' }, status: { type: 'string' }, since: { type: 'string' }, final: { type: 'boolean' }, limit: { type: 'string' } },
  positional: false,
  async run(ctx, io) {
    const { values } = ctx;
    const { since, limit, final } = feedQuery(values);
    io.out(json(await ctx.client().bridgeTransfers({ direction: str(values.direction) as never, status: str(values.status) as never, since, final, limit })));
    return EXIT.OK;
  },
  help: `Usage: cairn bridge list [--direction out|in] [--status <S>] [--since <height> [--final]] [--limit <n>] [--node <url>]

Prints GET /bridge/transfers: {transfers, transitions (with --since), cursor, finalizedHeight}.

  --direction <d>      out (BRIDGE_OUT) or in (BRIDGE_IN)
  --status <S>         LOCKED, PAID, ATTESTED, DELAYED, RELEASED or REFUSED
${FEED_HELP}${READ_NODE_HELP}`,
};
READ['bridge show'] = {
  options: { node: { type: 'string' } },
  positional: true,
  async run(ctx, io) {
    const id = ctx.positionals[0] ?? usage('missing transfer: cairn bridge show <id>');
    io.out(json((await ctx.client().bridgeTransfer(id)) ?? notFound(`transfer ${id}`)));
    return EXIT.OK;
  },
  help: `Usage: cairn bridge show <id> [--node <url>]

Prints GET /bridge/transfers/:id: status, amounts, releaseAt and the releaseInBlocks
countdown while DELAYED, the reason when DELAYED or REFUSED, transitions with heights.

${READ_NODE_HELP}`,
};
READ['bridge member'] = {
  options: { secret: { type: 'string' } },
  positional: false,
  async run(ctx, io) {
    io.out(json(memberOf(deriveKeys(parseSecret(str(ctx.values.secret), io.env)))));
    return EXIT.OK;
  },
  help: `Usage: cairn bridge member [--secret <hex>]

Prints {address, secp256k1, mldsa44}: your entry in a committee (the list a "cairn gov
propose --committee" file or a rotation holds). The secret is --secret or $CAIRN_SECRET.`,
};
READ['bridge attest'] = {
  options: {
    secret: { type: 'string' }, 'source-chain': { type: 'string' }, 'source-tx': { type: 'string' }, asset: { type: 'string' }, to: { type: 'string' }, amount: { type: 'string' },
    committee: { type: 'string' }, threshold: { type: 'string' }, epoch: { type: 'string' }, into: { type: 'string' }, 'chain-id': { type: 'string' },
  },
  positional: false,
  async run(ctx, io) {
    const v = ctx.values;
    const keys = deriveKeys(parseSecret(str(v.secret), io.env));
    const chainId = parsePositiveInt('--chain-id', str(v['chain-id']) ?? String(CHAIN_ID));
    let digest: Uint8Array;
    if (str(v.committee) !== undefined) {
      const members = committeeMembers(await readJson('--committee', str(v.committee)!));
      const threshold = parsePositiveInt('--threshold', str(v.threshold) ?? usage('--committee needs --threshold <k>'));
      const epoch = parsePositiveInt('--epoch', str(v.epoch) ?? usage('--committee needs --epoch <n>: the new committee\'s epoch (the current one + 1)'));
      const refused = fullCommitteeRefusal(members, threshold);
      if (refused) usage(`--committee: ${refused.reason}`);
      digest = committeeDigest({ epoch, members, threshold }, chainId);
    } else {
      const need = (k: string) => str(v[k]) ?? usage(`missing --${k}: cairn bridge attest --source-chain <name> --source-tx <id> --asset native|<token id> --to <address> --amount <n>`);
      const to = parseAddress(need('to')) ?? usage('--to must be an address (0x… or cairn1…)');
      const amount = need('amount');
      if (!/^[1-9][0-9]*$/.test(amount)) usage(`--amount must be a positive integer of base units, got "${amount}"`);
      const asset = need('asset');
      if (asset !== 'native' && !/^0x[0-9a-fA-F]{40}$/.test(asset)) usage('--asset must be native or a token id (0x + 40 hex)');
      // What BRIDGE_IN would refuse is not worth signing: the same checks as its data fields.
      const checked = (flag: string, key: 'sourceChain' | 'sourceTx') => {
        const raw = need(flag);
        for (const c of bridgeIn.fields![key].checks) if (!Value.Check(c.schema, raw)) usage(`--${flag} ${c.reason}, got "${raw}"`);
        return raw;
      };
      digest = inboundDigest({ sourceChain: checked('source-chain', 'sourceChain'), sourceTx: checked('source-tx', 'sourceTx'), asset: asset === 'native' ? asset : asset.toLowerCase(), to, amount }, chainId);
    }
    const sig = signAsMember(keys, digest);
    const into = str(v.into);
    if (into === undefined) {
      io.out(json(sig));
      return EXIT.OK;
    }
    const list = existsSync(into) ? ((await readJson('--into', into)) as MemberSignature[]) : [];
    if (!Array.isArray(list)) usage(`--into: ${into} does not hold a list of signatures`);
    await writeFile(into, `${JSON.stringify([...list.filter((x) => x.signer !== sig.signer), sig], null, 2)}\n`);
    io.out(json({ signer: sig.signer, into, signatures: list.filter((x) => x.signer !== sig.signer).length + 1 }));
    return EXIT.OK;
  },
  help: `Usage: cairn bridge attest [--secret <hex>] --source-chain <name> --source-tx <id> --asset native|<token id> --to <address> --amount <n> [--chain-id <n>] [--into <sigs.json>]
       cairn bridge attest [--secret <hex>] --committee <members.json> --threshold <k> --epoch <n> [--chain-id <n>] [--into <sigs.json>]

Signs, as a committee member (offline, nothing is sent), an inbound deposit's digest or a
new committee's digest, with both secp256k1 and ML-DSA-44: prints {signer, secp256k1,
mldsa44}, or with --into adds it to that JSON list (replacing your earlier one), ready for
"cairn bridge in --signatures" or "cairn bridge rotate --signatures". The digests are in
docs/PROTOCOL.md "Bridge"; each binds the Cairn chain it is for: --chain-id, the chain
id of its chain specification (GET /status chainId; default 72020, the development
network). The secret is --secret or $CAIRN_SECRET.`,
};

/**
 * A members file as "cairn bridge rotate --members" sends it: the same shape check, and the
 * members as the node reads them (lower-case hex), so the digest signed here is the one the
 * rotation is checked against whatever case the file spells its keys in.
 */
function committeeMembers(v: unknown): CommitteeMember[] {
  const field = bridgeCommitteeUpdate.fields!.members;
  for (const c of field.checks) if (!Value.Check(c.schema, v)) usage(`--committee ${c.reason}`);
  return field.read(v);
}

/** A JSON file's content, or a usage error naming the flag. */
async function readJson(flag: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return usage(`${flag}: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    return usage(`${flag}: ${file} is not JSON: ${(e as Error).message}`);
  }
}

/** Read sub-commands by group, in help order. */
export const READ_SUBS: Record<string, readonly string[]> = {
  token: ['info', 'holders', 'transfers', 'list'],
  nft: ['info', 'list'],
  name: ['resolve', 'list'],
  stake: ['validators'],
  gov: ['list', 'show', 'params', 'treasury'],
  resource: [],
  vesting: [],
  oracle: ['list'],
  ai: ['list', 'show', 'commitment'],
  bridge: ['list', 'show', 'status', 'member', 'attest'],
};

export const READ_COMMANDS: Record<string, Command> = Object.fromEntries(Object.entries(READ).map(([k, spec]) => [k, readCommand(k, spec)]));
export const READ_HELP: Record<string, string> = Object.fromEntries(Object.entries(READ).map(([k, s]) => [k, s.help]));
