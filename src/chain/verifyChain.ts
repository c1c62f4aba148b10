import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { blockRefusal } from '../consensus/blockRules';
import { parentReads } from './parentReads';
import { applyGenesis, type GenesisSpec } from './genesis';
import { applyBlock } from './replay';
import type { Block } from '../protocol/types';

export interface ChainCheck {
  height: number; // last block verified
  ok: boolean;
  error?: string;
}

/**
 * Replays blocks from genesis on an empty state store and checks every link: parent hash,
 * block hash and producer signatures, tx root, each transaction's outcome, and the state
 * root. Same blocks ⇒ same state root, or the chain is reported broken at the first
 * divergent height.
 */
export async function verifyChain(
  genesis: GenesisSpec,
  blocks: AsyncIterable<Block> | Iterable<Block>,
  kv: KvStore,
): Promise<ChainCheck> {
  const state = await StateTrie.open(kv, null);
  const g = await applyGenesis(state, genesis);
  const network = { chainId: genesis.chainId, genesisHash: g.header.hash };
  let prevHash = g.header.hash;
  let height = -1;
  const fail = (h: number, error: string): ChainCheck => ({ height: h - 1, ok: false, error: `block ${h}: ${error}` });
  for await (const b of blocks) {
    const h = b.header.height;
    if (h === 0) {
      if (b.header.hash !== g.header.hash) return fail(0, 'genesis differs');
      height = 0;
      continue;
    }
    if (h !== height + 1) return fail(h, `expected height ${height + 1}`);
    const refused = await blockRefusal(parentReads(state), b, { height, hash: prevHash });
    if (refused) return fail(h, refused);
    const err = await applyBlock(state, b, network);
    if (err) return fail(h, err);
    const batch = kv.batch();
    const root = await state.flush(batch);
    await kv.write(batch);
    state.settle();
    if (root !== b.header.stateRoot) return fail(h, `state root ${root} differs from header ${b.header.stateRoot}`);
    prevHash = b.header.hash;
    height = h;
  }
  return { height, ok: true };
}
