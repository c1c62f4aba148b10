import { Worker } from 'node:worker_threads';

/**
 * What every worker pool of the node shares (the verify pool here, the VM call pool in
 * vm/callPool.ts): a worker that says `{ type: 'ready' }` once initialised, one failure
 * callback however it dies ('error' is followed by 'exit'), and a respawn back-off for a
 * worker that keeps dying (e.g. its initialisation failing), so a pool does not spin.
 */
export interface WorkerHandlers<M> {
  /** Every message after the ready one. */
  message(m: M): void;
  /** Called once, when the worker errs or exits (a terminate() included). */
  failed(cause: unknown): void;
}

/**
 * Starts a worker (with no inherited execArgv: a `--import tsx` of the parent would cost
 * each worker a loader it does not need) and resolves once it is ready. A worker that dies
 * before that rejects with `startError(cause)` and still reports `failed`.
 */
export function startWorker<M>(
  url: URL,
  h: WorkerHandlers<M>,
  startError: (cause: unknown) => Error,
): { worker: Worker; ready: Promise<void> } {
  const worker = new Worker(url, { execArgv: [] });
  let started = false;
  let dead = false;
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: M | { type: 'ready' }) => {
      if (!started && (m as { type?: unknown }).type === 'ready') {
        started = true;
        resolve();
        return;
      }
      h.message(m as M);
    });
    const onFailure = (cause: unknown): void => {
      if (!started) {
        started = true;
        reject(startError(cause));
      }
      if (dead) return;
      dead = true;
      h.failed(cause);
    };
    worker.on('error', onFailure);
    worker.on('exit', (code) => onFailure(new Error(`worker exited with code ${code}`)));
  });
  return { worker, ready };
}

/**
 * Delay before respawning a worker after its `consecutive`-th crash in a row: none for the first, then 100 ms doubling
 * to 5 s.
 */
export const respawnDelayMs = (consecutive: number): number =>
  consecutive <= 1 ? 0 : Math.min(5_000, 100 * 2 ** (consecutive - 2));
