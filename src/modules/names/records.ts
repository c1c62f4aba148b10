import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { recordKey } from '../../protocol/records';

/**
 * Name service state, as records in the authenticated state.
 *   name/<name> → NameRecord (deleted on release; the name is then free again)
 */
export interface NameRecord {
  name: string;
  owner: Address; // may update, transfer, release
  target: Address; // what the name resolves to
  registeredAt: number; // height
  registeredBy: Hex; // id of the NAME_REGISTER transaction
}

export const nameKey = (name: string): string => recordKey('name', name);
export const getName = (s: ExecState, name: string): Promise<NameRecord | undefined> =>
  s.getRecord<NameRecord>(nameKey(name));
