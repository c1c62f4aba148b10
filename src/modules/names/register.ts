import { credit, debit } from '../../protocol/accounts';
import { NAME_REGISTRATION_COST, TREASURY_ADDRESS } from '../../protocol/params';
import { TxFailure } from '../../protocol/handler';
import { NAME } from './errors';
import { addressFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { NAME_ARG, NAME_FIELDS } from './fields';
import { getName, nameKey, type NameRecord } from './records';

const COINS = NAME_REGISTRATION_COST / 1_000_000n;

/**
 * NAME_REGISTER: the sender pays NAME_REGISTRATION_COST to the treasury for a free name resolving to `to` (or itself).
 */
export const nameRegister = defineTx({
  type: 'NAME_REGISTER',
  module: 'names',
  summary: 'the sender pays the registration cost to the treasury for a free name resolving to `to` (default: itself)',
  to: { kind: 'optional', role: 'target', input: 'target' },
  amount: {
    kind: 'exactly',
    value: NAME_REGISTRATION_COST,
    reason: `NAME_REGISTER amount must be exactly the registration cost, ${NAME_REGISTRATION_COST} base units`,
  },
  fields: NAME_FIELDS,
  energy: 500n,
  async run({ state, height, sender, tx, to, events }, { name }) {
    if (await getName(state, name)) throw new TxFailure(NAME.NAME_ALREADY_REGISTERED({ name }));
    await debit(state, sender, NAME_REGISTRATION_COST);
    await credit(state, TREASURY_ADDRESS, NAME_REGISTRATION_COST, height);
    const rec: NameRecord = { name, owner: sender, target: to ?? sender, registeredAt: height, registeredBy: tx.id };
    await state.putRecord(nameKey(name), rec);
    events.push({ kind: 'name.register', name, owner: rec.owner, target: rec.target, height });
  },
  cli: {
    command: 'name register',
    about: `Registers a name owned by the sender. It costs ${COINS} coins (${NAME_REGISTRATION_COST} base units,
sent as the transaction's amount to the treasury).`,
    summary: `[--target <address>]; costs ${COINS} coins`,
    flags: [
      {
        ...NAME_ARG,
        help: `3 to 32 characters of a-z, 0-9 and '-', not starting or
ending with '-'`,
      },
      { ...addressFlag('target', 'what the name resolves to (default: the sender)'), optional: true },
    ],
    example: 'cairn name register alice --wait included',
  },
});
