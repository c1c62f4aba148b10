/**
 * Row 2 of issue 23: JSON-RPC batches of eth_calls whose code loops until it runs out of gas.
 * Reusable by the adversarial test and the attack benchmark.
 */
import { requestFrom } from '../lib';

/** JUMPDEST PUSH1 0 JUMP: loops until the gas runs out. */
export const LOOP_CODE = '0x5b600056';
/** VM_MAX_GAS: the most a call may burn. */
export const LOOP_GAS = 5_190_000;

/**
 * Init code that loops `iterations` times (26 gas each) and returns nothing: a call that
 * succeeds after burning about 26 × iterations gas (PUSH3 n; loop: JUMPDEST PUSH1 1 SWAP1 SUB
 * DUP1 PUSH1 4 JUMPI; STOP).
 */
export function countedLoopCode(iterations: number): string {
  if (!(iterations > 0 && iterations < 2 ** 24)) throw new RangeError('iterations must fit PUSH3');
  return `0x62${iterations.toString(16).padStart(6, '0')}5b6001900380600457` + '00';
}

export interface VmCallFloodOptions {
  /** Calls per batch (MAX_RPC_BATCH = 50). */
  batch?: number;
  /** Gas of each call. */
  gas?: number;
  /** Batches each address keeps in flight. */
  concurrency?: number;
  method?: 'eth_call' | 'eth_estimateGas';
}

export interface VmCallFloodReport {
  /** Batches answered (any HTTP status). */
  batches: number;
  /** Calls answered with a result. */
  results: number;
  /** Error answers by kind: `http <status>`, or the JSON-RPC error message (its first 100 characters). */
  errors: Record<string, number>;
}

/**
 * Each address in `from` sends batches of looping eth_calls back to back (ignoring any
 * Retry-After) until stopped. Every call's data is distinct (bytes after the loop never run),
 * so no answer can be served from a cache of identical calls.
 */
export function startVmCallFlood(
  rpcUrl: string,
  from: string[],
  opts: VmCallFloodOptions = {},
): { stop(): Promise<VmCallFloodReport> } {
  const batch = opts.batch ?? 50;
  const gas = `0x${(opts.gas ?? LOOP_GAS).toString(16)}`;
  const method = opts.method ?? 'eth_call';
  const report: VmCallFloodReport = { batches: 0, results: 0, errors: {} };
  const count = (k: string) => (report.errors[k] = (report.errors[k] ?? 0) + 1);
  let running = true;
  let seq = 0;
  const worker = async (addr: string) => {
    while (running) {
      const body = Array.from({ length: batch }, (_, i) => {
        const call = { data: `${LOOP_CODE}${(seq++).toString(16).padStart(16, '0')}`, gas };
        return { jsonrpc: '2.0', id: i, method, params: method === 'eth_call' ? [call, 'latest'] : [call] };
      });
      try {
        const r = await requestFrom(addr, rpcUrl, { body, timeoutMs: 120_000 });
        report.batches++;
        if (r.status !== 200 || !Array.isArray(r.json)) {
          count(`http ${r.status}`);
          // A refused client waits a little rather than spinning on its own socket errors.
          if (r.status !== 200) await new Promise((res) => setTimeout(res, 20));
          continue;
        }
        for (const a of r.json) {
          if (a && 'result' in a) report.results++;
          else count(String(a?.error?.message ?? 'no answer').slice(0, 100));
        }
      } catch (e) {
        count(`request failed: ${(e as Error).message.slice(0, 40)}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    }
  };
  const loops = from.flatMap((addr) => Array.from({ length: opts.concurrency ?? 1 }, () => worker(addr)));
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return report;
    },
  };
}
