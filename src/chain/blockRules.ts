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
 * The header links to `parent` and its producer signed it with the keys it bound (read in the
 * parent's `state`). Nothing about a block is believed before this passes.
 */
export async function headerRefusal(state: ExecState, h: Block['header'], parent: { height: number; hash: Hex }): Promise<string | undefined> {
  if (h.height !== parent.height + 1) return `height ${h.height} does not follow ${parent.height}`;
  if (h.parentHash !== parent.hash) return 'parent hash does not link';
  const keys = await producerKeysOf(state, h.producer);
  if (!keys) return `producer ${h.producer} has no bound block-signing keys`;
  return verifyHeader(h, keys);
}

/**
 * Stateless-with-parent checks of a block before it is executed, cheapest first: its counts
 * match its body, it links to `parent`, its producer signed it with its bound keys (read in
 * the parent's `state`), and only then its tx root (hashing a whole body costs more than a
 * header signature, so a forged block costs the node one verification) and its VM gas budget. The schedule
 * (slots, producer) is consensus's (consensus/slots.ts).
 */
export async function blockRefusal(state: ExecState, block: Block, parent: { height: number; hash: Hex }): Promise<string | undefined> {
  const h = block.header;
  if (!Array.isArray(block.txs) || block.txs.length !== h.txCount || !Array.isArray(block.results) || block.results.length !== h.txCount) return 'transaction count mismatch';
  const header = await headerRefusal(state, h, parent);
  if (header) return header;
  if (txRootOf(block.txs) !== h.txRoot) return 'tx root mismatch';
  // Its VM transactions fit in the block gas budget (BLOCK_GAS_LIMIT in the parent's state).
  return blockGasRefusal(state, block.txs);
}
