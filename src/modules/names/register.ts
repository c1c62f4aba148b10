import { credit, debit } from '../../protocol/accounts';
import { NAME_REGISTRATION_COST, TREASURY_ADDRESS } from '../../protocol/params';
import { defineAssetTx, refuse } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { readName } from './fields';
import { getName, nameKey, type NameRecord } from './records';

const COST = NAME_REGISTRATION_COST.toString();

/** NAME_REGISTER: the sender pays NAME_REGISTRATION_COST to the treasury for a free name resolving to `to` (or itself). */
export const nameRegisterHandler = defineAssetTx({
  type: 'NAME_REGISTER',
  to: 'optional',
  required: ['name'],
  allowAmount: true,
  parse(tx, d) {
    if (tx.amount !== COST) refuse(`${tx.type} amount must be exactly the registration cost, ${COST} base units`);
    return readName(tx.type, d);
  },
  async run({ state, height, sender, tx, party, events }, { name }) {
    if (await getName(state, name)) throw new TxFailure('name already registered');
    await debit(state, sender, NAME_REGISTRATION_COST);
    await credit(state, TREASURY_ADDRESS, NAME_REGISTRATION_COST, height);
    const rec: NameRecord = { name, owner: sender, target: party ?? sender, registeredAt: height, registeredBy: tx.id };
    await state.putRecord(nameKey(name), rec);
    events.push({ kind: 'name.register', name, owner: rec.owner, target: rec.target, height });
  },
});
