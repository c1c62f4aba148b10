import type { ExecState } from '../../protocol/execState';
import { MAX_TOKEN_AMOUNT } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { requireOwner } from '../assets/common';
import { TxFailure } from '../../protocol/handler';
import { TOKEN } from './errors';
import type { RunCtx, ToRule } from '../tx/entry';
import {
  getFreeze,
  getToken,
  getTokenBalance,
  isBlacklisted,
  putToken,
  setTokenBalance,
  type TokenRecord,
} from './records';

/**
 * Shared state-dependent rules of the FT20 handlers and the one place token balances and
 * supplies change (with their events). Every rule fails with TxFailure; applyTx reverts.
 */

/** What the ledger needs of a handler's context: state, height and the event list. */
type LedgerCtx = Pick<RunCtx<ToRule>, 'state' | 'height' | 'events'>;

/** Who an address is in the transaction, as refusal reasons name it. */
export type Role = 'sender' | 'recipient' | 'owner' | 'spender';

export async function loadToken(s: ExecState, id: Hex): Promise<TokenRecord> {
  const t = await getToken(s, id);
  if (!t) throw new TxFailure(TOKEN.TOKEN_UNKNOWN({ token: id }));
  return t;
}

/** Loads the token and fails unless `who` owns it (admin types). */
export async function loadOwnedToken(s: ExecState, id: Hex, who: Address): Promise<TokenRecord> {
  const t = await loadToken(s, id);
  requireOwner(who, t.owner, 'this token');
  return t;
}

export function requireUnpaused(t: TokenRecord): void {
  if (t.paused) throw new TxFailure(TOKEN.TOKEN_PAUSED({ token: t.id }));
}

export async function requireNotBlacklisted(s: ExecState, t: TokenRecord, who: Address, role: Role): Promise<void> {
  if (await isBlacklisted(s, t.id, who))
    throw new TxFailure(TOKEN.TOKEN_BLACKLISTED({ token: t.id, address: who, role }));
}

/** The height until which `holder` is frozen, if that is still ahead of `height`. */
export async function frozenUntil(s: ExecState, id: Hex, holder: Address, height: number): Promise<number | undefined> {
  const f = await getFreeze(s, id, holder);
  return f && height < f.until ? f.until : undefined;
}

export async function requireNotFrozen(
  s: ExecState,
  t: TokenRecord,
  holder: Address,
  height: number,
  role: Role,
): Promise<void> {
  const until = await frozenUntil(s, t.id, holder, height);
  if (until !== undefined) throw new TxFailure(TOKEN.TOKEN_FROZEN({ token: t.id, address: holder, role, until }));
}

/** Loads a token whose balances may move now (TRANSFER, TRANSFER_FROM, MINT, BURN). */
export async function loadUnpausedToken(s: ExecState, id: Hex): Promise<TokenRecord> {
  const t = await loadToken(s, id);
  requireUnpaused(t);
  return t;
}

/** `holder` may send the token at `height`: not blacklisted, not frozen. */
export async function requireCanSend(c: LedgerCtx, t: TokenRecord, holder: Address, role: Role): Promise<void> {
  await requireNotBlacklisted(c.state, t, holder, role);
  await requireNotFrozen(c.state, t, holder, c.height, role);
}

/**
 * Adds `delta` (may be negative) to a holder's balance; emits token.balance. Returns the
 * change in the token's holder count: +1 when the balance leaves zero, −1 when it reaches it.
 */
async function adjustBalance(c: LedgerCtx, id: Hex, holder: Address, delta: bigint): Promise<number> {
  const previous = await getTokenBalance(c.state, id, holder);
  const balance = previous + delta;
  if (balance < 0n)
    throw new TxFailure(TOKEN.TOKEN_INSUFFICIENT_BALANCE({ token: id, holder, balance: previous, amount: -delta }));
  await setTokenBalance(c.state, id, holder, balance);
  c.events.push({
    kind: 'token.balance',
    token: id,
    holder,
    previous: previous.toString(),
    balance: balance.toString(),
  });
  return (previous === 0n && balance > 0n ? 1 : 0) - (previous > 0n && balance === 0n ? 1 : 0);
}

/**
 * Moves `amount` of a token: `from` null is a mint (supply grows, at most to 2^256 − 1),
 * `to` null is a burn (supply shrinks). Emits token.transfer, then one token.balance per
 * changed holder (sender first). Callers check pause, blacklist, freeze and allowance first.
 */
export async function moveTokens(
  c: LedgerCtx,
  t: TokenRecord,
  from: Address | null,
  to: Address | null,
  amount: bigint,
): Promise<void> {
  const supply = BigInt(t.supply) + (from === null ? amount : 0n) - (to === null ? amount : 0n);
  if (supply > MAX_TOKEN_AMOUNT)
    throw new TxFailure(TOKEN.TOKEN_SUPPLY_OVERFLOW({ token: t.id, supply: BigInt(t.supply), amount }));
  c.events.push({ kind: 'token.transfer', token: t.id, from, to, amount: amount.toString() });
  let holders = t.holders;
  if (from !== null) holders += await adjustBalance(c, t.id, from, -amount);
  if (to !== null) holders += await adjustBalance(c, t.id, to, amount);
  if (supply !== BigInt(t.supply) || holders !== t.holders)
    await putToken(c.state, { ...t, supply: supply.toString(), holders });
}
