import type { MachineDueView, MachinesView } from '..';
import { FEED_PAGE } from './common';
import { defineRoute, limit, segment, view } from './define';

/** The node's state machines as data, and what moves by itself next. */
export const MACHINE_ROUTES = {
  machines: defineRoute({
    method: 'GET',
    path: '/machines',
    ok: view<MachinesView>('MachinesView'),
    summary:
      'Every state machine of the node as data: states, events, legal moves (from, event, to), initial and ' +
      'final states, invariants',
  }),
  machineDue: defineRoute({
    method: 'GET',
    path: '/machines/:name/due',
    ok: view<MachineDueView>('MachineDueView'),
    summary:
      "An on-chain machine's open instances that move by themselves next: id, status and the height of the " +
      'next deadline, soonest first',
    params: {
      name: segment('An on-chain machine: proposal, permissionChange, aiTask or bridgeTransfer (GET /machines)'),
    },
    query: { limit: limit(FEED_PAGE) },
    errors: { 400: 'limit malformed', 404: 'Not an on-chain machine' },
  }),
};
