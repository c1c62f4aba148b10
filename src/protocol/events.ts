import type { Hex } from '../primitives/hex';
import type { Address } from './address';

/**
 * Events a successful module transaction reports in its result (TxResult.events). They are
 * derived deterministically by execution (a replay recomputes them) and feed node-local
 * indexes: token holders and transfers, asset and name listings. A failed transaction
 * reports none. Amounts and balances are integer strings.
 *
 * Every event carries what is needed to undo its effect on an index (a previous balance,
 * owner or target), so a replaced block's index writes can be reverted from its events alone.
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
  /**
   * A name's owner or target changed (NAME_UPDATE, NAME_TRANSFER); `previous` is what it was, so the change can be
   * undone.
   */
  | {
      kind: 'name.update';
      name: string;
      owner: Address;
      target: Address;
      registeredAt: number;
      previous: { owner: Address; target: Address };
    }
  /** A name was released; `registeredAt`, `owner` and `target` are what it had (an undo restores them). */
  | { kind: 'name.release'; name: string; registeredAt: number; owner: Address; target: Address }
  /** A voter claimed its block rewards (CLAIM_VOTER_REWARD). */
  | { kind: 'reward.claim'; voter: Address; amount: string }
  /** The election at an epoch boundary changed the active set or the bank (`previous`: the active set before). */
  | { kind: 'validators.elect'; epoch: number; height: number; active: Address[]; bank: Address[]; previous: Address[] }
  /** A validator was jailed (out of the active set and of elections): downtime, or a proven double sign. */
  | { kind: 'validators.jail'; address: Address; height: number; reason: 'downtime' | 'double-sign'; active: Address[] }
  /**
   * A proven double sign was slashed (SLASH_DOUBLE_SIGN, reported by `reporter`): `penalty` base units of the
   * producer's
   * coins went to the treasury, `fromStake` of them from its stake (the rest from its liquid balance). `height` is the
   * offence's.
   */
  | {
      kind: 'validators.slash';
      address: Address;
      height: number;
      penalty: string;
      fromStake: string;
      reporter: Address;
    }
  /**
   * An active set elected (or changed by a jailing) at `decidedAt` became final and now schedules slots from `height`.
   */
  | { kind: 'validators.schedule'; height: number; decidedAt: number; active: Address[]; previous: Address[] }
  /**
   * A challenge overturned a result: `amount` base units of `oracle`'s stake went to the challenger `to`
   * (ORACLE_SLASH_BPS).
   */
  | { kind: 'ai.slash'; oracle: Address; amount: string; to: Address; task: string; height: number }
  /**
   * An on-chain machine (machines/) moved from state `from` to `to` on `event` at `height`.
   * `machine` names the definition, `id` the instance (e.g. a proposal id). Indexed
   * node-locally as the machine's history; consensus state keeps only the current record.
   */
  | {
      kind: 'machine.transition';
      machine: string;
      id: string;
      from: string;
      to: string;
      event: string;
      height: number;
      summary?: Record<string, string>;
    };

export type ChainEventKind = ChainEvent['kind'];
