import type { BridgeTransfersPage, BridgeTransferView, BridgeView, Direction } from '..';
import { TRANSFER_STATES } from '../../modules/bridge/machine';
import { FEED_HELP, FEED_PAGE, FINAL, forAddress, since } from './common';
import { defineRoute, id64, limit, oneOf, view } from './define';

const DIRECTIONS: readonly Direction[] = ['out', 'in'];

/** The bridge: its state and its transfers. */
export const BRIDGE_ROUTES = {
  bridge: defineRoute({
    method: 'GET',
    path: '/bridge',
    ok: view<BridgeView>('BridgeView'),
    summary:
      'The bridge: committee (epoch, members, threshold), pools per asset (locked, reserved, available) and ' +
      'the circuit breaker of the current window',
    cli: { command: 'bridge status' },
  }),
  bridgeTransfers: defineRoute({
    method: 'GET',
    path: '/bridge/transfers',
    ok: view<BridgeTransfersPage>('BridgeTransfersPage'),
    summary:
      'Bridge transfers with state and history; since = the transitions after a height ' +
      '(whole blocks, cursor, finalizedHeight)',
    query: {
      direction: oneOf(DIRECTIONS, 'Only transfers this way', false),
      status: oneOf(TRANSFER_STATES, 'Only transfers in this state', true),
      since: since('transfer transitions'),
      final: FINAL,
      limit: limit(FEED_PAGE),
    },
    errors: { 400: 'Unknown direction or status, since above the head, final or limit malformed' },
    cli: { command: 'bridge list', help: FEED_HELP },
  }),
  bridgeTransfer: defineRoute({
    method: 'GET',
    path: '/bridge/transfers/:id',
    ok: view<BridgeTransferView>('BridgeTransferView'),
    nullIfMissing: true,
    summary:
      'One bridge transfer: state, releaseAt and the releaseInBlocks countdown while DELAYED, reason, ' +
      'transitions with heights; for=<address>: the actions that address may send now, with their windows',
    params: {
      id: id64(
        'Transfer id (the BRIDGE_OUT or BRIDGE_IN transaction id): 0x + 64 hex digits',
        'invalid transfer id: expected 0x followed by 64 hex digits (the BRIDGE_OUT or BRIDGE_IN transaction id)',
      ),
    },
    query: { for: forAddress('transfer') },
    errors: { 400: 'Not 0x + 64 hex digits, or a bad for address', 404: 'No such transfer' },
    cli: { command: 'bridge show' },
  }),
};
