/** A peer as /peers and /gateway show it (single-node networks have none yet; the p2p actor will own it). */
export interface PeerInfo {
  url: string;
  height: number;
  lag: number;
  lastSeen: number;
}
