import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import { TxFailure } from '../../protocol/handler';
import { requireOwner } from '../assets/common';
import { addressFlag } from '../tx/cli';
import type { CliMeta } from '../tx/entry';
import { defineTx } from '../tx/define';
import { NAME } from './errors';
import { NAME_ARG, NAME_FIELDS } from './fields';
import { getName, nameKey, type NameRecord } from './records';

/** The record of a registered name the sender owns; fails the transaction otherwise. */
async function ownedName(s: ExecState, name: string, sender: Address): Promise<NameRecord> {
  const rec = await getName(s, name);
  if (!rec) throw new TxFailure(NAME.NAME_NOT_REGISTERED({ name }));
  requireOwner(sender, rec.owner, 'the name');
  return rec;
}

/** A change to an owned name's record (the new owner or target is the envelope's `to`). */
function changeName<T extends 'NAME_UPDATE' | 'NAME_TRANSFER', const I extends string>(spec: {
  type: T;
  to: { role: string; input: I };
  summary: string;
  energy: bigint;
  change: (rec: NameRecord, to: Address) => NameRecord;
  cli: CliMeta;
}) {
  const { type, summary, energy, change, cli } = spec;
  return defineTx({
    type,
    module: 'names',
    summary,
    to: { kind: 'required', ...spec.to },
    fields: NAME_FIELDS,
    energy,
    async run({ state, sender, to: party, events }, { name }) {
      const before = await ownedName(state, name, sender);
      const rec = change(before, party);
      await state.putRecord(nameKey(name), rec);
      events.push({
        kind: 'name.update',
        name,
        owner: rec.owner,
        target: rec.target,
        registeredAt: rec.registeredAt,
        previous: { owner: before.owner, target: before.target },
      });
    },
    cli,
  });
}

/** NAME_UPDATE: the owner points the name at a new target. */
export const nameUpdate = changeName({
  type: 'NAME_UPDATE',
  to: { role: 'new target', input: 'target' },
  summary: 'the owner points the name at a new target `to`',
  energy: 100n,
  change: (rec, to) => ({ ...rec, target: to }),
  cli: {
    command: 'name update',
    about: 'Points a name the sender owns to another address.',
    summary: '--target <address>: what it resolves to',
    flags: [NAME_ARG, addressFlag('target', 'the new address it resolves to')],
    example: 'cairn name update alice --target cairn1…',
  },
});

/** NAME_TRANSFER: the owner hands the name to a new owner; the target is unchanged. */
export const nameTransfer = changeName({
  type: 'NAME_TRANSFER',
  to: { role: 'new owner', input: 'owner' },
  summary: 'the owner hands the name to a new owner `to`; the target is unchanged',
  energy: 150n,
  change: (rec, to) => ({ ...rec, owner: to }),
  cli: {
    command: 'name transfer',
    about: 'Gives a name the sender owns to a new owner (what it resolves to is unchanged).',
    summary: '--to <address>: a new owner',
    flags: [NAME_ARG, addressFlag('to', 'the new owner', 'owner')],
    example: 'cairn name transfer alice --to cairn1…',
  },
});

/** NAME_RELEASE: the owner gives the name up (no refund); anyone may register it again. */
export const nameRelease = defineTx({
  type: 'NAME_RELEASE',
  module: 'names',
  summary: 'the owner gives the name up (no refund); anyone may register it again',
  to: { kind: 'none' },
  fields: NAME_FIELDS,
  energy: 100n,
  async run({ state, sender, events }, { name }) {
    const rec = await ownedName(state, name, sender);
    await state.deleteRecord(nameKey(name));
    events.push({ kind: 'name.release', name, registeredAt: rec.registeredAt, owner: rec.owner, target: rec.target });
  },
  cli: {
    command: 'name release',
    about: 'Gives up a name the sender owns; anyone may then register it again.',
    summary: 'give it up',
    flags: [NAME_ARG],
    example: 'cairn name release alice',
  },
});
