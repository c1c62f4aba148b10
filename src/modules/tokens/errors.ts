import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/**
 * Why the FT20 token types are refused. `role` names the address as the transaction does (sender, recipient, owner,
 * spender).
 */
export const TOKEN = refusals('tokens', {
  TOKEN_SYMBOL_TAKEN: (_m: { symbol: string }) => 'symbol already taken',
  TOKEN_UNKNOWN: (_m: { token: Hex }) => 'unknown token',
  TOKEN_PAUSED: (_m: { token: Hex }) => 'token is paused',
  TOKEN_ALREADY_PAUSED: (_m: { token: Hex }) => 'token is already paused',
  TOKEN_NOT_PAUSED: (_m: { token: Hex }) => 'token is not paused',
  TOKEN_NOT_MINTABLE: (_m: { token: Hex }) => 'token is not mintable',
  TOKEN_ALREADY_BLACKLISTED: (_m: { token: Hex; address: Address }) => 'address is already blacklisted',
  TOKEN_NOT_BLACKLISTED: (_m: { token: Hex; address: Address }) => 'address is not blacklisted',
  TOKEN_BLACKLISTED: (m: { token: Hex; address: Address; role: string }) => `${m.role} is blacklisted`,
  /** The address has frozen its own balance (TOKEN_FREEZE) until a height still ahead: it cannot send or burn. */
  TOKEN_FROZEN: (m: { token: Hex; address: Address; role: string; until: number }) =>
    `${m.role} is frozen until height ${m.until}`,
  TOKEN_INSUFFICIENT_BALANCE: (_m: { token: Hex; holder: Address; balance: bigint; amount: bigint }) =>
    'insufficient token balance',
  /** A mint would take the supply above MAX_TOKEN_AMOUNT. */
  TOKEN_SUPPLY_OVERFLOW: (_m: { token: Hex; supply: bigint; amount: bigint }) =>
    'mint would take the supply above 2^256 − 1',
  TOKEN_ALLOWANCE_TOO_LOW: (_m: { token: Hex; owner: Address; spender: Address; allowance: bigint; amount: bigint }) =>
    'allowance too low',
  /** TOKEN_FREEZE's data.until is not above the current height. */
  TOKEN_FREEZE_NOT_AHEAD: (m: { token: Hex; until: number; height: number }) =>
    `data.until must be above the current height ${m.height}`,
  /** TOKEN_FREEZE would shorten a running freeze (a freeze only extends). */
  TOKEN_FREEZE_NOT_EXTENDED: (m: { token: Hex; until: number; frozenUntil: number }) =>
    `a freeze can only be extended: frozen until height ${m.frozenUntil}`,
  /** TOKEN_UNFREEZE by an address with no freeze record of the token. */
  TOKEN_NOT_FROZEN: (_m: { token: Hex; address: Address }) => 'not frozen',
  /** TOKEN_UNFREEZE before the freeze has expired. */
  TOKEN_FREEZE_NOT_EXPIRED: (m: { token: Hex; address: Address; until: number }) => `frozen until height ${m.until}`,
});
