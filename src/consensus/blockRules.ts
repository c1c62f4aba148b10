import { verifyHeader, verifyHeaderWith } from '../crypto/blockHeader';
import { txRootOf } from '../crypto/merkle';
import type { Hex } from '../primitives/hex';
import type { Address, Block, SignedTx, SigningKeys } from '../protocol/types';

/**
 * What the block rules read in the parent's state. consensus/ sits below modules/ and chain/
 * (modules/ applies the finality rule), so it cannot read the staking module's candidate
 * record or the VM's gas limits itself: chain/parentReads.ts `parentReads(state)` gives them.
 * The rules stay pure, and each read is made only when the cheaper checks before it passed.
 */
export interface ParentReads {
  /**
   * The block-signing keys `producer` bound when it stood for election (modules/staking `producerKeysOf`); undefined:
   * none.
   */
  producerKeys(producer: Address): Promise<SigningKeys | undefined>;
  /** Why `txs` do not fit the parent state's block gas budget (chain/blockGas.ts), or undefined. */
  gasRefusal(txs: readonly SignedTx[]): Promise<string | undefined>;
}

/**
 * The header links to `parent` and its producer signed it with the keys it bound (read in the
 * parent's state). Nothing about a block is believed before this passes.
 */
export async function headerRefusal(
  reads: Pick<ParentReads, 'producerKeys'>,
  h: Block['header'],
  parent: { height: number; hash: Hex },
  verifier?: Parameters<typeof verifyHeaderWith>[0],
): Promise<string | undefined> {
  if (h.height !== parent.height + 1) return `height ${h.height} does not follow ${parent.height}`;
  if (h.parentHash !== parent.hash) return 'parent hash does not link';
  const keys = await reads.producerKeys(h.producer);
  if (!keys) return `producer ${h.producer} has no bound block-signing keys`;
  return verifier ? verifyHeaderWith(verifier, h, keys) : verifyHeader(h, keys);
}

/**
 * Stateless-with-parent checks of a block before it is executed, cheapest first: its counts
 * match its body, it links to `parent`, its producer signed it with its bound keys (read in
 * the parent's state), and only then its tx root (hashing a whole body costs more than a
 * header signature, so a forged block costs the node one verification) and its VM gas budget.
 * The schedule (slots, producer) is slots.ts's `scheduleRefusal`.
 */
export async function blockRefusal(
  reads: ParentReads,
  block: Block,
  parent: { height: number; hash: Hex },
  verifier?: Parameters<typeof verifyHeaderWith>[0],
): Promise<string | undefined> {
  const h = block.header;
  if (
    !Array.isArray(block.txs) ||
    block.txs.length !== h.txCount ||
    !Array.isArray(block.results) ||
    block.results.length !== h.txCount
  )
    return 'transaction count mismatch';
  const header = await headerRefusal(reads, h, parent, verifier);
  if (header) return header;
  if (txRootOf(block.txs) !== h.txRoot) return 'tx root mismatch';
  // Its VM transactions fit in the block gas budget (BLOCK_GAS_LIMIT in the parent's state).
  return reads.gasRefusal(block.txs);
}
