import { credit, debit } from '../../protocol/accounts';
import { ENERGY_COST } from '../../protocol/params';
import type { TxHandler } from '../../protocol/handler';

/** TRANSFER: moves `amount` base units from the sender to `to`. */
export const transferHandler: TxHandler = {
  type: 'TRANSFER',
  validate(tx) {
    if (tx.to === null) return 'TRANSFER needs a destination';
    if (BigInt(tx.amount) === 0n) return 'TRANSFER amount must be positive';
    if (tx.envelope === 'eth') return 'TRANSFER is a hybrid-envelope type';
    return undefined;
  },
  maxEnergy: () => ENERGY_COST.TRANSFER,
  async execute({ state, height, sender, tx }) {
    await debit(state, sender, BigInt(tx.amount));
    await credit(state, tx.to!, BigInt(tx.amount), height);
    return { energy: ENERGY_COST.TRANSFER };
  },
};
