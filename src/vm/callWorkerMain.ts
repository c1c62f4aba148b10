import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { MemoryKv, type MultiGetKv } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { FromWorker, ToWorker, VmJob } from './callPool';
import { callVm, estimateGas } from './execute';

/**
 * One VM call worker (see callPool.ts): runs one job at a time on the state trie at the job's
 * root, reading trie nodes it lacks from the main thread. The nodes it has read stay in its
 * own cache (the trie's cache is per store object, and this store lives as long as the worker):
 * content-addressed, so never stale.
 */
const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

class MainThreadKv implements MultiGetKv {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve(v: (Uint8Array | undefined)[]): void; reject(e: Error): void }
  >();

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return (await this.getMany([key]))[0];
  }

  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      post({ type: 'read', id, keys: [...keys] });
    });
  }

  answer(m: Extract<ToWorker, { type: 'read' }>): void {
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    if ('error' in m) w.reject(new Error(`store read failed: ${m.error}`));
    else w.resolve(m.values);
  }
}

const kv = new MainThreadKv();

async function run(job: VmJob) {
  const state = await StateTrie.open(kv, job.root);
  return job.kind === 'call' ? callVm(state, job.msg, job.ctx) : estimateGas(state, job.msg, job.ctx);
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'read') return kv.answer(m);
  run(m.job).then(
    (out) => post({ type: 'done', id: m.id, out }),
    (e: unknown) => post({ type: 'failed', id: m.id, error: e instanceof Error ? e.message : String(e) }),
  );
});

// Linux keeps a nice value per thread: this one yields to the main thread (blocks, HTTP) when cores are short.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // Not Linux, or not allowed: the same priority as the main thread.
}

// Build the EVM (~tens of ms, once) before taking calls, so a call's budget is spent on the call.
const zero = `0x${'00'.repeat(20)}` as const;
await callVm(
  await StateTrie.open(new MemoryKv(), null),
  { from: zero, to: null, valueWei: 0n, input: new Uint8Array([0]), gasLimit: 100_000n, gasPrice: 0n },
  { height: 1, timestamp: 0, producer: zero },
);

port.postMessage({ type: 'ready' });
