import './nodeCompat';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { gossipsub, StrictNoSign, TopicValidatorResult, type GossipSub } from '@libp2p/gossipsub';
import { createPeerScoreParams, createTopicScoreParams } from '@libp2p/gossipsub/score';
import { identify } from '@libp2p/identify';
import type { PeerId, PrivateKey, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import type { Logger } from 'pino';
import type { Hex } from '../../primitives/hex';
import { gossipTopics, messageId, requestProtocols, type GossipTopics, type RequestProtocols } from './topics';

/**
 * One node's libp2p host: TCP links authenticated and encrypted by Noise (the peer key), multiplexed by yamux,
 * identify and ping, and gossipsub v1.1 on the network's topics (topics.ts).
 *
 * Gossip validation is the handler: a message reaches the node's code once (its id is the hash of its bytes, so a
 * copy from another peer is dropped before it is decoded), the handler does the work and answers a verdict, and
 * gossipsub forwards only what was accepted. The verdicts are used as designed, so that honest peers never score
 * each other down:
 * - `reject`: invalid for everyone (a bad signature, malformed bytes): the sender's score falls (P4), and gossipsub
 *   stops talking to it below the graylist threshold;
 * - `ignore`: merely stale or known here (a nonce already used, a block below the final height): dropped, not
 *   forwarded, no penalty.
 */
export type GossipVerdict = 'accept' | 'reject' | 'ignore';
export type GossipTopic = keyof GossipTopics;
export type GossipHandler = (data: Uint8Array, from: string) => GossipVerdict | Promise<GossipVerdict>;
export type RequestProtocol = keyof RequestProtocols;
/** Answers one request; what it throws reaches the asker as a closed stream (no answer), and is logged here. */
export type RequestHandler = (request: Uint8Array, from: string) => Promise<Uint8Array>;

/** Why a request to a peer gave no answer: the peer's fault (`oversize`, `timeout`) or the link's (`failed`). */
export class PeerRequestError extends Error {
  override readonly name = 'PeerRequestError';
  constructor(
    readonly kind: 'oversize' | 'timeout' | 'failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface RequestLimits {
  /** The answer is read up to this many bytes; one byte more and the stream is cut (the peer is to blame). */
  maxResponseBytes: number;
  /** The whole exchange's deadline (REQUEST_TIMEOUT_MS unless given); a peer silent for REQUEST_SILENCE_MS is cut first. */
  timeoutMs?: number;
}

export interface P2pHostOptions {
  privateKey: PrivateKey;
  /** Multiaddrs to listen on (`/ip4/127.0.0.1/tcp/30333`). */
  listen: readonly string[];
  genesisHash: Hex;
  log: Logger;
  /** The largest gossip message read (a block as stored, a transaction batch); larger ones are not decoded. */
  maxMessageBytes?: number;
}

export interface PeerView {
  id: string;
  addrs: string[];
  /** gossipsub's score of the peer (below -80 nothing it sends is read). */
  score: number;
  /** The network's topics it subscribes to. */
  topics: string[];
}

export interface P2pHost {
  readonly peerId: string;
  /** This host's addresses, each ending in /p2p/<peer id>. */
  addresses(): string[];
  dial(addr: string): Promise<void>;
  /** Subscribes to one of the network's topics; every message of it goes through `handler` once. */
  subscribe(topic: GossipTopic, handler: GossipHandler): void;
  /** Publishes to the topic's peers; resolves to how many it went to. */
  publish(topic: GossipTopic, data: Uint8Array): Promise<number>;
  /** Serves one of the network's request protocols; a request over `maxRequestBytes` is cut unread. */
  handle(protocol: RequestProtocol, handler: RequestHandler, opts: { maxRequestBytes: number }): Promise<void>;
  /** Asks a connected peer; the answer is bounded by `limits` before it is read whole. */
  request(peerId: string, protocol: RequestProtocol, request: Uint8Array, limits: RequestLimits): Promise<Uint8Array>;
  peers(): PeerView[];
  /** The addresses a linked peer listens on, as it announced them (identify), each ending in /p2p/<id>. */
  listenAddrsOf(peerId: string): Promise<string[]>;
  score(peerId: string): number;
  stop(): Promise<void>;
}

/** A request that takes longer than this gets no answer (a peer that drips its bytes is cut here). */
export const REQUEST_TIMEOUT_MS = 5_000;
/**
 * A peer that sends nothing for this long is cut, whatever the request's deadline (a chain page has 30 s): a server
 * gives itself REQUEST_TIMEOUT_MS to answer, and a second more covers the link, so past it the peer is gone (cut off,
 * down, stalled). The sync asks one page at a time: it once waited out a page's 30 s on a peer a partition had just
 * cut off, on no other peer's chain meanwhile (the simulator on this seam, seed 2: final again 52 slots after the
 * heal, bound 27).
 */
export const REQUEST_SILENCE_MS = REQUEST_TIMEOUT_MS + 1_000;

/** A request's deadlines: `signal` aborts at the exchange's end or after REQUEST_SILENCE_MS without `heard`. */
function requestDeadlines(timeoutMs: number): { signal: AbortSignal; heard(): void; done(): void } {
  const silence = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => silence.abort(), REQUEST_SILENCE_MS);
  };
  heard();
  return {
    signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), silence.signal]),
    heard,
    done: () => clearTimeout(timer),
  };
}

