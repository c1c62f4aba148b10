import type {
  GossipHandler,
  GossipTopic,
  GossipVerdict,
  P2pHost,
  PeerView,
  RequestHandler,
  RequestLimits,
  RequestProtocol,
} from '../src/network/libp2p/host';
import { PeerRequestError, REQUEST_SILENCE_MS, REQUEST_TIMEOUT_MS } from '../src/network/libp2p/host';
import { gossipTopics, messageId } from '../src/network/libp2p/topics';
import { toHex, type Hex } from '../src/primitives/hex';
import type { Scheduler } from './scheduler';

/**
 * The simulator's network behind the node's libp2p seam (network/libp2p/host.ts P2pHost): the same topics and
 * request/response semantics as a node's host, carried by the world's scheduler with its seeded delays, losses and
 * partitions. Gossipsub's own mesh is not simulated: a message goes to every reachable peer, and a peer that accepts
 * it forwards it to its own (a full mesh, which is what a small network of validators has); duplicates are dropped
 * by message id before the handler, as gossipsub drops them. Scores are not simulated either (every peer scores 0).
 * A partition or a peer down is a link gone: the peer leaves `peers()`, and what was sent to it is not delivered. A
 * request unanswered (lost, or its peer cut off) fails when the node's host would give up on the peer's silence.
 */

/** What a simulated host needs of the world. */
export interface SimLinks {
  sched: Scheduler;
  /** Whether a message from `a` can reach `b` now (partitions, the byzantine twins' sides). */
  reachable(a: SimPeer, b: SimPeer): boolean;
  /** One link's delay (seeded). */
  delay(): number;
  /** Whether the network loses this message (seeded). */
  lost(): boolean;
  /** How long `from`'s own message waits before it leaves (a withholder's blocks); forwarded ones do not wait. */
  holdMs?(from: SimPeer, topic: GossipTopic): number;
  /** How long a receiver spends on a message before its handler has it (the work per transaction of a block). */
  workMs?(topic: GossipTopic, data: Uint8Array): number;
  /** A message `to`'s handler judged (the trace). */
  handled?(to: SimPeer, from: SimPeer, topic: GossipTopic, data: Uint8Array, verdict: GossipVerdict): void;
}

/** A node as its host sees it: its name, whether it runs, its current life, and its host. */
export interface SimPeer {
  readonly name: string;
  readonly up: boolean;
  readonly incarnation: number;
  host?: SimHost;
}

const SEEN_MAX = 20_000;

export class SimHost implements P2pHost {
  private readonly subs = new Map<GossipTopic, GossipHandler>();
  private readonly handlers = new Map<RequestProtocol, RequestHandler>();
  private readonly seen = new Set<string>();
  private readonly life: number;
  private readonly topicNames: Record<GossipTopic, string>;

  constructor(
    private readonly self: SimPeer,
    private readonly world: () => readonly SimPeer[],
    private readonly links: SimLinks,
    genesisHash: Hex,
  ) {
    this.life = self.incarnation;
    this.topicNames = gossipTopics(genesisHash);
  }

  get peerId(): string {
    return this.self.name;
  }

  private get alive(): boolean {
    return this.self.up && this.self.incarnation === this.life && this.self.host === this;
  }

  private others(): SimPeer[] {
    return this.world().filter((p) => p !== this.self && p.up && p.host !== undefined);
  }

  addresses(): string[] {
    return [];
  }

  async dial(): Promise<void> {}

  async listenAddrsOf(): Promise<string[]> {
    return [];
  }

  subscribe(topic: GossipTopic, handler: GossipHandler): void {
    this.subs.set(topic, handler);
  }

  private remember(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  async publish(topic: GossipTopic, data: Uint8Array): Promise<number> {
    const id = toHex(messageId(data));
    this.remember(id);
    return this.send(topic, data, id, undefined, this.links.holdMs?.(this.self, topic) ?? 0);
  }

  /** To every reachable peer but `except`, each after its own delay (and `holdMs`); returns how many it went to. */
  private send(topic: GossipTopic, data: Uint8Array, id: string, except: SimPeer | undefined, holdMs = 0): number {
    const extra = holdMs + (this.links.workMs?.(topic, data) ?? 0);
    let n = 0;
    for (const to of this.others()) {
      if (to === except || !this.links.reachable(this.self, to) || this.links.lost()) continue;
      n++;
      const host = to.host!;
      // Not awaited by the scheduler: handling may wait on later events (a compact block's missing transactions).
      this.links.sched.after(this.links.delay() + extra, () => void host.deliver(topic, data, id, this.self));
    }
    return n;
  }

  /** A message from `from`: once per id, through the topic's handler; forwarded only if accepted. */
  async deliver(topic: GossipTopic, data: Uint8Array, id: string, from: SimPeer): Promise<void> {
    if (!this.alive || !this.links.reachable(from, this.self) || !this.remember(id)) return;
    const handler = this.subs.get(topic);
    if (!handler) return;
    let verdict: GossipVerdict;
    try {
      verdict = await handler(data, from.name);
    } catch {
      return; // as the node's host does: a handler that throws (here: a node dying in a write) is an ignore
    }
    if (!this.alive) return;
    this.links.handled?.(this.self, from, topic, data, verdict);
    if (verdict === 'accept') this.send(topic, data, id, from);
  }

  async handle(protocol: RequestProtocol, handler: RequestHandler): Promise<void> {
    this.handlers.set(protocol, handler);
  }

  request(peerId: string, protocol: RequestProtocol, request: Uint8Array, limits: RequestLimits): Promise<Uint8Array> {
    const { sched } = this.links;
    const to = this.world().find((p) => p.name === peerId);
    const sent = sched.now;
    const life = this.life;
    const alive = () => this.self.up && this.self.incarnation === life;
    // An answer comes whole here: one that has not come when the peer's silence is cut (host.ts) never will.
    const deadline = sent + Math.min(limits.timeoutMs ?? REQUEST_TIMEOUT_MS, REQUEST_SILENCE_MS);
    return new Promise<Uint8Array>((resolve, reject) => {
      const noAnswer = () =>
        sched.at(deadline, () => {
          if (alive()) reject(new PeerRequestError('timeout', `${protocol} request to ${peerId}`));
        });
      if (!to || !this.links.reachable(this.self, to) || this.links.lost()) return noAnswer();
      sched.after(this.links.delay(), () => void serve());
      const serve = async () => {
        const handler = to.up ? to.host?.handlers.get(protocol) : undefined;
        if (!handler || !this.links.reachable(this.self, to)) return noAnswer();
        let answer: Uint8Array;
        try {
          answer = await handler(request, this.self.name);
        } catch {
          return noAnswer();
        }
        if (!this.links.reachable(to, this.self) || this.links.lost()) return noAnswer();
        sched.after(this.links.delay(), () => {
          if (!alive()) return;
          if (answer.length > limits.maxResponseBytes)
            reject(new PeerRequestError('oversize', `more than ${limits.maxResponseBytes} bytes`));
          else resolve(answer);
        });
      };
    });
  }

  peers(): PeerView[] {
    const topics = Object.values(this.topicNames);
    return this.others()
      .filter((p) => this.links.reachable(this.self, p) && this.links.reachable(p, this.self))
      .map((p) => ({ id: p.name, addrs: [], score: 0, topics }));
  }

  score(): number {
    return 0;
  }

  async stop(): Promise<void> {
    this.subs.clear();
    this.handlers.clear();
  }
}
