import type { Logger } from 'pino';
import type { ActorRef, Behavior, Replies } from './actorRef';

/**
 * One-for-one supervision (OTP vocabulary). A permanent child is restarted after a crash
 * with exponential backoff; more than `maxRestarts` within `windowMs` escalates. A
 * critical child never restarts: its crash means a broken invariant, and the node halts
 * rather than paper over it.
 */
export interface ChildSpec<M extends { type: string }, R extends Replies<M> = Replies<M>> {
  ref: ActorRef<M, R>;
  start: () => Promise<Behavior<M, R>>;
  critical?: boolean;
}

export interface SupervisorOptions {
  maxRestarts: number;
  windowMs: number;
  backoffMs: number;
  maxBackoffMs: number;
}

export const defaultSupervisorOptions: SupervisorOptions = {
  maxRestarts: 5,
  windowMs: 60_000,
  backoffMs: 50,
  maxBackoffMs: 5_000,
};

export interface ActorStatus {
  name: string;
  /** A behaviour is attached (false while it restarts). */
  running: boolean;
  restarts: number;
  /** Messages waiting in the mailbox. */
  queued: number;
  processed: number;
  /** Messages refused because the mailbox was full. */
  dropped: number;
}

interface Child {
  spec: ChildSpec<{ type: string }>;
  crashes: number[];
  restarts: number;
  timer?: NodeJS.Timeout;
}

export class Supervisor {
  private children: Child[] = [];
  private stopping = false;

  constructor(
    private readonly log: Logger,
    private readonly onEscalate: (reason: string, err: unknown) => void,
    private readonly opts: SupervisorOptions = defaultSupervisorOptions,
  ) {}

  /** Starts children in order; `stop` stops them in reverse. */
  async startChild<M extends { type: string }, R extends Replies<M>>(spec: ChildSpec<M, R>): Promise<void> {
    const child: Child = { spec: spec as unknown as ChildSpec<{ type: string }>, crashes: [], restarts: 0 };
    this.children.push(child);
    spec.ref.onCrash = (err) => this.crashed(child, err);
    spec.ref.attach(await spec.start());
    this.log.info({ actor: spec.ref.name }, 'actor started');
  }

  /** Each child's mailbox and history: what /metrics exports per actor. */
  status(): ActorStatus[] {
    return this.children.map((c) => ({
      name: c.spec.ref.name,
      running: c.spec.ref.running,
      restarts: c.restarts,
      queued: c.spec.ref.queued,
      processed: c.spec.ref.processed,
      dropped: c.spec.ref.dropped,
    }));
  }

  private crashed(child: Child, err: unknown): void {
    const name = child.spec.ref.name;
    this.log.error({ actor: name, err }, 'actor crashed');
    if (this.stopping) return;
    if (child.spec.critical) {
      this.onEscalate(`critical actor ${name} crashed`, err);
      return;
    }
    const now = Date.now(); // node actors may read the clock; on-chain machines may not
    child.crashes = child.crashes.filter((t) => now - t < this.opts.windowMs);
    child.crashes.push(now);
    if (child.crashes.length > this.opts.maxRestarts) {
      this.onEscalate(`actor ${name} crashed ${child.crashes.length} times in ${this.opts.windowMs} ms`, err);
      return;
    }
    const delay = Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** (child.crashes.length - 1));
    child.timer = setTimeout(() => {
      child.timer = undefined;
      child.spec
        .start()
        .then((b) => {
          if (this.stopping) return;
          child.restarts++;
          child.spec.ref.attach(b);
          this.log.warn({ actor: name, restarts: child.restarts, delayMs: delay }, 'actor restarted');
        })
        .catch((e) => this.crashed(child, e));
    }, delay);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const c of [...this.children].reverse()) {
      if (c.timer) clearTimeout(c.timer);
      await c.spec.ref.stop();
      this.log.info({ actor: c.spec.ref.name }, 'actor stopped');
    }
  }
}
