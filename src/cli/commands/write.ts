import { readFile } from 'node:fs/promises';
import { deriveKeys } from '../../crypto/keys';
import { isCairnError } from '../../errors/CairnError';
import { ENTRIES } from '../../modules/registry';
import type { AnyTxEntry, CliFlag, CliMeta } from '../../modules/tx/entry';
import { parseAmount } from '../../primitives/amount';
import { buildTx, createdAssetId, createdAssetKind, type TxInput, type UnsignedTx } from '../../sdk/assets';
import { CairnClient, type TxRecord } from '../../sdk/client';
import {
  EXIT,
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
  type OptionDefs,
  NETWORK_OPTIONS,
  networkOf,
} from '../common';
import { nameArg, need, resolveCollection, resolveToken, type Command, type Ctx } from './context';
import { clearOf, spelled, writeHelp } from './help';

/**
 * The write commands (`cairn token create`, `cairn nft mint`…), one per registry entry with
 * CLI metadata: its flags become the builder's input (sdk/assets buildAssetTx), which is
 * signed and submitted (or printed with --sign-only).
 */

const WRITE_OPTIONS: OptionDefs = {
  secret: { type: 'string' },
  nonce: { type: 'string' },
  fee: { type: 'string' },
  timestamp: { type: 'string' },
  'sign-only': { type: 'boolean' },
  ...SEND_OPTIONS,
  ...NETWORK_OPTIONS,
};

/** The parseArgs options of a command's own flags. */
const optionsOf = (cli: CliMeta): OptionDefs =>
  Object.fromEntries(
    cli.flags
      .filter((f) => !f.flag.startsWith('<'))
      .map((f) => [
        f.flag,
        f.kind === 'map'
          ? { type: 'string', multiple: true }
          : { type: f.metavar === undefined ? 'boolean' : 'string' },
      ]),
  );

/** A repeatable `<address>=<amount>` flag as an object (the builder checks addresses and amounts). */
function mapOf(name: string, raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of (Array.isArray(raw) ? raw : []) as string[]) {
    const eq = item.lastIndexOf('=');
    if (eq <= 0) usage(`${name} takes <address>=<amount>, got "${item}"`);
    const key = parseAddressArg(name, item.slice(0, eq));
    if (Object.hasOwn(out, key)) usage(`${name} names ${key} twice`);
    out[key] = item.slice(eq + 1);
  }
  return out;
}

/** One flag's value for the builder (undefined: leave the input field out). */
async function flagValue(ctx: Ctx, cli: CliMeta, f: CliFlag): Promise<unknown> {
  const { values } = ctx;
  const raw = values[f.flag];
  switch (f.kind) {
    case 'switch':
      return raw === true ? true : undefined;
    case 'unless':
      return raw !== true;
    case 'clear': // a map's clear flag gives the empty map (VOTE --none: no votes)
      return raw !== true ? undefined : cli.flags.some((p) => p.kind === 'map' && p.field === f.field) ? {} : null;
    case 'map':
      return raw === undefined && f.optional ? undefined : mapOf(`--${f.flag}`, raw);
  }
  if (f.flag.startsWith('<')) return nameArg(ctx, cli.command);
  if (raw === undefined && (f.optional || f.default !== undefined)) return f.default;
  const name = `--${f.flag}`;
  switch (f.kind) {
    case 'text':
      return f.optional ? str(raw) : need(values, f.flag);
    case 'int':
      return parseNonNegInt(name, need(values, f.flag));
    case 'address':
      return parseAddressArg(name, need(values, f.flag));
    case 'token':
      return resolveToken(ctx, name, need(values, f.flag));
    case 'collection':
      return resolveCollection(ctx, name, need(values, f.flag));
    case 'coins': {
      const v = need(values, f.flag);
      if (!/^[1-9][0-9]*$/.test(v))
        usage(`${name} must be a positive integer of base units (1 coin = 1000000), got "${v}"`);
      return v;
    }
    case 'json':
      return jsonFile(name, need(values, f.flag));
  }
}

