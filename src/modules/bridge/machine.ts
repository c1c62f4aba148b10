import { assign, setup } from 'xstate';
import { defineMachine, effect, type DeadlineEvent, type Rule, statusesOf } from '../../machines/define';
import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { BRIDGE } from './errors';
import { release, unreserve, type Asset } from './pool';

/**
 * A bridge transfer (docs/PROTOCOL.md "Bridge"), an on-chain machine. Its state names are the
 * `status` words of /bridge/transfers:
 *
 *   outbound: LOCKED ──BRIDGE_SETTLE──► PAID
 *   inbound:  ATTESTED ──end of its block──► RELEASED              (the breaker allows it: paid)
 *                     └─────────────────────► DELAYED ──release height──► RELEASED
 *                                               │  └──breaker still full──► DELAYED (next window)
 *             ATTESTED | DELAYED ──payout impossible (token paused, recipient blacklisted)──► REFUSED
 *
 * BRIDGE_IN attests and reserves the amount; the release happens at the end of the block, in
 * transfer id order, so which of a block's transfers the breaker lets through does not depend
 * on the order of transactions. The breaker's answer comes from state (the pool's window), so
 * it arrives as the `release` effect's refusal: BRIDGE_BREAKER_FULL → HOLD until the next window,
 * any other refusal → REFUSE (onTickFailure).
 */
export type Direction = 'out' | 'in';

export interface TransferInput {
  direction: Direction;
  asset: Asset;
  /** Base units, as a string. */
  amount: string;
  /** Outbound: the target chain; inbound: the source chain. */
  chain: string;
  /** Outbound: the sender on Cairn. Inbound: null. */
  from: Address | null;
  /** Outbound: the recipient on the target chain (its own format). Inbound: null. */
  recipient: string | null;
  /** Inbound: the account paid on Cairn. Outbound: null. */
  to: Address | null;
  /** Inbound: the deposit's transaction on the source chain (the replay key). */
  sourceTx: string | null;
  /** Inbound: the committee epoch whose quorum attested it. */
  epoch: number | null;
  createdAt: number;
}

export interface TransferContext extends TransferInput {
  /** Outbound, once PAID: the committee member who settled it and the payout's transaction on the target chain. */
  settledBy: Address | null;
  targetTx: string | null;
  /** Inbound: the height of the next release attempt while DELAYED. */
  releaseAt: number | null;
  /** Times the breaker held it back. */
  holds: number;
  /** Height it became PAID, RELEASED or REFUSED. */
  closedAt: number | null;
  /** Why it was held back (DELAYED) or refused (REFUSED). */
  reason: string | null;
}

export type TransferEvent =
  | { type: 'SETTLE'; by: Address; targetTx: string; height: number }
  | { type: 'HOLD'; until: number; reason: string; height: number }
  | { type: 'REFUSE'; reason: string; height: number }
  | DeadlineEvent;

export const TRANSFER_STATES = ['LOCKED', 'PAID', 'ATTESTED', 'DELAYED', 'RELEASED', 'REFUSED'] as const;
export type TransferStatus = (typeof TRANSFER_STATES)[number];

type Ev<T extends TransferEvent['type']> = Extract<TransferEvent, { type: T }>;

// ---- the rules of a settle: each the refusal's reason when the transfer does not take SETTLE ----
const outbound: Rule<TransferContext, Ev<'SETTLE'>> = (c, _e, transfer) =>
  c.direction !== 'out' ? BRIDGE.BRIDGE_TRANSFER_INBOUND({ transfer: transfer as Hex }) : undefined;
const locked: Rule<TransferContext, Ev<'SETTLE'>> = (c, _e, transfer, status) =>
  status !== 'LOCKED'
    ? BRIDGE.BRIDGE_TRANSFER_NOT_LOCKED({
        transfer: transfer as Hex,
        status,
        settledBy: c.settledBy,
        targetTx: c.targetTx,
      })
    : undefined;
type Args = { context: TransferContext; event: TransferEvent };
const ev = <T extends TransferEvent['type']>(e: TransferEvent) => e as Ev<T>;

const releaseParams =
  (waited: boolean) =>
  ({ context }: Args) => ({ asset: context.asset, to: context.to!, amount: context.amount, waited });
