import type { ExecState } from '../../protocol/execState';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { recordKey } from '../../protocol/records';

/**
 * NFT721 state, as records in the authenticated state.
 *   nftc/<collection>         → CollectionRecord
 *   nftsym/<SYMBOL>           → { id }     symbol uniqueness among collections
 *   nfti/<collection>/<item>  → ItemRecord (deleted on burn; ids are never reused)
 */
export interface CollectionRecord {
  id: Hex;
  name: string;
  symbol: string;
  owner: Address; // the only account that may mint
  minted: number; // items minted so far; the next item id is minted + 1
  burned: number;
  createdAt: number; // height
  createdBy: Hex; // id of the transaction that created it
}

export interface ItemRecord {
  collection: Hex;
  item: number; // 1, 2, 3… within the collection
  owner: Address;
  uri: string | null;
  approved: Address | null; // single approval, cleared on transfer
  mintedAt: number; // height
}

export const collectionKey = (id: Hex): string => recordKey('nftCollection', id);
export const nftSymbolKey = (symbol: string): string => recordKey('nftSymbol', symbol);
export const itemKey = (collection: Hex, item: number): string => recordKey('nftItem', collection, item);

export const getCollection = (s: ExecState, id: Hex): Promise<CollectionRecord | undefined> =>
  s.getRecord<CollectionRecord>(collectionKey(id));
export const getItem = (s: ExecState, collection: Hex, item: number): Promise<ItemRecord | undefined> =>
  s.getRecord<ItemRecord>(itemKey(collection, item));
