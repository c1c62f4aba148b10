import type { AccountState } from '../protocol/types';

/**
 * Scale between the native surface (base units) and the VM surface (wei): 1 base unit =
 * 10^12 wei (docs/PROTOCOL.md "VM"). The sub-base-unit part of an account's VM balance is kept in
 * `weiRemainder` (always < 10^12), so the conversion never creates or destroys value:
 * `weiBalance(withWeiBalance(a, w)) === w` for every w >= 0.
 */
export const WEI_PER_BASE = 10n ** 12n;

/** The account's whole balance in wei: balance × 10^12 + weiRemainder. */
export function weiBalance(a: AccountState): bigint {
  return a.balance * WEI_PER_BASE + a.weiRemainder;
}

/** A copy of `a` holding exactly `wei` (>= 0): balance = wei / 10^12, weiRemainder = wei % 10^12. */
export function withWeiBalance(a: AccountState, wei: bigint): AccountState {
  if (wei < 0n) throw new RangeError(`negative wei balance ${wei}`);
  return { ...a, balance: wei / WEI_PER_BASE, weiRemainder: wei % WEI_PER_BASE };
}

/** Base units to wei (exact). */
export const baseToWei = (base: bigint): bigint => base * WEI_PER_BASE;
