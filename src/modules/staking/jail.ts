import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import { writeValidatorSet } from './election';
import { getCandidate, getValidatorSet, putCandidate, type Jail } from './records';

/**
 * Jailing (docs/PROTOCOL.md "Validators, staking and elections"): a jailed candidate leaves the elected
 * active set at once — the first of the standby bank takes its place — and is not eligible
 * in elections until it asks back in. Like every change of the elected set, it schedules
 * slots only once the block that made it is final (schedule.ts). The last member of the
 * active set is never removed (the chain is never left without a producer): it is marked
 * jailed and leaves at the next election that has someone else.
 */
export async function jailCandidate(
  s: ExecState,
  address: Address,
  height: number,
  reason: Jail['reason'],
): Promise<ChainEvent[]> {
  const c = await getCandidate(s, address);
  if (!c) return [];
  await putCandidate(s, { ...c, jailed: { at: height, reason } });
  const before = await getValidatorSet(s);
  const inActive = before.active.includes(address);
  if (!inActive && !before.bank.includes(address))
    return [{ kind: 'validators.jail', address, height, reason, active: before.active }];
  let active = before.active.filter((a) => a !== address);
  let bank = before.bank.filter((a) => a !== address);
  if (inActive && bank.length > 0) [active, bank] = [[...active, bank[0]], bank.slice(1)];
  if (active.length === 0) return [{ kind: 'validators.jail', address, height, reason, active: before.active }];
  await writeValidatorSet(s, before, { ...before, active, bank });
  return [{ kind: 'validators.jail', address, height, reason, active }];
}

/**
 * Lifts a downtime jail (STAKE with candidate: true from a jailed candidate); eligible again from the next election.
 */
export async function unjailCandidate(s: ExecState, address: Address): Promise<void> {
  const c = await getCandidate(s, address);
  if (c?.jailed) await putCandidate(s, { ...c, jailed: null });
}
