import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';

/** The one compiler version bundled (solc-js, offline). Verification requests must ask for it. */
export const SOLC_VERSION = '0.8.30';

interface Pending {
  resolve(v: { output: string; version: string }): void;
  reject(e: Error): void;
}

/** The compiler's waiting line is full: the caller should retry later. */
export class CompilerBusyError extends Error {
  constructor(waiting: number) {
    super(`compiler busy: ${waiting} compilations already waiting, retry later`);
  }
}

/**
 * solc-js in a worker thread, started on first use and kept. Compiles run one at a time
 * from a bounded queue (p-queue): a compile's `timeoutMs` counts from its own start, not
 * from when it joined the line, and beyond `maxWaiting` a request is refused at once
 * instead of piling up. A compile that hangs past `timeoutMs` kills the worker (the next
 * one starts anew).
 */
export class SolcCompiler {
  private worker: Worker | null = null;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly line = new PQueue({ concurrency: 1 });

  constructor(
    private readonly timeoutMs = 60_000,
    private readonly maxWaiting = 16,
  ) {}

  compile(standardJson: unknown): Promise<{ output: any; version: string }> {
    if (this.line.size >= this.maxWaiting) return Promise.reject(new CompilerBusyError(this.line.size));
    return this.line.add(() => this.run(standardJson)) as Promise<{ output: any; version: string }>;
  }

  private run(standardJson: unknown): Promise<{ output: any; version: string }> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.reset(new Error('compilation timed out'));
        reject(new Error(`compilation exceeded ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve({ output: JSON.parse(v.output), version: v.version });
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      w.postMessage({ id, input: JSON.stringify(standardJson) });
    });
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./solcWorker.mjs', import.meta.url));
    w.unref();
    w.on('message', (m: { id: number; output?: string; version?: string; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve({ output: m.output!, version: m.version! });
    });
    w.on('error', (e) => this.reset(e));
    w.on('exit', () => {
      if (this.worker === w) this.reset(new Error('compiler worker exited'));
    });
    this.worker = w;
    return w;
  }

  private reset(e: Error): void {
    const w = this.worker;
    this.worker = null;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    void w?.terminate();
  }

  async close(): Promise<void> {
    this.line.clear();
    await this.worker?.terminate();
    this.worker = null;
  }
}
