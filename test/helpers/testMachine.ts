import { assign, setup } from 'xstate';
import { credit } from '../../src/protocol/accounts';
import { TxFailure } from '../../src/protocol/handler';
import { refusals } from '../../src/protocol/refusal';

const TEST = refusals('test', { TEST_SELLER_BLOCKED: () => 'seller is blocked' });
import type { Address } from '../../src/protocol/types';
import { defineMachine, effect, type DeadlineEvent } from '../../src/machines/define';
import type { MachineDef } from '../../src/machines/define';

/**
 * A small auction on the on-chain machine helper, exercising every feature the helper has:
 * nested states (open.waiting / open.leading), guards, a deadline that changes with the state,
 * effects (refund, pay) and a tick failure turned into an event (a blocked seller's payout).
 *
 *   open.waiting --BID[meets reserve]--> open.leading --BID[outbids]--> open.leading (refund previous)
 *   open.waiting --CANCEL[by seller]--> cancelled        open.waiting --DEADLINE--> unsold
 *   open.leading --DEADLINE--> settling (claim window of CLAIM_WINDOW blocks)
 *   settling --CLAIM[by winner]--> closed (pay seller)   settling --DEADLINE--> closed (pay seller)
 *   settling --PAYOUT_FAILED--> defaulted (refund winner)
 */
export type AuctionEvent =
  | { type: 'BID'; bidder: Address; amount: string }
  | { type: 'CANCEL'; by: Address }
  | { type: 'CLAIM'; by: Address }
  | { type: 'PAYOUT_FAILED'; reason: string }
  | DeadlineEvent;

export interface AuctionContext {
  seller: Address;
  reserve: string;
  endsAt: number;
  claimBy: number | null;
  winner: Address | null;
  bid: string;
  failure: string | null;
}

export interface AuctionInput {
  seller: Address;
  reserve: string;
  endsAt: number;
}

export const CLAIM_WINDOW = 3;
/** A seller whose payout the `pay` applier refuses (to exercise onTickFailure). */
export const BLOCKED_SELLER = ('0x' + 'b1'.repeat(20)) as Address;

const amountOf = (e: AuctionEvent): bigint => (e.type === 'BID' ? BigInt(e.amount) : 0n);
const bidOf = (e: AuctionEvent) => e as Extract<AuctionEvent, { type: 'BID' }>;

export const auctionMachine = setup({
  types: { context: {} as AuctionContext, events: {} as AuctionEvent, input: {} as AuctionInput },
  actions: {
    refund: effect<{ to: Address; amount: string }>(),
    pay: effect<{ to: Address; amount: string }>(),
  },
  guards: {
    meetsReserve: ({ context, event }) => event.type === 'BID' && amountOf(event) >= BigInt(context.reserve),
    outbids: ({ context, event }) => event.type === 'BID' && amountOf(event) > BigInt(context.bid),
    bySeller: ({ context, event }) => event.type === 'CANCEL' && event.by === context.seller,
    byWinner: ({ context, event }) => event.type === 'CLAIM' && event.by === context.winner,
  },
}).createMachine({
  id: 'auction',
  initial: 'open',
  context: ({ input }) => ({ ...input, claimBy: null, winner: null, bid: '0', failure: null }),
  states: {
    open: {
      initial: 'waiting',
      states: {
        waiting: {
          on: {
            BID: {
              guard: 'meetsReserve',
              target: 'leading',
              actions: assign({ winner: ({ event }) => bidOf(event).bidder, bid: ({ event }) => bidOf(event).amount }),
            },
            CANCEL: { guard: 'bySeller', target: '#auction.cancelled' },
            DEADLINE: '#auction.unsold',
          },
        },
        leading: {
          on: {
            BID: {
              guard: 'outbids',
              target: 'leading',
              actions: [
                { type: 'refund', params: ({ context }) => ({ to: context.winner!, amount: context.bid }) },
                assign({ winner: ({ event }) => bidOf(event).bidder, bid: ({ event }) => bidOf(event).amount }),
              ],
            },
            DEADLINE: {
              target: '#auction.settling',
              actions: assign({ claimBy: ({ event }) => (event as DeadlineEvent).height + CLAIM_WINDOW }),
            },
          },
        },
      },
    },
    settling: {
      on: {
        CLAIM: {
          guard: 'byWinner',
          target: 'closed',
          actions: { type: 'pay', params: ({ context }) => ({ to: context.seller, amount: context.bid }) },
        },
        DEADLINE: {
          target: 'closed',
          actions: { type: 'pay', params: ({ context }) => ({ to: context.seller, amount: context.bid }) },
        },
        PAYOUT_FAILED: {
          target: 'defaulted',
          actions: [
            assign({ failure: ({ event }) => (event as { reason: string }).reason }),
            { type: 'refund', params: ({ context }) => ({ to: context.winner!, amount: context.bid }) },
          ],
        },
      },
    },
    cancelled: { type: 'final' },
    unsold: { type: 'final' },
    closed: { type: 'final' },
    defaulted: { type: 'final' },
  },
});

/** The auction as the helper runs it: deadline per state, appliers that move coins. */
export const auctionDef = defineMachine({
  name: 'auction',
  version: 1,
  machine: auctionMachine,
  deadline: (s) => (s.matches('open') ? s.context.endsAt : s.matches('settling') ? s.context.claimBy : null),
  effects: {
    refund: async ({ state, height }, { to, amount }) => credit(state, to, BigInt(amount), height),
    pay: async ({ state, height }, { to, amount }) => {
      if (to === BLOCKED_SELLER) throw new TxFailure(TEST.TEST_SELLER_BLOCKED());
      await credit(state, to, BigInt(amount), height);
    },
  },
  onTickFailure: (failure) => ({ type: 'PAYOUT_FAILED', reason: failure.reason }),
});

/** Every leaf state the auction has, by the name the helper reports. */
export const AUCTION_STATES = [
  'open.waiting',
  'open.leading',
  'settling',
  'cancelled',
  'unsold',
  'closed',
  'defaulted',
] as const;

export type AuctionDef = MachineDef<typeof auctionMachine>;
