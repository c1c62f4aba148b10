import type { SnapshotsView, StateNodesView } from '..';
import { MAX_SNAPSHOT_NODES } from '../../protocol/params';
import { TOO_LARGE } from './common';
import { defineRoute, view } from './define';

/** What a node joining by state sync asks of its peers (cairn node --sync state). */
export const SYNC_ROUTES = {
  snapshots: defineRoute({
    method: 'GET',
    path: '/snapshots',
    ok: view<SnapshotsView>('SnapshotsView'),
    summary: 'State snapshots this node serves (every --snapshot-interval-th final block): their signed headers',
    description:
      'A joining node trusts one snapshot block by its hash (--checkpoint), then fetches its state node by node ' +
      'with POST /snapshots/nodes, each checked against the header’s state root.',
  }),
  stateNodes: defineRoute({
    method: 'POST',
    path: '/snapshots/nodes',
    ok: view<StateNodesView>('StateNodesView'),
    body: { view: 'StateNodesRequest' },
    summary: `State trie nodes by hash (at most ${MAX_SNAPSHOT_NODES}: MAX_SNAPSHOT_NODES): RLP, or null where none`,
    errors: {
      400: `Body not {hashes: [...]} of 1 to ${MAX_SNAPSHOT_NODES} hashes (0x + 64 hex digits)`,
      413: TOO_LARGE,
    },
  }),
};
