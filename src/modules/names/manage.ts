import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import { requireOwner } from '../assets/common';
import { defineAssetTx } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { readName } from './fields';
import { getName, nameKey, type NameRecord } from './records';

/** The record of a registered name the sender owns; fails the transaction otherwise. */
async function ownedName(s: ExecState, name: string, sender: Address): Promise<NameRecord> {
  const rec = await getName(s, name);
  if (!rec) throw new TxFailure('name not registered');
  requireOwner(sender, rec.owner, 'the name');
  return rec;
}

/** A change to an owned name's record (the new owner or target is the envelope's `to`). */
function changeHandler<T extends 'NAME_UPDATE' | 'NAME_TRANSFER'>(type: T, to: 'new target' | 'new owner', change: (rec: NameRecord, to: Address) => NameRecord) {
  return defineAssetTx({
    type,
    to,
    required: ['name'],
    parse: (tx, d) => readName(tx.type, d),
    async run({ state, sender, party, events }, { name }) {
      const before = await ownedName(state, name, sender);
      const rec = change(before, party!);
      await state.putRecord(nameKey(name), rec);
      events.push({ kind: 'name.update', name, owner: rec.owner, target: rec.target, registeredAt: rec.registeredAt, previous: { owner: before.owner, target: before.target } });
    },
  });
}

/** NAME_UPDATE: the owner points the name at a new target. */
export const nameUpdateHandler = changeHandler('NAME_UPDATE', 'new target', (rec, to) => ({ ...rec, target: to }));

/** NAME_TRANSFER: the owner hands the name to a new owner; the target is unchanged. */
export const nameTransferHandler = changeHandler('NAME_TRANSFER', 'new owner', (rec, to) => ({ ...rec, owner: to }));

/** NAME_RELEASE: the owner gives the name up (no refund); anyone may register it again. */
export const nameReleaseHandler = defineAssetTx({
  type: 'NAME_RELEASE',
  to: 'none',
  required: ['name'],
  parse: (tx, d) => readName(tx.type, d),
  async run({ state, sender, events }, { name }) {
    const rec = await ownedName(state, name, sender);
    await state.deleteRecord(nameKey(name));
    events.push({ kind: 'name.release', name, registeredAt: rec.registeredAt, owner: rec.owner, target: rec.target });
  },
});
