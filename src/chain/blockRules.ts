import { getCandidate } from '../modules/staking';
import type { ExecState } from '../protocol/execState';
import type { Block, SigningKeys } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import { txRootOf, verifyHeader } from './block';
import { blockGasRefusal } from './blockGas';

/** The block-signing keys a producer bound when it stood for election (genesis validators: in the chain specification). */
export async function producerKeysOf(state: ExecState, producer: Block['header']['producer']): Promise<SigningKeys | undefined> {
  const keys = (await getCandidate(state, producer))?.signingKeys;
  return keys && keys.secp256k1 !== '0x' ? keys : undefined;
}

/**
 * Stateless-with-parent checks of a block before it is executed: it links to `parent`, its
 * tx root and count match its body, its VM transactions fit in the block gas budget, and its
 * producer signed it with its bound keys (all read in the parent's `state`). The schedule (slots, producer) is consensus's (consensus/slots.ts).
 */
export async function blockRefusal(state: ExecState, block: Block, parent: { height: number; hash: Hex }): Promise<string | undefined> {
  const h = block.header;
  if (h.height !== parent.height + 1) return `height ${h.height} does not follow ${parent.height}`;
  if (h.parentHash !== parent.hash) return 'parent hash does not link';
  if (!Array.isArray(block.txs) || block.txs.length !== h.txCount || !Array.isArray(block.results) || block.results.length !== h.txCount) return 'transaction count mismatch';
  if (txRootOf(block.txs) !== h.txRoot) return 'tx root mismatch';
  const gas = await blockGasRefusal(state, block.txs);
  if (gas) return gas;
  const keys = await producerKeysOf(state, h.producer);
  if (!keys) return `producer ${h.producer} has no bound block-signing keys`;
  return verifyHeader(h, keys);
}
