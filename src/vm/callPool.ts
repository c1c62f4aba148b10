import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { CairnError } from '../errors/CairnError';
import type { Hex } from '../primitives/hex';
import { respawnDelayMs, startWorker } from '../crypto/workers';
import { getMany, type KvReader } from '../state/kv';
import { NODE_PREFIX, sharedNodesOf } from '../state/trieNodes';
import type { GasEstimate, VmBlockContext, VmMessage, VmOutcome } from './execute';

/**
 * eth_call and eth_estimateGas off the thread that serves HTTP and produces blocks.
 *
 * Each job runs in a worker thread (callWorker.ts) on the state trie at the root the caller
 * names: a consistent snapshot, because trie nodes are content-addressed and never deleted,
 * so every node under a root stays what it was while new blocks are written. The worker has
 * no store of its own: it asks this thread for the nodes it lacks (one message per trie level
 * read, answered from the node cache or one RocksDB multi-get) and keeps them in its own
 * cache. A looping call reads a handful of nodes and then only computes.
 *
 * Bounds, each a clear error for the caller (never a hang):
 * - gas: the VM's VM_MAX_GAS per run, and estimateGas bounds its own search (execute.ts);
 * - wall clock: a job not answered within `timeoutMs` of its start terminates its worker
 *   (replaced at once) and fails with VM_CALL_TIMEOUT;
 * - queue: at most `maxQueue` jobs wait, and at most a quarter of them of one client; beyond,
 *   VM_CALL_BUSY at once; a job that waited `timeoutMs` without a worker fails with
 *   VM_CALL_BUSY too (so an answer never takes more than twice the budget) — or `startWaitMs`
 *   when it came while no worker was up yet (a node's first seconds).
 * Waiting jobs are served one client after another (round robin), so a client flooding the
 * pool delays another client's call by about one run per flooding client, not by its backlog.
 * Workers run at a lower CPU priority (nice 10) than the main thread, so on a machine with
 * every core busy the node's own work (blocks, HTTP) still comes first.
 */

export interface VmCallPoolOptions {
  /** Worker threads; default: one less than the CPUs (at least one), so a core stays for the main thread. */
  workers?: number;
  /** Wall-clock budget of one job (an eth_call, or a whole eth_estimateGas search). */
  timeoutMs?: number;
  /** Jobs waiting for a worker beyond the running ones. */
  maxQueue?: number;
  /** How long a job may wait while no worker is up yet (the node just started, or every worker is being replaced). */
  startWaitMs?: number;
}

export const VM_CALL_DEFAULTS = Object.freeze({ timeoutMs: 5_000, maxQueue: 64, startWaitMs: 30_000 });
export const defaultVmCallWorkers = (): number => Math.max(1, availableParallelism() - 1);

export type VmCallErrorCode =
  | 'VM_CALL_BUSY'
  | 'VM_CALL_TIMEOUT'
  | 'VM_CALL_CRASHED'
  | 'VM_CALL_CLOSED'
  | 'VM_CALL_START_FAILED';

export type VmJob =
  | { kind: 'call'; root: Hex; msg: VmMessage; ctx: VmBlockContext }
  | { kind: 'estimate'; root: Hex; msg: Omit<VmMessage, 'gasLimit'>; ctx: VmBlockContext };

/** Messages between this thread and a worker (besides the worker's first `{type:'ready'}`). */
export type ToWorker =
  | { type: 'job'; id: number; job: VmJob }
  | { type: 'read'; id: number; values: (Uint8Array | undefined)[] }
  | { type: 'read'; id: number; error: string };
export type FromWorker =
  | { type: 'done'; id: number; out: VmOutcome | GasEstimate }
  | { type: 'failed'; id: number; error: string }
  | { type: 'read'; id: number; keys: Uint8Array[] };

interface Job {
  job: VmJob;
  client: string;
  resolve(v: VmOutcome | GasEstimate): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  index: number;
  worker: Worker;
  ready: boolean;
  dead: boolean;
  /** Terminated for a job over budget: takes no job, and its exit is not a crash. */
  retired: boolean;
  job?: { id: number; job: Job };
  consecutiveCrashes: number;
}

const WORKER_URL = new URL('./callWorker.mjs', import.meta.url);

export interface VmCallPoolStats {
  workers: number;
  alive: number;
  running: number;
  queued: number;
  completed: number;
  busy: number;
  timeouts: number;
  crashes: number;
}

export class VmCallPool {
  private readonly slots: (Slot | undefined)[];
  /** Waiting jobs by client, clients in serving order (one served moves to the back). */
  private readonly waiting = new Map<string, Job[]>();
  private queued = 0;
  private closed = false;
  private nextId = 1;
  private readonly counters = { completed: 0, busy: 0, timeouts: 0, crashes: 0 };
  readonly timeoutMs: number;
  readonly maxQueue: number;
  readonly maxQueuePerClient: number;
  readonly startWaitMs: number;

