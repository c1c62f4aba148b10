import type { ExecState } from '../../chain/execState';
import type { Address } from '../../chain/types';
import type { Hex } from '../../primitives/hex';

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

export const nameKey = (name: string): string => `name/${name}`;
export const getName = (s: ExecState, name: string): Promise<NameRecord | undefined> => s.getRecord<NameRecord>(nameKey(name));
