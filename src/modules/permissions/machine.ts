import { assign, setup } from 'xstate';
import { TxFailure } from '../../protocol/handler';
import { getPermission, setPermission, type PermissionSpec } from '../../protocol/permissions';
import type { Address } from '../../protocol/types';
import { defineMachine, effect, holds, type DeadlineEvent, type Rule, statusesOf } from '../../machines/define';
import { PERMISSIONS } from './errors';

/**
 * A structural change to an account's permission (docs/PROTOCOL.md "Permissions, multisig,
 * vesting and meta-transactions"), an on-chain machine:
 *
 *   PENDING ──APPROVE reaching the threshold──► QUEUED ──DEADLINE at executeAt──► APPLIED
 *      │  └─DEADLINE at expiresAt──► EXPIRED      │                    └─► FAILED (the permission changed meanwhile)
 *      └──VETO──► VETOED ◄──────────VETO──────────┘
 *
 * The proposing transaction creates the change and sends the proposer's APPROVE (its weight
 * alone may queue it). The threshold and timelock are those of the
 * permission the change was proposed under (`baseVersion`); one key holder's VETO cancels it
 * while it is pending or in its timelock, so keys that reach the threshold cannot rewrite the
 * permission without the other holders having the timelock to stop them.
 */
export interface PermissionChangeInput {
  account: Address;
  /** The new permission, or null to remove it. */
  change: PermissionSpec | null;
  proposer: Address;
  threshold: number;
  timelock: number;
  baseVersion: number;
  createdAt: number;
  expiresAt: number;
}

export interface PermissionChangeContext extends PermissionChangeInput {
  approvals: Address[];
  /** Σ weights of `approvals`. */
  weight: number;
  executeAt: number | null;
  vetoedBy: Address | null;
  failure: string | null;
}

export type PermissionChangeEvent =
  | { type: 'APPROVE'; key: Address; weight: number; height: number }
  | { type: 'VETO'; key: Address }
  | { type: 'APPLY_FAILED'; reason: string }
  | DeadlineEvent;

export const PERMISSION_CHANGE_STATES = ['PENDING', 'QUEUED', 'APPLIED', 'VETOED', 'EXPIRED', 'FAILED'] as const;

type Approve = Extract<PermissionChangeEvent, { type: 'APPROVE' }>;

/** A key holder approves a change once. */
const notYetApproved: Rule<PermissionChangeContext, Approve> = (c, e, id) =>
  c.approvals.includes(e.key) ? PERMISSIONS.PERMISSION_CHANGE_ALREADY_APPROVED({ key: e.key, change: id }) : undefined;
type Veto = Extract<PermissionChangeEvent, { type: 'VETO' }>;
/** Approvals are for a pending change; a veto also stops a queued one (during its timelock). */
const pending: Rule<PermissionChangeContext, Approve> = (_c, e, id, status) =>
  status !== 'PENDING' ? PERMISSIONS.PERMISSION_CHANGE_CLOSED({ change: id, status, event: e.type }) : undefined;
const notApplied: Rule<PermissionChangeContext, Veto> = (_c, e, id, status) =>
  status !== 'PENDING' && status !== 'QUEUED'
    ? PERMISSIONS.PERMISSION_CHANGE_CLOSED({ change: id, status, event: e.type })
    : undefined;
type Args = { context: PermissionChangeContext; event: PermissionChangeEvent };
/** The assigners of an approval (setup's actions hold only effects, so both transitions inline them). */
const approval = {
  approvals: ({ context, event }: Args) => [...context.approvals, (event as Approve).key].sort(),
  weight: ({ context, event }: Args) => context.weight + (event as Approve).weight,
};

export const permissionChangeMachine = setup({
  types: {
    context: {} as PermissionChangeContext,
    events: {} as PermissionChangeEvent,
    input: {} as PermissionChangeInput,
  },
  actions: {
    apply: effect<{ account: Address; change: PermissionSpec | null; baseVersion: number }>(),
  },
  guards: {
    reachesThreshold: (a) =>
      holds(notYetApproved)(a) && a.context.weight + (a.event as Approve).weight >= a.context.threshold,
    notYetApproved: holds(notYetApproved),
  },
}).createMachine({
  id: 'permissionChange',
  initial: 'PENDING',
  context: ({ input }) => ({ ...input, approvals: [], weight: 0, executeAt: null, vetoedBy: null, failure: null }),
  states: {
    PENDING: {
      on: {
        APPROVE: [
          {
            guard: 'reachesThreshold',
            target: 'QUEUED',
            actions: assign({
              ...approval,
              executeAt: ({ context, event }) => (event as Approve).height + context.timelock,
            }),
          },
          { guard: 'notYetApproved', actions: assign(approval) },
        ],
        VETO: { target: 'VETOED', actions: assign({ vetoedBy: ({ event }) => (event as Veto).key }) },
        DEADLINE: { target: 'EXPIRED' },
      },
    },
    QUEUED: {
      on: {
        VETO: { target: 'VETOED', actions: assign({ vetoedBy: ({ event }) => (event as Veto).key }) },
        DEADLINE: {
          target: 'APPLIED',
          actions: {
            type: 'apply',
            params: ({ context }) => ({
              account: context.account,
              change: context.change,
              baseVersion: context.baseVersion,
            }),
          },
        },
        APPLY_FAILED: {
          target: 'FAILED',
          actions: assign({
            failure: ({ event }) => (event as Extract<PermissionChangeEvent, { type: 'APPLY_FAILED' }>).reason,
          }),
        },
      },
    },
    APPLIED: { type: 'final' },
    VETOED: { type: 'final' },
    EXPIRED: { type: 'final' },
    FAILED: { type: 'final' },
  },
});

// The status words above are the machine's states (checked when this module loads).
statusesOf(permissionChangeMachine, PERMISSION_CHANGE_STATES);

export const permissionChangeDef = defineMachine({
  name: 'permissionChange',
  version: 1,
  machine: permissionChangeMachine,
  deadlines: { PENDING: 'expiresAt', QUEUED: 'executeAt' },
  effects: {
    apply: async ({ state, id }, { account, change, baseVersion }) => {
      const now = await getPermission(state, account);
      if ((now?.version ?? 0) !== baseVersion)
        throw new TxFailure(PERMISSIONS.PERMISSION_CHANGE_OUTDATED({ account, change: id, applying: true }));
      await setPermission(state, account, change);
    },
  },
  onTickFailure: (failure) => ({ type: 'APPLY_FAILED', reason: failure.reason }),
  rules: { APPROVE: [notYetApproved, pending], VETO: [notApplied] },
});
