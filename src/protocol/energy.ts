import { COIN } from '../primitives/amount';
import { BURN_PER_ENERGY, ENERGY_PER_STAKED_COIN, ENERGY_REGEN_BLOCKS, FREE_ENERGY } from './params';
import type { AccountState } from './types';

/**
 * Energy cap grows with the stake whose capacity the account holds (docs/PROTOCOL.md "Fees and energy"): its own
 * stake less what it lends (DELEGATE_RESOURCE), plus what others lend it. Integer arithmetic only.
 */
export function maxEnergy(a: AccountState): bigint {
  return FREE_ENERGY + ((a.staked - a.delegatedOut + a.delegatedIn) / COIN) * ENERGY_PER_STAKED_COIN;
}

/** Energy available at `height`: linear regeneration to the cap over ENERGY_REGEN_BLOCKS. */
export function energyAt(a: AccountState, height: number): bigint {
  const cap = maxEnergy(a);
  const elapsed = BigInt(Math.max(0, height - a.energyHeight));
  const e = a.energy + (elapsed * cap) / ENERGY_REGEN_BLOCKS;
  return e > cap ? cap : e;
}

/**
 * The fee-exemption rule (docs/PROTOCOL.md "Fees and energy"): an account burns no fees when
 * genesis made it exempt (system accounts), or while its own stake is at least the governable
 * FEE_EXEMPT_STAKE (0 turns the stake rule off). `/address` shows the same rule's answer.
 */
export const isFeeExempt = (a: AccountState, feeExemptStake: bigint): boolean =>
  a.feeExempt || (feeExemptStake > 0n && a.staked >= feeExemptStake);

/** What a transaction costs: the energy it consumes and the base units burned for the shortfall. */
export function chargeFor(
  a: AccountState,
  cost: bigint,
  height: number,
  exempt = a.feeExempt,
): { energyUsed: bigint; burn: bigint; energyLeft: bigint } {
  if (exempt) return { energyUsed: 0n, burn: 0n, energyLeft: energyAt(a, height) };
  const have = energyAt(a, height);
  const used = have >= cost ? cost : have;
  return { energyUsed: used, burn: (cost - used) * BURN_PER_ENERGY, energyLeft: have - used };
}
