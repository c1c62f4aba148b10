import type { DevMined, DevRevertedView, DevSnapshotsView, DevSnapshotView } from '..';
import { ADMIN_ERRORS, TOO_LARGE } from './common';
import { defineRoute, view } from './define';

/** Most blocks one POST /dev/mine produces. */
export const DEV_MINE_MAX = 1_000;

const DEV_ERRORS = { ...ADMIN_ERRORS, 404: 'The node was not started with --dev (development controls are absent)' };

/** A --dev node's controls (admin token). */
export const DEV_ROUTES = {
  devMine: defineRoute({
    method: 'POST',
    path: '/dev/mine',
    ok: view<DevMined>('DevMined'),
    body: { view: 'DevMineRequest', optional: true },
    admin: 'required',
    summary: '--dev only (admin): produce {blocks} blocks now',
    errors: {
      400: `Body not a JSON object, or blocks not an integer from 1 to ${DEV_MINE_MAX}`,
      ...DEV_ERRORS,
      409: 'So many blocks now would put the head more than a few slots ahead of the clock: retry later or mine fewer',
      413: TOO_LARGE,
    },
  }),
  devSnapshot: defineRoute({
    method: 'POST',
    path: '/dev/snapshot',
    ok: view<DevSnapshotView>('DevSnapshotView'),
    admin: 'required',
    errors: DEV_ERRORS,
    summary: '--dev only (admin): snapshot the chain (reusable)',
  }),
  devRevert: defineRoute({
    method: 'POST',
    path: '/dev/revert',
    ok: view<DevRevertedView>('DevRevertedView'),
    body: { view: 'DevRevertRequest' },
    admin: 'required',
    summary: '--dev only (admin): revert to snapshot {id}; the snapshot stays usable',
    errors: {
      400: 'Body not a JSON object, or id not an integer',
      ...DEV_ERRORS,
      404: 'No such snapshot, or the node was not started with --dev',
      409: 'The snapshot is gone: its block was undone and replaced',
      413: TOO_LARGE,
    },
  }),
  devSnapshots: defineRoute({
    method: 'GET',
    path: '/dev/snapshots',
    ok: view<DevSnapshotsView>('DevSnapshotsView'),
    admin: 'required',
    errors: DEV_ERRORS,
    summary: '--dev only (admin): the snapshots taken',
  }),
};
