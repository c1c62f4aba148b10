import { SYMBOL_RE } from '../../protocol/params';
import { CairnError } from '../../errors/CairnError';
import type { CairnClient } from '../../sdk/client';
import { str, usage, type CliIo, type Flags } from '../common';

/** What the asset commands share: their parsed flags, a client made on first use, the id-or-symbol lookups. */

export type Command = (args: string[], io: CliIo) => Promise<number>;

/** What a command's flags turn into, with a client created on first use. */
export interface Ctx {
  values: Flags;
  positionals: string[];
  client(): CairnClient;
}

export const need = (values: Flags, flag: string): string => {
  const v = str(values[flag]);
  if (v === undefined || v === '') return usage(`--${flag} is required`);
  return v;
};

export const ADDRESS_LIKE = /^0x[0-9a-fA-F]{40}$/;

/** A token given by id (used as is) or by symbol (looked up on the node). */
export async function resolveToken(ctx: Ctx, flag: string, v: string): Promise<string> {
  if (ADDRESS_LIKE.test(v)) return v.toLowerCase();
  const symbol = v.toUpperCase();
  if (!SYMBOL_RE.test(symbol))
    usage(`${flag} must be a token id (0x + 40 hex) or a token symbol (e.g. USDC), got "${v}"`);
  const t = await ctx.client().token(symbol);
  if (!t) throw new CairnError('NOT_FOUND', `no token with symbol ${symbol} on ${ctx.client().baseUrl}`);
  return t.id;
}

/** A collection given by id (used as is) or by symbol (looked up on the node). */
export async function resolveCollection(ctx: Ctx, flag: string, v: string): Promise<string> {
  if (ADDRESS_LIKE.test(v)) return v.toLowerCase();
  const symbol = v.toUpperCase();
  if (!SYMBOL_RE.test(symbol))
    usage(`${flag} must be a collection id (0x + 40 hex) or a collection symbol, got "${v}"`);
  const c = await ctx.client().nftCollection(symbol, { limit: 1 });
  if (!c) throw new CairnError('NOT_FOUND', `no collection with symbol ${symbol} on ${ctx.client().baseUrl}`);
  return c.id;
}

export function nameArg(ctx: Ctx, cmd: string): string {
  const name = ctx.positionals[0];
  if (name === undefined) return usage(`missing name: cairn ${cmd} <name>`);
  return name;
}
