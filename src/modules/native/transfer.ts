import { credit, debit } from '../../protocol/accounts';
import { defineTx } from '../tx/define';

/** TRANSFER: moves `amount` base units from the sender to `to`. */
export const transfer = defineTx({
  type: 'TRANSFER',
  module: 'native',
  summary: 'moves amount base units from the sender to `to`; data is not read',
  to: { kind: 'required', role: 'destination', reason: 'TRANSFER needs a destination' },
  amount: { kind: 'positive', reason: 'TRANSFER amount must be positive' },
  energy: 100n,
  async run({ state, height, sender, tx, to }) {
    await debit(state, sender, BigInt(tx.amount));
    await credit(state, to, BigInt(tx.amount), height);
  },
});
