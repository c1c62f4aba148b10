import { CairnClient } from '../../sdk/client';
import { ParamError, ROUTES, type Param, type RouteSpec } from '../../sdk/routes';
import { DEFAULT_NODE, EXIT, json, nodeUrl, parse, str, usage, type CliIo, type OptionDefs } from '../common';
import type { Command } from './context';
import { OFFLINE_COMMANDS, OFFLINE_HELP, OFFLINE_SUBS } from './offline';

/**
 * The read commands, derived from the node's route table (views/routes): a route with `cli`
 * is `cairn <group> <verb>`, its path parameters are the positional arguments in order, each
 * query parameter is a `--flag` (true/false ones a switch), and the answer is printed as JSON.
 * Each value is checked here by the reader the node uses (a bad one is a usage error, exit 2,
 * and nothing is sent); what only the node can tell (a height above its head) comes back as
 * its 400 (exit 1); a 404 is the node's "not found" (exit 1).
 */

/** The route's own reader, run here: a value the node would refuse never leaves the CLI. */
function check(p: Param, raw: string | undefined, name: string, shown: string): void {
  try {
    p.read(raw, name);
  } catch (e) {
    if (e instanceof ParamError) usage(`${shown}: ${e.message}`);
    throw e;
  }
}

const NODE_HELP = `  --node <url>         node URL (default $CAIRN_NODE or ${DEFAULT_NODE})`;

const isSwitch = (p: Param) =>
  JSON.stringify((p.schema as { enum?: unknown }).enum) === JSON.stringify(['true', 'false', '1', '0']);
const flagLine = (name: string, p: Param) => {
  const left = `  --${name}${isSwitch(p) ? '' : ` <${name}>`}`;
  return `${left.padEnd(23)}${(p.schema as { description?: string }).description ?? ''}`;
};

interface ReadRoute {
  route: RouteSpec;
  name: string;
  command: string;
}

const READS: ReadRoute[] = Object.entries(ROUTES as Record<string, RouteSpec>)
  .filter(([, r]) => r.cli !== undefined)
  .map(([name, r]) => ({ route: r, name, command: r.cli!.command }));

function helpOf({ route: r, command }: ReadRoute): string {
  const params = Object.keys(r.params ?? {});
  const query = Object.entries((r.query ?? {}) as Record<string, Param>);
  const usageLine = [
    `Usage: cairn ${command}`,
    ...params.map((p) => `<${p}>`),
    ...query.map(([k, p]) => `[--${k}${isSwitch(p) ? '' : ` <${k}>`}]`),
    '[--node <url>]',
  ].join(' ');
  return [
    usageLine,
    '',
    `Prints GET ${r.path}: ${r.summary}.${r.cli?.help ? `\n${r.cli.help}` : ''}`,
    ...(r.nullIfMissing ? ['Exit 1 when the node has no such thing.'] : []),
    '',
    ...query.map(([k, p]) => flagLine(k, p)),
    NODE_HELP,
    ...(r.cli?.example ? ['', 'Example:', `  ${r.cli.example}`] : []),
  ].join('\n');
}

function readCommand(read: ReadRoute): Command {
  const r = read.route;
  const params = Object.keys(r.params ?? {});
  const query = Object.entries((r.query ?? {}) as Record<string, Param>);
  const options: OptionDefs = { node: { type: 'string' } };
  for (const [k, p] of query) options[k] = { type: isSwitch(p) ? 'boolean' : 'string' };
  // A lookup's 404 is the node's own "not found: …" message (exit 1), not a null.
  const raw: RouteSpec = { ...r, nullIfMissing: false };
  return async (args: string[], io: CliIo) => {
    const { values, positionals } = parse(read.command, args, options, params.length);
    if (values.help) {
      io.out(helpOf(read));
      return EXIT.OK;
    }
    if (positionals.length < params.length)
      usage(`missing <${params[positionals.length]}>: ${helpOf(read).split('\n')[0].slice('Usage: '.length)}`);
    for (const [i, k] of params.entries()) check((r.params as Record<string, Param>)[k], positionals[i], k, `<${k}>`);
    const q: Record<string, string> = {};
    for (const [k, p] of query) {
      const v = values[k] === true ? 'true' : str(values[k]);
      if (v === undefined) continue;
      check(p, v, k, `--${k}`);
      q[k] = v;
    }
    const client = new CairnClient(nodeUrl(values, io.env));
    io.out(json(await client.call(raw, [...positionals, ...(query.length ? [q] : [])])));
    return EXIT.OK;
  };
}

const verbOf = (command: string) => command.slice(command.indexOf(' ') + 1);
const groupOf = (command: string) => command.slice(0, command.indexOf(' '));

/** Read sub-commands by group, in help order: the routes' reads, then what is computed here. */
export const READ_SUBS: Record<string, readonly string[]> = Object.fromEntries(
  ['token', 'nft', 'name', 'stake', 'gov', 'resource', 'vesting', 'oracle', 'ai', 'bridge'].map((g) => [
    g,
    [...READS.filter((x) => groupOf(x.command) === g).map((x) => verbOf(x.command)), ...(OFFLINE_SUBS[g] ?? [])],
  ]),
);

export const READ_COMMANDS: Record<string, Command> = {
  ...Object.fromEntries(READS.map((x) => [x.command, readCommand(x)])),
  ...OFFLINE_COMMANDS,
};
export const READ_HELP: Record<string, string> = {
  ...Object.fromEntries(READS.map((x) => [x.command, helpOf(x)])),
  ...OFFLINE_HELP,
};
