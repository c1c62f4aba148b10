import { refusals } from '../../protocol/refusal';
import type { Address } from '../../protocol/types';

/** The relay's refusals of a META_TX's inner transaction (its own failures keep their codes: wrapRefusal). */
export const RELAY = refusals('relay', {
  /** The inner transaction's sender has no account. */
  META_TX_INNER_NO_ACCOUNT: (_: { user: Address }) => 'META_TX inner transaction: insufficient balance',
  META_TX_INNER_NONCE: (m: { user: Address; expected: number; got: number }) =>
    `META_TX inner transaction: nonce ${m.expected} expected, got ${m.got}`,
  /** The inner's ML-DSA-44 key is not the one the user's account is bound to. */
  META_TX_INNER_KEY_MISMATCH: (_: { user: Address }) => 'META_TX inner transaction: invalid signature',
});
