import type { ExecState } from '../../chain/execState';
import type { ChainEvent } from '../../chain/events';
import type { Address, TxType } from '../../chain/types';
import { requireOwner } from '../assets/common';
import { TxFailure } from '../handler';
import { defineHandler } from '../nft/define';
import { parseName } from './fields';
import { getName, nameKey, type NameRecord } from './records';

/** The record of a registered name the sender owns; fails the transaction otherwise. */
async function ownedName(s: ExecState, name: string, sender: Address): Promise<NameRecord> {
  const rec = await getName(s, name);
  if (!rec) throw new TxFailure('name not registered');
  requireOwner(sender, rec.owner, 'the name');
  return rec;
}

/** A change to an owned name's record (the new owner or target is the envelope's `to`). */
function changeHandler<T extends TxType>(type: T, toIs: string, change: (rec: NameRecord, to: Address) => NameRecord) {
  return defineHandler({
    type,
    to: toIs,
    required: ['name'],
    parse: (d) => parseName(type, d),
    async run({ state, sender, tx }, { name }): Promise<ChainEvent[]> {
      const rec = change(await ownedName(state, name, sender), tx.to!);
      await state.putRecord(nameKey(name), rec);
      return [{ kind: 'name.update', name, owner: rec.owner, target: rec.target, registeredAt: rec.registeredAt }];
    },
  });
}

/** NAME_UPDATE: the owner points the name at a new target. */
export const nameUpdateHandler = changeHandler('NAME_UPDATE', 'the new target', (rec, to) => ({ ...rec, target: to }));

/** NAME_TRANSFER: the owner hands the name to a new owner; the target is unchanged. */
export const nameTransferHandler = changeHandler('NAME_TRANSFER', 'the new owner', (rec, to) => ({ ...rec, owner: to }));

/** NAME_RELEASE: the owner gives the name up (no refund); anyone may register it again. */
export const nameReleaseHandler = defineHandler({
  type: 'NAME_RELEASE',
  to: 'none',
  required: ['name'],
  parse: (d, tx) => parseName(tx.type, d),
  async run({ state, sender }, { name }) {
    const rec = await ownedName(state, name, sender);
    await state.deleteRecord(nameKey(name));
    return [{ kind: 'name.release', name, registeredAt: rec.registeredAt }];
  },
});