  private constructor(
    private readonly kv: KvReader,
    private readonly size: number,
    opts: VmCallPoolOptions,
  ) {
    this.slots = new Array<Slot | undefined>(size).fill(undefined);
    this.timeoutMs = Math.max(1, opts.timeoutMs ?? VM_CALL_DEFAULTS.timeoutMs);
    this.maxQueue = Math.max(0, opts.maxQueue ?? VM_CALL_DEFAULTS.maxQueue);
    this.maxQueuePerClient = Math.max(1, Math.ceil(this.maxQueue / 4));
    this.startWaitMs = Math.max(this.timeoutMs, opts.startWaitMs ?? VM_CALL_DEFAULTS.startWaitMs);
  }

  /**
   * The pool over `kv` (the node's store: the workers read trie nodes through it), its
   * workers starting in the background (jobs wait for them like for busy ones); one that
   * fails to start is retried with a back-off.
   */
  static create(kv: KvReader, opts: VmCallPoolOptions = {}): VmCallPool {
    const pool = new VmCallPool(kv, Math.max(1, Math.floor(opts.workers ?? defaultVmCallWorkers())), opts);
    for (let i = 0; i < pool.size; i++) pool.spawn(i).catch(() => undefined);
    return pool;
  }

  /** Like create(), once every worker is ready (or failing if one cannot start). */
  static async start(kv: KvReader, opts: VmCallPoolOptions = {}): Promise<VmCallPool> {
    const pool = new VmCallPool(kv, Math.max(1, Math.floor(opts.workers ?? defaultVmCallWorkers())), opts);
    try {
      await Promise.all(Array.from({ length: pool.size }, (_, i) => pool.spawn(i)));
    } catch (e) {
      await pool.close();
      throw e;
    }
    return pool;
  }

  /** `client`: whose call it is (the rate limiter's client key), for the fair share of the queue. */
  call(root: Hex, msg: VmMessage, ctx: VmBlockContext, client = ''): Promise<VmOutcome> {
    return this.submit({ kind: 'call', root, msg, ctx }, client) as Promise<VmOutcome>;
  }

  estimate(root: Hex, msg: Omit<VmMessage, 'gasLimit'>, ctx: VmBlockContext, client = ''): Promise<GasEstimate> {
    return this.submit({ kind: 'estimate', root, msg, ctx }, client) as Promise<GasEstimate>;
  }

  stats(): VmCallPoolStats {
    return {
      workers: this.size,
      alive: this.slots.filter((s) => s?.ready).length,
      running: this.slots.filter((s) => s?.job).length,
      queued: this.queued,
      ...this.counters,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const jobs of this.waiting.values())
      for (const j of jobs) this.fail(j, 'VM_CALL_CLOSED', 'the node is stopping');
    this.waiting.clear();
    this.queued = 0;
    await Promise.all(
      this.slots.map((s, i) => {
        if (!s) return undefined;
        this.slots[i] = undefined;
        s.dead = true;
        if (s.job) this.fail(s.job.job, 'VM_CALL_CLOSED', 'the node is stopping');
        return s.worker.terminate();
      }),
    );
  }

  private submit(job: VmJob, client: string): Promise<VmOutcome | GasEstimate> {
    if (this.closed) return Promise.reject(poolError('VM_CALL_CLOSED', 'the node is stopping'));
    return new Promise((resolve, reject) => {
      const j: Job = { job, client, resolve, reject };
      const free = this.slots.find((s) => s?.ready && !s.job);
      if (free && this.queued === 0) return this.dispatch(free, j);
      const mine = this.waiting.get(client) ?? [];
      if (this.queued >= this.maxQueue || mine.length >= this.maxQueuePerClient) {
        this.counters.busy++;
        const n = this.queued >= this.maxQueue ? this.maxQueue : this.maxQueuePerClient;
        return reject(
          poolError(
            'VM_CALL_BUSY',
            `VM call queue is full (${n} calls waiting${n === this.maxQueue ? '' : ' from this client'}): retry later`,
          ),
        );
      }
      // No worker up (starting: a worker loads the whole VM, seconds on a loaded machine): the wait
      // is for the start, not for busy workers, and gets its own, longer bound.
      const starting = !this.slots.some((s) => s?.ready);
      const waitMs = starting ? this.startWaitMs : this.timeoutMs;
      j.timer = setTimeout(() => {
        const i = mine.indexOf(j);
        if (i < 0) return;
        mine.splice(i, 1);
        this.queued--;
        if (mine.length === 0 && this.waiting.get(client) === mine) this.waiting.delete(client);
        this.counters.busy++;
        const why = starting ? 'no VM call worker started' : 'all workers busy';
        this.fail(j, 'VM_CALL_BUSY', `VM call not started within ${waitMs} ms (${why}): retry later`);
      }, waitMs);
      j.timer.unref();
      mine.push(j);
      this.queued++;
      if (!this.waiting.has(client)) this.waiting.set(client, mine);
      if (free) this.next(free);
    });
  }

  /** The next waiting job: the first client's oldest; that client goes to the back of the line. */
  private take(): Job | undefined {
    for (const [client, jobs] of this.waiting) {
      this.waiting.delete(client);
      const j = jobs.shift();
      if (jobs.length > 0) this.waiting.set(client, jobs);
      if (j) {
        this.queued--;
        return j;
      }
    }
    return undefined;
  }

