import type { Logger } from 'pino';
import type { P2pHost } from './host';
import { askPeers } from './requests';

/**
 * How a node finds its peers: the configured ones (`--peers`: multiaddrs, or HTTP API URLs whose node is asked for
 * its libp2p addresses, so configurations written for the HTTP network keep working), then peer exchange: each
 * linked peer is asked whom it is linked to, and those are dialled until the node has `targetPeers`. A configured
 * peer that drops is dialled again each round; nothing a peer names is believed before its Noise handshake proves
 * the peer id.
 */
export interface DiscoveryDeps {
  host: P2pHost;
  /** `--peers` as configured: multiaddrs ending in /p2p/<id>, or http(s):// API URLs. */
  bootstrap: readonly string[];
  targetPeers: number;
  log: Logger;
  /** The libp2p addresses a node's HTTP API gives (GET /p2p); default: fetched. */
  resolve?: (url: string) => Promise<string[]>;
}

export const DISCOVERY_ROUND_MS = 5_000;
const RESOLVE_TIMEOUT_MS = 5_000;
const PEER_ID = /\/p2p\/([1-9A-HJ-NP-Za-km-z]+)$/;

/** A node's libp2p addresses, from its HTTP API (GET /p2p). */
export async function resolvePeerUrl(url: string): Promise<string[]> {
  const r = await fetch(`${url}/p2p`, { signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS) });
  if (!r.ok) throw new Error(`GET ${url}/p2p answered ${r.status}`);
  const v = (await r.json()) as { addresses?: unknown };
  if (!Array.isArray(v.addresses)) throw new Error(`GET ${url}/p2p: no addresses`);
  return v.addresses.filter((a): a is string => typeof a === 'string' && PEER_ID.test(a));
}

export function startDiscovery(d: DiscoveryDeps): { round(): Promise<void>; stop(): void } {
  const resolve = d.resolve ?? resolvePeerUrl;
  const self = d.host.peerId;
  const linked = () => new Set(d.host.peers().map((p) => p.id));
  /** What each configured entry resolved to last (an HTTP peer's addresses can change when it restarts). */
  const resolved = new Map<string, string[]>();
  const failing = new Set<string>();
  let stopped = false;
  let running: Promise<void> | null = null;

  async function dialAny(addrs: readonly string[], what: string): Promise<boolean> {
    for (const a of addrs) {
      const id = PEER_ID.exec(a)?.[1];
      if (id === self) return true;
      try {
        await d.host.dial(a);
        if (failing.delete(what)) d.log.info({ peer: what, addr: a }, 'peer reached again');
        return true;
      } catch (err) {
        d.log.debug({ err, addr: a }, 'dial failed');
      }
    }
    return false;
  }

  async function bootstrapRound(): Promise<void> {
    const now = linked();
    await Promise.all(
      d.bootstrap.map(async (entry) => {
        let addrs = entry.startsWith('/') ? [entry] : resolved.get(entry);
        const known = addrs?.map((a) => PEER_ID.exec(a)?.[1]).find((id) => id !== undefined);
        if (known !== undefined && now.has(known)) return;
        if (!entry.startsWith('/')) {
          try {
            addrs = await resolve(entry);
            resolved.set(entry, addrs);
          } catch (err) {
            if (!failing.has(entry)) d.log.warn({ peer: entry, err: (err as Error).message }, 'peer not reachable');
            failing.add(entry);
            return;
          }
        }
        if (!(await dialAny(addrs ?? [], entry)) && !failing.has(entry)) {
          failing.add(entry);
          d.log.warn({ peer: entry }, 'peer not reachable: dialled again every round');
        }
      }),
    );
  }

  async function exchangeRound(): Promise<void> {
    let have = linked();
    if (have.size >= d.targetPeers) return;
    for (const id of [...have]) {
      let named: string[];
      try {
        named = await askPeers(d.host, id);
      } catch {
        continue;
      }
      for (const addr of named) {
        const pid = PEER_ID.exec(addr)?.[1];
        if (pid === undefined || pid === self || have.has(pid)) continue;
        if (await dialAny([addr], addr)) have = linked();
        if (have.size >= d.targetPeers) return;
      }
    }
  }

  async function round(): Promise<void> {
    if (stopped) return;
    running ??= (async () => {
      try {
        await bootstrapRound();
        await exchangeRound();
      } finally {
        running = null;
      }
    })();
    return running;
  }

  const timer = setInterval(() => void round(), DISCOVERY_ROUND_MS);
  timer.unref();
  void round();
  return {
    round,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
