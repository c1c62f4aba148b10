import type { ModesActor } from '../actors/modesActor';
import type { PeerInfo } from '../protocol/peers';

/**
 * GET /health/ready and the syncing 503: whether this node is fit to serve, from its peers,
 * how far behind the best of them it is, and the age of its head. A node without configured
 * peers (a single validator) is never syncing nor short of peers.
 */

/** Behind the best peer by more than this, the node is syncing: reads answer 503. */
export const SYNC_LAG_BLOCKS = 32;
/** A peer that answered a status poll this recently is reachable. */
const REACHABLE_MS = 10_000;

export type Readiness = {
  ready: boolean;
  /** Why not ready. */
  reason?: string;
  height: number;
  peers: number;
  reachable: number;
  /** Blocks behind the best peer (0 when not behind). */
  behind: number;
};

/** The blocks behind the best peer when syncing (more than SYNC_LAG_BLOCKS), else null. */
export const syncingBehind = (configuredPeers: number, behind: number): number | null =>
  configuredPeers > 0 && behind > SYNC_LAG_BLOCKS ? behind : null;

/**
 * Ready unless syncing, no configured peer reachable, or no block for `staleMs` (a validator
 * neither producing nor following).
 */
export function readinessOf(s: {
  configuredPeers: number;
  peers: readonly PeerInfo[];
  head: { height: number; timestamp: number };
  behind: number;
  staleMs: number;
  now: number;
}): Readiness {
  const reachable = s.peers.filter((p) => s.now - p.lastSeen < REACHABLE_MS).length;
  const base = { height: s.head.height, peers: s.peers.length, reachable, behind: s.behind };
  if (syncingBehind(s.configuredPeers, s.behind) !== null)
    return { ready: false, reason: `syncing: ${s.behind} blocks behind`, ...base };
  if (s.configuredPeers > 0 && reachable === 0) return { ready: false, reason: 'no peer reachable', ...base };
  const idle = s.now - s.head.timestamp;
  if (idle > s.staleMs) return { ready: false, reason: `no block for ${Math.round(idle / 1000)} s`, ...base };
  return { ready: true, ...base };
}

/** GET /health/ready's answer: the network's readiness (`starting` before it runs) and the node's modes. */
export function nodeReadiness(
  network: { readiness(): Readiness } | undefined,
  modes: Pick<ModesActor, 'current'>,
): (Readiness | { ready: false; reason: string }) & { modes: ReturnType<ModesActor['current']> } {
  return { ...(network?.readiness() ?? { ready: false, reason: 'starting' }), modes: modes.current() };
}