// Assigner maps (setup's actions hold only effects, so the transitions inline `assign` over these).
const released = {
  closedAt: ({ event }: Args) => ev<'DEADLINE'>(event).height,
  releaseAt: () => null,
  reason: () => null,
};
const held = {
  releaseAt: ({ event }: Args) => ev<'HOLD'>(event).until,
  reason: ({ event }: Args) => ev<'HOLD'>(event).reason,
  holds: ({ context }: Args) => context.holds + 1,
};
const refused = {
  closedAt: ({ event }: Args) => ev<'REFUSE'>(event).height,
  reason: ({ event }: Args) => ev<'REFUSE'>(event).reason,
  releaseAt: () => null,
};
const unreserveParams = ({ context }: Args) => ({ asset: context.asset, amount: context.amount });

export const transferMachine = setup({
  types: { context: {} as TransferContext, events: {} as TransferEvent, input: {} as TransferInput },
  actions: {
    release: effect<{ asset: Asset; to: Address; amount: string; waited: boolean }>(),
    unreserve: effect<{ asset: Asset; amount: string }>(),
  },
  guards: { outbound: ({ context }) => context.direction === 'out' },
}).createMachine({
  id: 'bridgeTransfer',
  initial: 'OPEN',
  context: ({ input }) => ({
    ...input,
    settledBy: null,
    targetTx: null,
    releaseAt: null,
    holds: 0,
    closedAt: null,
    reason: null,
  }),
  states: {
    // Transient: the direction picks the first state (no history entry of its own).
    OPEN: { always: [{ guard: 'outbound', target: 'LOCKED' }, { target: 'ATTESTED' }] },
    LOCKED: {
      on: {
        SETTLE: {
          target: 'PAID',
          actions: assign({
            settledBy: ({ event }) => ev<'SETTLE'>(event).by,
            targetTx: ({ event }) => ev<'SETTLE'>(event).targetTx,
            closedAt: ({ event }) => ev<'SETTLE'>(event).height,
          }),
        },
      },
    },
    ATTESTED: {
      on: {
        DEADLINE: {
          target: 'RELEASED',
          actions: [assign(released), { type: 'release', params: releaseParams(false) }],
        },
        HOLD: { target: 'DELAYED', actions: assign(held) },
        REFUSE: { target: 'REFUSED', actions: [assign(refused), { type: 'unreserve', params: unreserveParams }] },
      },
    },
    DELAYED: {
      on: {
        DEADLINE: { target: 'RELEASED', actions: [assign(released), { type: 'release', params: releaseParams(true) }] },
        // Still over the breaker: wait for the next window (a context step).
        HOLD: { actions: assign(held) },
        REFUSE: { target: 'REFUSED', actions: [assign(refused), { type: 'unreserve', params: unreserveParams }] },
      },
    },
    PAID: { type: 'final' },
    RELEASED: { type: 'final' },
    REFUSED: { type: 'final' },
  },
});

// The status words above are the machine's states (checked when this module loads).
statusesOf(transferMachine, TRANSFER_STATES, ['OPEN']);

type BreakerFull = Parameters<(typeof BRIDGE)['BRIDGE_BREAKER_FULL']>[0];

export const transferDef = defineMachine({
  name: 'bridgeTransfer',
  version: 1,
  machine: transferMachine,
  deadlines: { ATTESTED: 'createdAt', DELAYED: 'releaseAt' },
  rules: { SETTLE: [outbound, locked] },
  effects: {
    release: async ({ state, height }, p) =>
      release({ state, height }, { asset: p.asset, to: p.to, amount: BigInt(p.amount), waited: p.waited }),
    unreserve: async ({ state }, p) => unreserve(state, p.asset, BigInt(p.amount)),
  },
  onTickFailure: (failure, height) =>
    failure.code === 'BRIDGE_BREAKER_FULL'
      ? { type: 'HOLD', until: (failure.meta as BreakerFull).until, reason: failure.reason, height }
      : { type: 'REFUSE', reason: failure.reason, height },
  summary: (s): Record<string, string> =>
    s.context.releaseAt !== null ? { releaseAt: String(s.context.releaseAt) } : {},
});
