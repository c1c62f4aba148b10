export { metaTx, RELAYABLE } from './metaTx';
