
export type { PeerInfo } from '../protocol/peers';
