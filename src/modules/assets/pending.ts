// TEMPORARY scaffolding while the module handlers are written (removed before commit to main).
import type { TxType } from '../../chain/types';
import type { TxHandler } from '../handler';

export function notYet<T extends readonly TxType[]>(types: T): Record<T[number], TxHandler> {
  const out = {} as Record<T[number], TxHandler>;
  for (const t of types) {
    out[t as T[number]] = { type: t, validate: () => `${t} is not implemented yet`, maxEnergy: () => 100n, execute: async () => ({ energy: 100n }) };
  }
  return out;
}
