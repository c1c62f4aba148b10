export { metaTx, RELAYABLE } from './metaTx';
export { RELAY } from './errors';
