import type { Hex } from '../primitives/hex';

/**
 * A peer as /peers and /gateway show it (the p2p actor keeps them; a single node has none).
 * Here, below both, so the actors that keep it and the API views that show it share one shape.
 */
export interface PeerInfo {
  /** The peer's HTTP API URL, or on libp2p `/p2p/<peer id>`. */
  url: string;
  /** Its head's height as last seen. */
  height: number;
  /** Its head as last seen (null: never reached). */
  head: Hex | null;
  finalizedHeight: number;
  /** Its head's last justified checkpoint as it reports it (fork choice weighs it first). */
  justifiedHeight: number;
  /** Blocks it is ahead of (positive) or behind (negative) this node. */
  lag: number;
  /** Round trip of the last status poll, ms. */
  latencyMs: number | null;
  /** Starts at 0; invalid data and failures lower it; at -100 the peer is dropped for a while. */
  score: number;
  /** ms since 1970 of the last answer; 0: never. */
  lastSeen: number;
  /** Until when (ms) the peer is ignored after being dropped; 0: it is not. */
  droppedUntil: number;
  /** On libp2p: the addresses of its links, gossipsub's score of it and the network's topics it subscribes to. */
  libp2p?: { peerId: string; addrs: string[]; gossipScore: number; topics: string[] };
}

/** The media type of a binary GET /chain page (chain/chainPage.ts): a peer asks for it with `Accept`. */
export const CHAIN_PAGE_MEDIA = 'application/vnd.cairn.chain-page';

/** A /chain page holds blocks past its first up to this much of their JSON (`size`), in either encoding. */
export const CHAIN_PAGE_BYTES = 16 * 1024 * 1024;
