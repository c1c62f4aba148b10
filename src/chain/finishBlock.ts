import { MACHINES, type MachineRegistry } from '../machines/registry';
import { tickMachines } from '../machines/tick';
import { credit } from '../protocol/accounts';
import type { ChainEvent } from '../protocol/events';
import { loadSupply, saveSupply, type ExecState } from '../protocol/execState';
import { BLOCK_REWARD, TREASURY_ADDRESS, TREASURY_REWARD } from '../protocol/params';
import type { Address } from '../protocol/types';

/**
 * End of block: tick the on-chain machines due at this height (after the block's transactions,
 * so they see its votes and bids), then mint the producer's reward and the treasury's share and
 * account for burns. Returns the tick's events: the block carries them in `Block.events`.
 */
export async function finishBlock(
  state: ExecState,
  b: { height: number; producer: Address; burned: bigint },
  machines: MachineRegistry = MACHINES,
): Promise<ChainEvent[]> {
  const { events } = await tickMachines(state, machines, b.height);
  await credit(state, b.producer, BLOCK_REWARD, b.height);
  await credit(state, TREASURY_ADDRESS, TREASURY_REWARD, b.height);
  const s = await loadSupply(state);
  const minted = BLOCK_REWARD + TREASURY_REWARD;
  await saveSupply(state, { ...s, supply: s.supply + minted - b.burned, minted: s.minted + minted, burned: s.burned + b.burned });
  return events;
}
