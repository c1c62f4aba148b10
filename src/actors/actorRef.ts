/**
 * A node actor: one mailbox, one behaviour handling one message at a time. The mailbox
 * belongs to the ref, so messages queued while the behaviour restarts are not lost; the
 * behaviour (the actor's working state) is rebuilt by its factory on restart.
 * Ingress is bounded: beyond `capacity` queued messages `send`/`ask` reject at once.
 */
/**
 * What each message of an actor answers, keyed by message type: `ask` returns exactly that
 * type and a behaviour must produce it, so no caller asserts its own reply type.
 */
export type Replies<M extends { type: string }> = { [K in M['type']]: unknown };

/** Messages that carry no answer. */
export type NoReplies<M extends { type: string }> = { [K in M['type']]: void };

export interface Behavior<M extends { type: string }, R extends Replies<M> = NoReplies<M>> {
  handle<T extends M>(msg: T): Promise<R[T['type']]>;
  stop?(): Promise<void>;
}

/**
 * A behaviour written as one handler per message type (the usual way to write one): each
 * handler gets its own message and must return its own reply.
 */
export type Handlers<M extends { type: string }, R extends Replies<M>> = {
  [K in M['type']]: (msg: Extract<M, { type: K }>) => Promise<R[K]> | R[K];
};

/** Turns per-type handlers into a Behavior. */
export function behaviorOf<M extends { type: string }, R extends Replies<M>>(
  handlers: Handlers<M, R>,
  stop?: () => Promise<void>,
): Behavior<M, R> {
  return {
    handle: async <T extends M>(msg: T) =>
      (handlers[msg.type as T['type']] as unknown as (m: T) => Promise<R[T['type']]> | R[T['type']])(msg),
    ...(stop ? { stop } : {}),
  };
}

interface Envelope<M> {
  msg: M | { type: '__fault'; error: Error };
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class MailboxFullError extends Error {
  constructor(actor: string) {
    super(`${actor} mailbox is full`);
  }
}

/**
 * A behaviour's answer that the message cannot be taken (e.g. an event its machine does not
 * accept in the current state): the caller's `ask` rejects with it, and the actor keeps
 * running — unlike any other error, which is a crash handed to the supervisor.
 */
export class MessageRefusedError extends Error {
  constructor(
    readonly actor: string,
    readonly messageType: string,
    reason: string,
  ) {
    super(`${actor} refused ${messageType}: ${reason}`);
  }
}

export class ActorStoppedError extends Error {
  constructor(actor: string) {
    super(`${actor} is stopped`);
  }
}

export class ActorRef<M extends { type: string }, R extends Replies<M> = NoReplies<M>> {
  private queue: Envelope<M>[] = [];
  private behavior: Behavior<M, R> | null = null;
  private draining = false;
  private stopped = false;
  private current: Promise<unknown> = Promise.resolve();
  /** Set by the supervisor: called when the behaviour throws. */
  onCrash: (err: unknown) => void = () => {};
  processed = 0;
  dropped = 0;

  constructor(
    readonly name: string,
    readonly capacity = 100_000,
  ) {}

  get queued(): number {
    return this.queue.length;
  }

  get running(): boolean {
    return this.behavior !== null;
  }

  /** Installs a (new) behaviour and resumes the mailbox. */
  attach(b: Behavior<M, R>): void {
    this.behavior = b;
    this.stopped = false;
    void this.drain();
  }

  /** Removes the behaviour; queued messages wait for the next one. */
  async detach(): Promise<void> {
    const b = this.behavior;
    this.behavior = null;
    await b?.stop?.();
  }

  /** Stops for good: pending and future messages are rejected. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current.catch(() => {}); // let the message in hand finish (e.g. a block being written)
    await this.detach();
    for (const e of this.queue.splice(0)) e.reject(new ActorStoppedError(this.name));
  }

  send(msg: M): void {
    this.ask(msg).catch(() => {});
  }

  /** The reply type is the one declared for the message's type. */
  ask<T extends M>(msg: T): Promise<R[T['type']]> {
    return this.enqueue(msg) as Promise<R[T['type']]>;
  }

  /** Fault injection for tests and chaos drills: the behaviour throws `error` when it reaches it. */
  injectFault(error = new Error(`injected fault in ${this.name}`)): Promise<unknown> {
    return this.enqueue({ type: '__fault', error });
  }

  private enqueue(msg: Envelope<M>['msg']): Promise<unknown> {
    if (this.stopped) return Promise.reject(new ActorStoppedError(this.name));
    if (this.queue.length >= this.capacity) {
      this.dropped++;
      return Promise.reject(new MailboxFullError(this.name));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ msg, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.behavior && this.queue.length > 0) {
        const b = this.behavior;
        const e = this.queue.shift()!;
        try {
          if (e.msg.type === '__fault') throw (e.msg as { error: Error }).error;
          this.current = b.handle(e.msg as M);
          e.resolve(await this.current);
          this.processed++;
        } catch (err) {
          e.reject(err);
          if (err instanceof MessageRefusedError) continue; // an answer, not a fault
          // The behaviour's state may be inconsistent now: hand it to the supervisor.
          if (this.behavior === b) {
            this.behavior = null;
            this.onCrash(err);
          }
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
