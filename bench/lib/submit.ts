/**
 * What bench/admission.ts and bench/inclusion.ts share: round-robin hybrid TRANSFERs of
 * development accounts (signed beforehand with bench/lib/sign.ts), a keep-alive POST /tx
 * client, and two ways to submit them — closed loop (N requests in flight) and open loop
 * (paced at a fixed rate, whatever the answers do).
 */
import http from 'node:http';
import { deriveKeys, devSecret } from '../../src/crypto/keys';
import { sleep } from './harness';
import { signDevTxs, type DevTxItem, type SignedEnvelope } from './sign';
import type { Network } from '../../src/protocol/network';

/** A fixed base, so that the same shape signs the same items (the signing cache applies). */
export const TX_TIMESTAMP0 = 1_767_225_600_000;

const addressCache = new Map<number, `0x${string}`>();
/** Development account addresses 0..n-1 (ML-DSA key generation: once per account). */
export function devAddresses(n: number): `0x${string}`[] {
  return Array.from({ length: n }, (_, i) => {
    let a = addressCache.get(i);
    if (!a) addressCache.set(i, (a = deriveKeys(devSecret(i)).address as `0x${string}`));
    return a;
  });
}

/**
 * `count` TRANSFERs of 1 unit, round-robin over senders 0..senders-1 in submission order
 * (every sender's nonce n before any sender's nonce n+1), each sender paying the next.
 * `startNonce[s]` is sender s's first nonce; it is advanced past the items made. The
 * timestamp grows by 1 ms per item from `timestamp0`: blocks order candidates by (nonce,
 * timestamp, id), so block order is submission order.
 */
export function roundRobinItems(o: {
  senders: number;
  count: number;
  startNonce: number[];
  first?: number;
  timestamp0?: number;
}): DevTxItem[] {
  const to = devAddresses(o.senders);
  const items: DevTxItem[] = [];
  const t0 = o.timestamp0 ?? TX_TIMESTAMP0;
  for (let i = 0; i < o.count; i++) {
    const s = ((o.first ?? 0) + i) % o.senders;
    items.push({
      dev: s,
      fields: {
        type: 'TRANSFER',
        to: to[(s + 1) % o.senders],
        amount: '1',
        fee: '1000',
        nonce: o.startNonce[s]++,
        timestamp: t0 + i,
      },
    });
  }
  return items;
}

export async function signRoundRobin(
  o: Parameters<typeof roundRobinItems>[0] & { label: string; cache: boolean; network: Network },
): Promise<SignedEnvelope[]> {
  return signDevTxs(roundRobinItems(o), { cache: o.cache, label: o.label, network: o.network });
}

// ─────────────────────────────────────────────────────────────────────────── POST /tx

/** 'accepted', 'refused: <reason>', 'HTTP <status>: <error>' or 'error: <code>'. */
export type Outcome = string;

export interface TxPoster {
  post(body: string): Promise<Outcome>;
  close(): void;
}

/** node:http with a keep-alive agent of at most `sockets` connections (more requests queue in the agent). */
export function txPoster(base: string, sockets: number): TxPoster {
  const u = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  const post = (body: string) =>
    new Promise<Outcome>((res) => {
      const req = http.request(
        {
          agent,
          host: u.hostname,
          port: u.port,
          path: '/tx',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let j: { accepted?: boolean; reason?: string; error?: string } = {};
            try {
              j = JSON.parse(text);
            } catch {
              j = { error: text.slice(0, 80) };
            }
            res(
              r.statusCode === 200
                ? j.accepted
                  ? 'accepted'
                  : `refused: ${j.reason}`
                : `HTTP ${r.statusCode}: ${j.error}`,
            );
          });
          r.on('error', (e: NodeJS.ErrnoException) => res(`error: ${e.code ?? e.message}`));
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => res(`error: ${e.code ?? e.message}`));
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** Opens `n` keep-alive connections (GET /status on each at once), so that no run pays the handshakes. */
export async function warmConnections(base: string, n: number): Promise<void> {
  const u = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: n });
  const get = () =>
    new Promise<void>((res, rej) => {
      http
        .get({ agent, host: u.hostname, port: u.port, path: '/status' }, (r) => r.resume().on('end', res))
        .on('error', rej);
    });
  await Promise.all(Array.from({ length: n }, get));
  agent.destroy();
}

