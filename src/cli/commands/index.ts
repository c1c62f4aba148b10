import type { Command } from './context';
import { sendLines, wrap } from './help';
import { READ_COMMANDS, READ_HELP, READ_SUBS } from './read';
import { WRITE_COMMANDS, WRITE_ENTRIES, WRITE_HELP } from './write';

/**
 * The command groups (`cairn token …`, `nft`, `name`, `stake`, `gov`, `resource`, `vesting`,
 * `oracle`, `ai`, `bridge`): the write commands generated from the registry entries
 * (write.ts), the read commands (read.ts), and the groups' help.
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
  stake: {
    title: 'staking and elections',
    intro: `Usage: cairn stake <sub> [options]

Staking, validator candidacy and votes. Amounts are integers in base units of the
native coin (1 coin = 1000000).`,
    read: `  stake validators     the active set, candidates, the slot producer, performance
`,
  },
  gov: {
    title: 'governance and treasury',
    intro: `Usage: cairn gov <sub> [options]

Proposals to change governable parameters or spend from the treasury, voted by stake.
A proposal is VOTING, then QUEUED (timelock), EXECUTED or FAILED; or REJECTED, VETOED
or EXPIRED. Follow changes with "cairn gov list --since <height>".`,
    read: `  gov list             proposals, by status or changed since a height
  gov show <id>        one proposal: status, tally, history
  gov params           every governable parameter with its bounds
  gov treasury         the treasury's balance, income and spends
`,
  },
  resource: {
    title: 'resource delegation',
    intro: `Usage: cairn resource <sub> [options]

Lend the energy capacity of your stake to another account, and take it back.`,
    read: `  cairn account <address> shows maxEnergy, delegatedOut and delegatedIn.
`,
  },
  vesting: {
    title: 'vesting',
    intro: `Usage: cairn vesting <sub> [options]

Linear vesting schedules with a cliff, counted in blocks.`,
    read: `  cairn account <address> shows the balances; a schedule's id is its
  VESTING_CREATE transaction's id (cairn tx wait <id>).
`,
  },
  oracle: {
    title: 'oracles',
    intro: `Usage: cairn oracle <sub> [options]

Oracles stake (at least MIN_ORACLE_STAKE) to answer AI tasks: commit-reveal quorums, bids
and designated tasks, and to judge disputes. Amounts are base units (1 coin = 1000000).`,
    read: `  oracle list          every oracle: stake, completed, failed, missed, late, reputation
`,
  },
  ai: {
    title: 'AI tasks',
    intro: `Usage: cairn ai <sub> [options]

Tasks answered by staked oracles: a quorum (commit, then reveal), a designated oracle, or
an auction. A task is COMMIT → REVEAL → CHALLENGE → DONE (quorum), PENDING → CHALLENGE →
DONE (designated), BIDDING → PENDING → … (auction); DISPUTED → UPHELD | OVERTURNED when
challenged; EXPIRED → REFUNDED when nothing was decided. Windows are counted in blocks.`,
    read: `  ai list              tasks, filtered; --since <height> follows transitions with a cursor
  ai show <id>         one task: state, deadlines, commits, reveals, result, history
  ai commitment        computes the AI_COMMIT hash of an output and salt (offline)
`,
  },
  bridge: {
    title: 'bridge',
    intro: `Usage: cairn bridge <sub> [options]

Coins and tokens locked here for payout on another chain (LOCKED → PAID when a committee
member settles), and deposits from other chains released on a quorum of the committee's
hybrid signatures (ATTESTED → RELEASED, or DELAYED by the circuit breaker until its
release height, or REFUSED). The first committee comes from "cairn gov propose --committee".`,
    read: `  bridge list          transfers, filtered; --since <height> follows transitions with a cursor
  bridge show <id>     one transfer: state, releaseAt and countdown, reason, history
  bridge status        the committee, the pools and the breaker's current window
  bridge member        your committee entry {address, secp256k1, mldsa44} (offline)
  bridge attest        signs a deposit or a new committee as a member (offline)
`,
  },
} as const;
type Group = keyof typeof GROUPS;

const writesOf = (group: Group) => WRITE_ENTRIES.filter((e) => e.cli.command.split(' ')[0] === group).map((e) => e.cli);
const subOf = (command: string) => command.split(' ')[1];

/** `cairn <group> <sub>` sub-commands by group: the writes in registry order, then the reads. */
export const COMMAND_GROUPS: Record<string, readonly string[]> = Object.fromEntries(
  Object.keys(GROUPS).map((g) => [g, [...writesOf(g as Group).map((c) => subOf(c.command)), ...READ_SUBS[g]]]),
);

/** Lines of `cairn --help` for the asset groups. */
export const GROUPS_MAIN_HELP = Object.entries(GROUPS)
  .map(([g, { title }]) => {
    const writes = writesOf(g as Group).map((c) => subOf(c.command));
    const words = [
      ...writes.map((s, i) => (i < writes.length - 1 ? `${s},` : READ_SUBS[g].length > 0 ? `${s};` : s)),
      ...READ_SUBS[g].map((s, i, all) => (i < all.length - 1 ? `${s},` : s)),
    ];
    return wrap(`  ${`${g} <sub>`.padEnd(20)}${title}: `, words, ' '.repeat(22), 88);
  })
  .join('\n');

const groupHelp = (g: Group): string => `${GROUPS[g].intro}

Send (sign, submit, optionally --wait; or --sign-only):
${sendLines(writesOf(g))}

Read:
${GROUPS[g].read}
Run "cairn ${g} <sub> --help" for details.`;

export const GROUP_COMMANDS: Record<string, Command> = { ...WRITE_COMMANDS, ...READ_COMMANDS };

/** Help texts by command key ("token", "token create", …). */
export const GROUP_HELP: Record<string, string> = {
  ...Object.fromEntries(Object.keys(GROUPS).map((g) => [g, groupHelp(g as Group)])),
  ...WRITE_HELP,
  ...READ_HELP,
};
