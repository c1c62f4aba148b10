import { credit } from '../protocol/accounts';
import { loadSupply, saveSupply, type ExecState } from '../protocol/execState';
import { BLOCK_REWARD, TREASURY_ADDRESS, TREASURY_REWARD } from '../protocol/params';
import type { Address } from '../protocol/types';

/** End of block: mint the producer's reward and the treasury's share, account for burns. */
export async function finishBlock(state: ExecState, b: { height: number; producer: Address; burned: bigint }): Promise<void> {
  await credit(state, b.producer, BLOCK_REWARD, b.height);
  await credit(state, TREASURY_ADDRESS, TREASURY_REWARD, b.height);
  const s = await loadSupply(state);
  const minted = BLOCK_REWARD + TREASURY_REWARD;
  await saveSupply(state, { ...s, supply: s.supply + minted - b.burned, minted: s.minted + minted, burned: s.burned + b.burned });
}
