import { applyGenesis, type GenesisSpec } from '../../src/chain/genesis';
import type { Hex } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';

/** A state at `genesis` over an in-memory store (not yet committed). */
export async function freshChainState(genesis: GenesisSpec): Promise<{ kv: MemoryKv; state: StateTrie }> {
  const kv = new MemoryKv();
  const state = await StateTrie.open(kv, null);
  await applyGenesis(state, genesis);
  return { kv, state };
}

/** Commits `state` to `kv` as the producer does after a block; returns the root. */
export async function commitState(kv: MemoryKv, state: StateTrie): Promise<Hex> {
  const b = kv.batch();
  const root = await state.flush(b);
  await kv.write(b);
  state.settle();
  return root;
}