/** The parsed content of a JSON file (the builder checks what it holds). */
async function jsonFile(name: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return usage(`${name}: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    return usage(`${name}: ${file} is not JSON: ${(e as Error).message}`);
  }
}

/** The builder input a command's flags give, in the order of its flags. */
async function inputOf(entry: AnyTxEntry, cli: CliMeta, ctx: Ctx): Promise<TxInput> {
  for (const f of cli.flags) {
    const clear = clearOf(cli, f);
    if (clear && (ctx.values[clear.flag] === true) === (ctx.values[f.flag] !== undefined))
      usage(cli.exclusive ?? `give exactly one of ${spelled(f)} or --${clear.flag}`);
  }
  const input: Record<string, unknown> = { type: entry.type };
  for (const f of cli.flags) {
    const clear = clearOf(cli, f);
    if (clear && ctx.values[clear.flag] === true) continue; // the clear flag gives the value
    const v = await flagValue(ctx, cli, f);
    if (v === undefined) continue;
    const [field, part] = f.field.split('.');
    if (part === undefined) input[field] = v;
    else input[field] = { ...(input[field] as object | undefined), [part]: v };
  }
  return input as unknown as TxInput;
}

/** The builder's field-prefixed message, with the field spelled as the user typed it. */
function buildOrUsage(cli: CliMeta, input: TxInput): UnsignedTx {
  try {
    return buildTx(input);
  } catch (e) {
    if (!isCairnError(e) || e.code !== 'INVALID_ASSET_TX') throw e;
    const field = String(e.meta.field ?? '');
    const flag = cli.flags.find((f) => (f.field === field || f.field.startsWith(`${field}.`)) && f.kind !== 'clear');
    const as = flag ? (flag.flag.startsWith('<') ? flag.flag : `--${flag.flag}`) : `--${field}`;
    return usage(typeof e.meta.problem === 'string' ? `${as} ${e.meta.problem}` : e.message);
  }
}

function writeCommand(entry: AnyTxEntry, cli: CliMeta): Command {
  const positional = cli.flags.some((f) => f.flag.startsWith('<'));
  const report = entry.report;
  const fromRecord =
    report && ((record: TxRecord | null) => report((record?.result as { events?: never[] } | undefined)?.events ?? []));
  return async (args, io) => {
    const { values, positionals } = parse(
      cli.command,
      args,
      { ...optionsOf(cli), ...WRITE_OPTIONS },
      positional ? 1 : 0,
    );
    if (values.help) {
      io.out(writeHelp(cli));
      return EXIT.OK;
    }
    const signOnly = values['sign-only'] === true;
    if (signOnly && (values.wait !== undefined || values.timeout !== undefined || values.poll !== undefined))
      usage('--wait, --timeout and --poll do not apply with --sign-only (nothing is sent)');
    const wait = parseWaitFlags(values);
    const nonceFlag = str(values.nonce) !== undefined ? parseNonNegInt('--nonce', str(values.nonce)!) : undefined;
    const fee = str(values.fee);
    if (fee !== undefined && parseAmount(fee) === undefined)
      usage(`--fee must be a non-negative integer in base units (1 coin = 1000000), got "${fee}"`);
    const timestamp =
      str(values.timestamp) !== undefined ? parsePositiveInt('--timestamp', str(values.timestamp)!) : undefined;
    const keys = deriveKeys(parseSecret(str(values.secret), io.env));
    let client: CairnClient | undefined;
    const ctx: Ctx = { values, positionals, client: () => (client ??= new CairnClient(nodeUrl(values, io.env))) };
    if (!signOnly || nonceFlag === undefined || values.node !== undefined) ctx.client(); // check --node early

    const unsigned = buildOrUsage(cli, await inputOf(entry, cli, ctx));
    const nonce = nonceFlag ?? (await ctx.client().nextNonce(keys.address));
    const tx = sign(
      keys,
      { ...unsigned, ...(fee !== undefined ? { fee } : {}), ...(timestamp !== undefined ? { timestamp } : {}) },
      nonce,
      await networkOf(values, ctx.client),
    );
    const created = createdAssetId(tx);
    const kind = createdAssetKind(tx.type);
    const extra: Record<string, unknown> = created === undefined || kind === undefined ? {} : { [kind]: created };
    if (signOnly) {
      printEnvelope(io, tx);
      if (created !== undefined) io.err(`${kind} id: ${created}`);
      return EXIT.OK;
    }
    return submitAndReport(
      io,
      ctx.client(),
      tx,
      wait,
      extra,
      fromRecord,
      cli.acceptedNote?.(tx.data as Record<string, unknown> | null),
    );
  };
}

/** The entries the CLI sends, in registry order. */
export const WRITE_ENTRIES = ENTRIES.filter((e): e is AnyTxEntry & { cli: CliMeta } => e.cli !== undefined);

export const WRITE_COMMANDS: Record<string, Command> = Object.fromEntries(
  WRITE_ENTRIES.map((e) => [e.cli.command, writeCommand(e, e.cli)]),
);
export const WRITE_HELP: Record<string, string> = Object.fromEntries(
  WRITE_ENTRIES.map((e) => [e.cli.command, writeHelp(e.cli)]),
);