/**
 * Reads a stream to its end, at most `max` bytes: one more and the stream is aborted and the read fails, so a peer's
 * huge or endless answer costs this node `max` bytes and no more (an HTTP answer of 800 MiB was once read whole).
 */
async function readBounded(stream: Stream, max: number, signal: AbortSignal, heard?: () => void): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const onAbort = () => stream.abort(new Error('timed out'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const bytes = chunk instanceof Uint8Array ? chunk : chunk.subarray();
      heard?.();
      size += bytes.length;
      if (size > max) {
        stream.abort(new Error(`over ${max} bytes`));
        throw new PeerRequestError('oversize', `more than ${max} bytes`);
      }
      parts.push(bytes);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) throw new PeerRequestError('timeout', 'timed out');
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A block as stored is at most a few MiB; a gossip message above this is dropped unread. */
export const MAX_GOSSIP_BYTES = 8 << 20;

const VERDICT: Record<GossipVerdict, TopicValidatorResult> = {
  accept: TopicValidatorResult.Accept,
  reject: TopicValidatorResult.Reject,
  ignore: TopicValidatorResult.Ignore,
};

export async function startP2pHost(o: P2pHostOptions): Promise<P2pHost> {
  const topics = gossipTopics(o.genesisHash);
  const protocols = requestProtocols(o.genesisHash);
  // P4 (invalid messages) counts only on topics with parameters: each topic weighs the same, and a rejected message
  // costs its sender -10 (squared per count: three invalid messages put a peer under the graylist threshold of -80).
  const topicParams = createTopicScoreParams({
    topicWeight: 1,
    timeInMeshWeight: 0,
    firstMessageDeliveriesWeight: 0,
    meshMessageDeliveriesWeight: 0,
    meshFailurePenaltyWeight: 0,
    invalidMessageDeliveriesWeight: -10,
    invalidMessageDeliveriesDecay: 0.99,
  });
  const node: Libp2p<{ pubsub: GossipSub }> = await createLibp2p({
    privateKey: o.privateKey,
    addresses: { listen: [...o.listen] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      ping: ping(),
      pubsub: gossipsub({
        globalSignaturePolicy: StrictNoSign,
        msgIdFn: (m) => messageId(m.data),
        emitSelf: false,
        allowPublishToZeroTopicPeers: true,
        ignoreDuplicatePublishError: true,
        allowedTopics: Object.values(topics),
        maxInboundDataLength: o.maxMessageBytes ?? MAX_GOSSIP_BYTES,
        scoreParams: createPeerScoreParams({
          topics: Object.fromEntries(Object.values(topics).map((t) => [t, topicParams])),
        }),
      }),
    },
  });
  // The router's instance scores peers; the interface the package exports leaves the method out.
  const pubsub = node.services.pubsub as GossipSub & { getScore(peerId: string): number };
  const log = o.log.child({ module: 'libp2p' });
  node.addEventListener('peer:connect', (e) => log.info({ peer: e.detail.toString() }, 'peer connected'));
  node.addEventListener('peer:disconnect', (e) => log.info({ peer: e.detail.toString() }, 'peer disconnected'));

  return {
    peerId: node.peerId.toString(),
    addresses: () => node.getMultiaddrs().map(String),
    async dial(addr) {
      await node.dial(multiaddr(addr));
    },
    subscribe(topic, handler) {
      const name = topics[topic];
      pubsub.topicValidators.set(name, async (from: PeerId, msg) => {
        try {
          return VERDICT[await handler(msg.data, from.toString())];
        } catch (err) {
          // A handler that throws has a bug here, not a peer that lied: nobody is penalized for it.
          log.error({ err, topic }, 'gossip handler failed');
          return TopicValidatorResult.Ignore;
        }
      });
      pubsub.subscribe(name);
    },
    async publish(topic, data) {
      return (await pubsub.publish(topics[topic], data)).recipients.length;
    },
    async handle(protocol, handler, { maxRequestBytes }) {
      await node.handle(protocols[protocol], async (stream, connection) => {
        const from = connection.remotePeer.toString();
        const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
        try {
          const request = await readBounded(stream, maxRequestBytes, signal);
          stream.send(await handler(request, from));
          await stream.close({ signal });
        } catch (err) {
          log.debug({ err, protocol, peer: from }, 'request not answered');
          stream.abort(err instanceof Error ? err : new Error(String(err)));
        }
      });
    },
    async request(peerId, protocol, request, { maxResponseBytes, timeoutMs = REQUEST_TIMEOUT_MS }) {
      const deadline = requestDeadlines(timeoutMs);
      const { signal } = deadline;
      try {
        let stream: Stream;
        try {
          stream = await node.dialProtocol(peerIdFromString(peerId), protocols[protocol], { signal });
          stream.send(request);
          await stream.close({ signal });
          deadline.heard(); // the server's time to answer starts now
        } catch (err) {
          throw new PeerRequestError(signal.aborted ? 'timeout' : 'failed', `${protocol} request to ${peerId}`, {
            cause: err,
          });
        }
        try {
          return await readBounded(stream, maxResponseBytes, signal, deadline.heard);
        } catch (err) {
          if (err instanceof PeerRequestError) throw err;
          throw new PeerRequestError(signal.aborted ? 'timeout' : 'failed', `${protocol} answer from ${peerId}`, {
            cause: err,
          });
        }
      } finally {
        deadline.done();
      }
    },
    peers: () => {
      const subscribed = Object.values(topics).map((t) => ({ t, ids: new Set(pubsub.getSubscribers(t).map(String)) }));
      return node.getPeers().map((id) => {
        const key = id.toString();
        return {
          id: key,
          addrs: node.getConnections(id).map((c) => c.remoteAddr.toString()),
          score: pubsub.getScore(key),
          topics: subscribed.filter((s) => s.ids.has(key)).map((s) => s.t),
        };
      });
    },
    async listenAddrsOf(peerId) {
      try {
        const p = await node.peerStore.get(peerIdFromString(peerId));
        return p.addresses.map((a) => `${a.multiaddr.toString()}/p2p/${peerId}`);
      } catch {
        return [];
      }
    },
    score: (peerId) => pubsub.getScore(peerId),
    async stop() {
      await node.stop();
    },
  };
}
