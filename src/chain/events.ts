import type { Hex } from '../primitives/hex';
import type { Address } from './types';

/**
 * Events a successful module transaction reports in its result (TxResult.events). They are
 * derived deterministically by execution (a replay recomputes them) and feed node-local
 * indexes: token holders and transfers, asset and name listings. A failed transaction
 * reports none. Amounts and balances are integer strings.
 */
export type ChainEvent =
  /** A token came into existence (TOKEN_CREATE). `height` is its record's createdAt. */
  | { kind: 'token.create'; token: Hex; symbol: string; name: string; height: number }
  /** Tokens moved: a mint has from = null, a burn has to = null; TOKEN_CREATE's initial supply is a mint. */
  | { kind: 'token.transfer'; token: Hex; from: Address | null; to: Address | null; amount: string }
  /** A holder's balance changed from `previous` to `balance` (both may be "0"). */
  | { kind: 'token.balance'; token: Hex; holder: Address; previous: string; balance: string }
  /** A collection came into existence (NFT_CREATE). */
  | { kind: 'nft.create'; collection: Hex; symbol: string; name: string; height: number }
  /** An item moved: mint has from = null, burn has to = null. */
  | { kind: 'nft.transfer'; collection: Hex; item: number; from: Address | null; to: Address | null }
  /** A name was registered at `height` (NAME_REGISTER). */
  | { kind: 'name.register'; name: string; owner: Address; target: Address; height: number }
  /** A name's owner or target changed (NAME_UPDATE, NAME_TRANSFER). */
  | { kind: 'name.update'; name: string; owner: Address; target: Address; registeredAt: number }
  /** A name was released; `registeredAt` is the height it had been registered at. */
  | { kind: 'name.release'; name: string; registeredAt: number };

export type ChainEventKind = ChainEvent['kind'];
