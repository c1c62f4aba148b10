import { ACCOUNT_ROUTES } from './accounts';
import { AI_ROUTES } from './ai';
import { ASSET_ROUTES } from './assets';
import { BRIDGE_ROUTES } from './bridge';
import { CHAIN_ROUTES } from './chain';
import { DEV_ROUTES } from './dev';
import { GOVERNANCE_ROUTES } from './governance';
import { MACHINE_ROUTES } from './machines';
import { OPS_ROUTES } from './ops';
import { SUBMIT_ROUTES } from './submit';
import { SYNC_ROUTES } from './sync';
import { VM_ROUTES } from './vm';

/**
 * Every route of the native HTTP API, by the name of its SDK method, in the order the `/`
 * index and the OpenAPI document list them. The server registers a handler for each
 * (http/routes: a missing one does not compile); the OpenAPI document, the SDK client, the CLI
 * read commands and the index are derived from this table.
 */
// The index first (`{index, ...rest}`: the key keeps its first place).
const { index, ...OPS } = OPS_ROUTES;
export const ROUTES = {
  index,
  ...CHAIN_ROUTES,
  ...ACCOUNT_ROUTES,
  ...ASSET_ROUTES,
  ...GOVERNANCE_ROUTES,
  ...AI_ROUTES,
  ...BRIDGE_ROUTES,
  ...MACHINE_ROUTES,
  ...VM_ROUTES,
  ...SUBMIT_ROUTES,
  ...SYNC_ROUTES,
  ...OPS,
  ...DEV_ROUTES,
};

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;

export * from './define';
export * from './common';
export { PROMETHEUS_CONTENT_TYPE } from './ops';
export { DEV_MINE_MAX } from './dev';
