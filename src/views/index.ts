/**
 * The JSON shapes of the node's HTTP API: the server (api/) builds them and the SDK
 * (sdk/) types its responses with them, so the two cannot drift apart.
 */
export type * from './account';
export type * from './assets';
export type * from './chain';
export type * from './feeds';
export type * from './tx';
export type * from './governance';
export type * from './ai';
export type * from './bridge';
export type * from './pages';
export type * from './paging';
export type * from './ops';
