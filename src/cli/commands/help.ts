import type { CliFlag, CliMeta } from '../../modules/tx/entry';
import { DEFAULT_NODE, DEFAULT_POLL_MS, DEFAULT_WAIT_TIMEOUT_MS, NETWORK_HELP } from '../common';

/** Help texts of the write commands, rendered from the registry entries' CLI metadata. */

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
${NETWORK_HELP}

Prints {accepted, id, reason?} (with --wait also {outcome, blockHeight?, blockHash?}).
Exit: 0 accepted (and included/finalized), 1 refused/failed/dropped, 2 usage error,
3 unknown (a timeout or a lost answer: check with "cairn tx wait <id>" before resending).`;

/** Help column: option names are padded to 21 characters, continuation lines indented under the text. */
const OPTION_WIDTH = 19;
const CONTINUATION = `\n${' '.repeat(2 + OPTION_WIDTH + 2)}`;

/** How a flag is spelled in usage and help: "--to <address>", "--mintable", "<name>". */
export const spelled = (f: CliFlag): string =>
  f.flag.startsWith('<') ? f.flag : `--${f.flag}${f.metavar ? ` ${f.metavar}` : ''}`;

/** The 'clear' flag paired with `f` (same field), if any. */
export const clearOf = (cli: CliMeta, f: CliFlag): CliFlag | undefined =>
  f.kind === 'clear' ? undefined : cli.flags.find((c) => c.kind === 'clear' && c.field === f.field);

const isOptional = (f: CliFlag): boolean =>
  f.optional === true || f.default !== undefined || f.kind === 'switch' || f.kind === 'unless';

export function usageLine(cli: CliMeta): string {
  if (cli.usage) return `${cli.command} ${cli.usage}`;
  const parts: string[] = [];
  for (const f of cli.flags) {
    if (f.kind === 'clear') continue;
    const clear = clearOf(cli, f);
    if (clear) parts.push(`(${spelled(f)} | --${clear.flag})`);
    else parts.push(isOptional(f) ? `[${spelled(f)}]` : spelled(f));
  }
  return [cli.command, ...parts].join(' ');
}

/** A flag and its help; a flag too long for the column gets its help on the next line. */
export function flagLine(f: CliFlag): string {
  const name = spelled(f);
  const help = f.help.split('\n').join(CONTINUATION);
  return name.length > OPTION_WIDTH ? `  ${name}${CONTINUATION}${help}` : `  ${name.padEnd(OPTION_WIDTH)}  ${help}`;
}

export const writeHelp = (cli: CliMeta): string =>
  `Usage: cairn ${usageLine(cli)}

${[cli.about, ...(cli.flags.length ? [cli.flags.map(flagLine).join('\n')] : [])].join('\n\n')}

${WRITE_COMMON_HELP}

Example:
  ${cli.example}`;

/** The "Send" lines of a group's help: the command (with its positional) padded, then its summary. */
export function sendLines(clis: readonly CliMeta[]): string {
  const left = (c: CliMeta) =>
    [c.command, ...c.flags.filter((f) => f.flag.startsWith('<')).map((f) => f.flag)].join(' ');
  const width = Math.max(...clis.map((c) => left(c).length)) + 3;
  return clis.map((c) => `  ${left(c).padEnd(width)}${c.summary}`).join('\n');
}

/** Greedy word wrap: `prefix` starts the first line, later lines start with `indent`; lines end before `width`. */
export function wrap(prefix: string, words: readonly string[], indent: string, width: number): string {
  const lines: string[] = [];
  let line = prefix;
  words.forEach((w, i) => {
    if (i > 0 && line.length + 1 + w.length > width) {
      lines.push(line);
      line = indent + w;
    } else line = i === 0 ? line + w : `${line} ${w}`;
  });
  lines.push(line);
  return lines.join('\n');
}
