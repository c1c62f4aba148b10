import type { Address } from '../protocol/types';
import { MemoryKv } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { callVm } from './execute';

/** JUMPDEST PUSH1 0 JUMP: the tightest loop there is (the issue-23 row-3 attack's code). */
const LOOP = Uint8Array.from([0x5b, 0x60, 0x00, 0x56]);
const WARM_GAS = 400_000n;
const WARM_RUNS = 4;

/**
 * Runs the interpreter hot before the node produces or imports blocks. Measured
 * (bench/attack.ts deploys): the first VM block after a start ran ~2× the others (195 ms
 * against a median of 103 ms for 5,190,000 gas of looping), because V8 had not yet optimized
 * the interpreter loop and its handlers; a block must fit its execution budget from the first.
 * A few looping creations through the real path (callVm: a pooled EVM, always reverted) on a
 * throwaway in-memory state take ~60 ms at start. Touches no chain state.
 */
export async function warmUpVm(): Promise<void> {
  const state = await StateTrie.open(new MemoryKv(), null);
  const from = `0x${'11'.repeat(20)}` as Address;
  for (let i = 0; i < WARM_RUNS; i++) {
    await callVm(state, { from, to: null, valueWei: 0n, input: LOOP, gasLimit: WARM_GAS, gasPrice: 0n }, { height: 1, timestamp: 0, producer: from });
  }
}