  private dispatch(slot: Slot, j: Job): void {
    clearTimeout(j.timer);
    const id = this.nextId++;
    slot.job = { id, job: j };
    j.timer = setTimeout(() => {
      // Over budget: the worker may be deep in a loop that never yields; only terminating it stops it.
      if (slot.job?.id !== id) return;
      slot.job = undefined;
      slot.ready = false;
      slot.retired = true; // the job's fault, not the worker's: respawned at once
      this.counters.timeouts++;
      this.fail(j, 'VM_CALL_TIMEOUT', `execution aborted (timeout = ${this.timeoutMs} ms)`);
      void slot.worker.terminate();
    }, this.timeoutMs);
    j.timer.unref();
    slot.worker.ref();
    slot.worker.postMessage({ type: 'job', id, job: j.job } satisfies ToWorker);
  }

  private next(slot: Slot): void {
    slot.worker.unref();
    const j = this.take();
    if (j) this.dispatch(slot, j);
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (m.type === 'read') {
      void this.read(m.keys).then(
        (values) => !slot.dead && slot.worker.postMessage({ type: 'read', id: m.id, values } satisfies ToWorker),
        (err: Error) =>
          !slot.dead && slot.worker.postMessage({ type: 'read', id: m.id, error: err.message } satisfies ToWorker),
      );
      return;
    }
    const running = slot.job;
    if (!running || running.id !== m.id) return;
    slot.job = undefined;
    clearTimeout(running.job.timer);
    slot.consecutiveCrashes = 0;
    this.counters.completed++;
    if (m.type === 'done') running.job.resolve(m.out);
    else running.job.reject(new CairnError('VM_CALL_FAILED', m.error));
    this.next(slot);
  }

  /** Trie nodes from the node cache where they are (the head's nodes usually are), the rest in one store read. */
  private async read(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    const shared = sharedNodesOf(this.kv);
    const out: (Uint8Array | undefined)[] = new Array(keys.length);
    const missing: number[] = [];
    keys.forEach((k, i) => {
      const isNode = k.length > NODE_PREFIX.length && k[0] === NODE_PREFIX[0] && k[1] === NODE_PREFIX[1];
      const hit = isNode
        ? shared.lookup(Buffer.from(k.buffer, k.byteOffset + 2, k.byteLength - 2).toString('hex'))
        : undefined;
      if (hit) out[i] = hit;
      else missing.push(i);
    });
    if (missing.length > 0) {
      const read = await getMany(
        this.kv,
        missing.map((i) => keys[i]),
      );
      for (const [j, i] of missing.entries()) out[i] = read[j];
    }
    return out;
  }

  private spawn(index: number): Promise<void> {
    const previous = this.slots[index];
    let slot!: Slot;
    const { worker, ready } = startWorker<FromWorker>(
      WORKER_URL,
      {
        message: (m) => this.onMessage(slot, m),
        failed: (cause) => this.crashed(slot, cause),
      },
      (cause) => poolError('VM_CALL_START_FAILED', 'VM call worker failed to start', { cause }),
    );
    slot = {
      index,
      worker,
      ready: false,
      dead: false,
      retired: false,
      consecutiveCrashes: previous?.consecutiveCrashes ?? 0,
    };
    this.slots[index] = slot;
    return ready.then(() => {
      if (slot.dead) return;
      slot.ready = true;
      slot.consecutiveCrashes = 0;
      this.next(slot);
    });
  }

  private crashed(slot: Slot, cause: unknown): void {
    if (this.closed || slot.dead) return;
    slot.dead = true;
    if (!slot.ready && !slot.retired) slot.consecutiveCrashes++; // died starting: back off if it keeps doing so
    slot.ready = false;
    if (slot.job) {
      this.counters.crashes++;
      slot.consecutiveCrashes++;
      clearTimeout(slot.job.job.timer);
      this.fail(slot.job.job, 'VM_CALL_CRASHED', 'VM call worker crashed: retry', { cause });
      slot.job = undefined;
    }
    setTimeout(() => {
      if (this.closed || this.slots[slot.index] !== slot) return;
      this.spawn(slot.index).catch(() => undefined); // a failed start reports through its own failure
    }, respawnDelayMs(slot.consecutiveCrashes)).unref();
  }

  private fail(j: Job, code: VmCallErrorCode, message: string, opts?: { cause?: unknown }): void {
    clearTimeout(j.timer);
    j.reject(poolError(code, message, opts));
  }
}

const poolError = (code: VmCallErrorCode, message: string, opts?: { cause?: unknown }) =>
  new CairnError<VmCallErrorCode>(code, message, {}, opts);

/**
 * Whether `e` is the pool refusing or abandoning a job (busy, over budget, crashed, closing) rather than a failed
 * execution.
 */
export const isVmCallRefusal = (e: unknown): e is CairnError<VmCallErrorCode> =>
  e instanceof CairnError &&
  (e.code === 'VM_CALL_BUSY' ||
    e.code === 'VM_CALL_TIMEOUT' ||
    e.code === 'VM_CALL_CRASHED' ||
    e.code === 'VM_CALL_CLOSED');
