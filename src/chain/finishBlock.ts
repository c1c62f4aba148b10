import type { MachineRegistry } from '../machines/registry';
import { MACHINES } from '../modules/machines';
import { tickMachines } from '../machines/tick';
import { advanceSchedule, elect, isEpochBoundary, matureUnbonding, payBlockReward } from '../modules/staking';
import { credit } from '../protocol/accounts';
import type { ChainEvent } from '../protocol/events';
import { loadSupply, saveSupply, type ExecState } from '../protocol/execState';
import { loadParams } from '../protocol/governable';
import { TREASURY_ADDRESS } from '../protocol/params';
import type { Address } from '../protocol/types';

/**
 * End of block, in this order: tick the on-chain machines due at this height (each due
 * instance's beforeDeadline hook first: the recount of proposals whose voting ends here; after the
 * block's transactions, so they see its votes; a proposal executed here takes effect from
 * here), pay the block reward (producer's commission, voters' accumulator) and the treasury's
 * share, pay out matured unbondings, advance the schedule (finality, downtime jailing, the
 * election at an epoch boundary, a decided set coming into force: modules/staking/schedule.ts), and account for
 * what was minted and burned. Returns the end-of-block events (`Block.events`).
 */
export async function finishBlock(
  state: ExecState,
  b: { height: number; producer: Address; burned: bigint; abstain?: boolean },
  machines: MachineRegistry = MACHINES,
): Promise<ChainEvent[]> {
  const { events } = await tickMachines(state, machines, b.height);
  const p = await loadParams(state);
  await payBlockReward(state, b.producer, p.BLOCK_REWARD, b.height);
  if (p.TREASURY_REWARD > 0n) await credit(state, TREASURY_ADDRESS, p.TREASURY_REWARD, b.height);
  await matureUnbonding(state, b.height);
  // Finality, downtime jailing, the election at an epoch boundary, and the set in force.
  events.push(
    ...(await advanceSchedule(state, p, b, async () =>
      isEpochBoundary(b.height, p) ? elect(state, p, b.height) : [],
    )),
  );
  const s = await loadSupply(state);
  const minted = p.BLOCK_REWARD + p.TREASURY_REWARD;
  await saveSupply(state, {
    ...s,
    supply: s.supply + minted - b.burned,
    minted: s.minted + minted,
    burned: s.burned + b.burned,
  });
  return events;
}