export interface Submission {
  /** performance.timeOrigin + performance.now() when each POST was sent (ms since epoch, fractional). */
  sentAt: Float64Array;
  /** Answer latency per request, ms. */
  latency: Float64Array;
  outcome: Outcome[];
  /** First send → last answer, ms. */
  wallMs: number;
  /** Open loop: the largest lag of a send behind its schedule, ms. */
  maxLagMs: number;
}

/** performance-based wall clock, ms since epoch (fractional): what `sentAt` holds. */
export const nowEpoch = () => performance.timeOrigin + performance.now();

/** Closed loop: `concurrency` requests in flight until every body is sent. */
export async function closedLoop(
  bodies: readonly string[],
  concurrency: number,
  post: (b: string) => Promise<Outcome>,
): Promise<Submission> {
  return closedLoopOf(bodies.length, concurrency, (i) => post(bodies[i]));
}

/** Closed loop over items 0..n-1 of any asynchronous operation (the verify pool reference uses it too). */
export async function closedLoopOf(
  n: number,
  concurrency: number,
  op: (i: number) => Promise<Outcome>,
): Promise<Submission> {
  const sentAt = new Float64Array(n);
  const latency = new Float64Array(n);
  const outcome: Outcome[] = new Array<Outcome>(n);
  let next = 0;
  const start = performance.now();
  const lane = async () => {
    while (next < n) {
      const i = next++;
      const t = performance.now();
      sentAt[i] = performance.timeOrigin + t;
      outcome[i] = await op(i);
      latency[i] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
  return { sentAt, latency, outcome, wallMs: performance.now() - start, maxLagMs: 0 };
}

/**
 * Open loop: body i is sent at start + i / rate seconds (a 1 ms timer sends whatever is due),
 * answers or not; the agent's sockets bound what is on the wire, the rest queues in the client.
 */
export async function paced(
  bodies: readonly string[],
  ratePerS: number,
  post: (b: string) => Promise<Outcome>,
): Promise<Submission> {
  const n = bodies.length;
  const sentAt = new Float64Array(n);
  const latency = new Float64Array(n);
  const outcome: Outcome[] = new Array<Outcome>(n);
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let maxLagMs = 0;
  let i = 0;
  while (i < n) {
    const now = performance.now();
    const due = Math.min(n, Math.floor(((now - start) * ratePerS) / 1000) + 1);
    if (i < due) maxLagMs = Math.max(maxLagMs, now - (start + (i * 1000) / ratePerS));
    for (; i < due; i++) {
      const k = i;
      const t = performance.now();
      sentAt[k] = performance.timeOrigin + t;
      pending.push(
        post(bodies[k]).then((o) => {
          outcome[k] = o;
          latency[k] = performance.now() - t;
        }),
      );
    }
    if (i < n) await sleep(Math.max(0, start + (i * 1000) / ratePerS - performance.now()));
  }
  await Promise.all(pending);
  return { sentAt, latency, outcome, wallMs: performance.now() - start, maxLagMs };
}

export function tally(outcomes: readonly Outcome[]): Map<Outcome, number> {
  const m = new Map<Outcome, number>();
  for (const o of outcomes) m.set(o, (m.get(o) ?? 0) + 1);
  return new Map([...m].sort((a, b) => b[1] - a[1]));
}

export const showTally = (m: Map<Outcome, number>) => [...m].map(([k, v]) => `${v} ${k}`).join(', ');
