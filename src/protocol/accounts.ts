import { TxFailure } from './handler';
import { TX } from './txRefusals';
import { energyAt, maxEnergy } from './energy';
import type { ExecState } from './execState';
import type { AccountState, Address } from './types';

/** A new account starts with a full energy allowance from the height it appears at. */
export function newAccount(height: number): AccountState {
  const a: AccountState = {
    balance: 0n,
    staked: 0n,
    nonce: 0,
    energy: 0n,
    energyHeight: height,
    feeExempt: false,
    isValidator: false,
    mldsaKeyHash: null,
    codeHash: null,
    weiRemainder: 0n,
    delegatedOut: 0n,
    delegatedIn: 0n,
    permissioned: false,
  };
  a.energy = maxEnergy(a);
  return a;
}

/**
 * Credits an account, creating it on first receipt (docs/API.md "GET /address/:end": an account exists from its first
 * received transaction).
 */
export async function credit(s: ExecState, addr: Address, amount: bigint, height: number): Promise<void> {
  const a = (await s.getAccount(addr)) ?? newAccount(height);
  a.balance += amount;
  await s.putAccount(addr, a);
}

export async function debit(s: ExecState, addr: Address, amount: bigint): Promise<void> {
  const a = await s.getAccount(addr);
  if (!a || a.balance < amount) throw new TxFailure(TX.TX_INSUFFICIENT_BALANCE());
  a.balance -= amount;
  await s.putAccount(addr, a);
}

/** Account as shown at `height` (energy regenerated). */
export function viewAccount(a: AccountState, height: number): AccountState {
  return { ...a, energy: energyAt(a, height), energyHeight: height };
}
