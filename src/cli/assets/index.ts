import type { Command } from './context';
import { sendLines, wrap } from './help';
import { READ_COMMANDS, READ_HELP, READ_SUBS } from './read';
import { WRITE_COMMANDS, WRITE_ENTRIES, WRITE_HELP } from './write';

/**
 * `cairn token …`, `cairn nft …`, `cairn name …`: the write commands generated from the
 * registry entries (write.ts), the read commands (read.ts), and the groups' help.
 */

/** Each group: what `cairn --help` calls it, and the frame of its own help around the generated "Send" lines. */
const GROUPS = {
  token: {
    title: 'FT20 tokens',
    intro: `Usage: cairn token <sub> [options]

FT20 tokens. Amounts are integers in the token's base units.`,
    read: `  token info <token>        the token
  token holders <token>     holders and balances, paginated
  token transfers <token>   transfers, paginated
  token list                all tokens, paginated

--token and <token> take a token id (0x + 40 hex) or its symbol.`,
  },
  nft: {
    title: 'NFT721',
    intro: `Usage: cairn nft <sub> [options]

NFT721 collections and items.`,
    read: `  nft info <collection>[:<item>]   a collection or one item
  nft list                         all collections, paginated

--collection and <collection> take a collection id (0x + 40 hex) or its symbol.`,
  },
  name: {
    title: 'name service',
    intro: `Usage: cairn name <sub> <name> [options]

The name service: names of 3 to 32 characters of a-z, 0-9 and '-'.`,
    read: `  name resolve <name>    the address it resolves to, its owner
  name list              all names, paginated
`,
  },
} as const;
type Group = keyof typeof GROUPS;

const writesOf = (group: Group) => WRITE_ENTRIES.filter((e) => e.cli.command.split(' ')[0] === group).map((e) => e.cli);
const subOf = (command: string) => command.split(' ')[1];

/** `cairn <group> <sub>` sub-commands by group: the writes in registry order, then the reads. */
export const ASSET_GROUPS: Record<string, readonly string[]> = Object.fromEntries(
  Object.keys(GROUPS).map((g) => [g, [...writesOf(g as Group).map((c) => subOf(c.command)), ...READ_SUBS[g]]]),
);

/** Lines of `cairn --help` for the asset groups. */
export const ASSET_MAIN_HELP = Object.entries(GROUPS)
  .map(([g, { title }]) => {
    const writes = writesOf(g as Group).map((c) => subOf(c.command));
    const words = [...writes.map((s, i) => (i === writes.length - 1 ? `${s};` : `${s},`)), ...READ_SUBS[g].map((s, i, all) => (i < all.length - 1 ? `${s},` : s))];
    return wrap(`  ${`${g} <sub>`.padEnd(20)}${title}: `, words, ' '.repeat(22), 88);
  })
  .join('\n');

const groupHelp = (g: Group): string => `${GROUPS[g].intro}

Send (sign, submit, optionally --wait; or --sign-only):
${sendLines(writesOf(g))}

Read:
${GROUPS[g].read}
Run "cairn ${g} <sub> --help" for details.`;

export const ASSET_COMMANDS: Record<string, Command> = { ...WRITE_COMMANDS, ...READ_COMMANDS };

/** Help texts by command key ("token", "token create", …). */
export const ASSET_HELP: Record<string, string> = {
  ...Object.fromEntries(Object.keys(GROUPS).map((g) => [g, groupHelp(g as Group)])),
  ...WRITE_HELP,
  ...READ_HELP,
};
