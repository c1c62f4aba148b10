import type { ExecState } from '../../protocol/execState';
import type { Hex } from '../../primitives/hex';
import { TxFailure } from '../../protocol/handler';
import { NFT } from './errors';
import { collectionKey, getCollection, getItem, itemKey, type CollectionRecord, type ItemRecord } from './records';
import type { ItemRef } from './fields';

/** State-dependent lookups of NFT721 execution: missing records fail the transaction. */

export async function loadCollection(s: ExecState, id: Hex): Promise<CollectionRecord> {
  const c = await getCollection(s, id);
  if (!c) throw new TxFailure(NFT.NFT_UNKNOWN_COLLECTION({ collection: id }));
  return c;
}

/** The collection and the item (a burned item is unknown: its record is gone). */
export async function loadItem(
  s: ExecState,
  ref: ItemRef,
): Promise<{ collection: CollectionRecord; item: ItemRecord }> {
  const collection = await loadCollection(s, ref.collection);
  const item = await getItem(s, ref.collection, ref.item);
  if (!item) throw new TxFailure(NFT.NFT_UNKNOWN_ITEM({ collection: ref.collection, item: ref.item }));
  return { collection, item };
}

export const saveCollection = (s: ExecState, c: CollectionRecord): Promise<void> => s.putRecord(collectionKey(c.id), c);
export const saveItem = (s: ExecState, i: ItemRecord): Promise<void> => s.putRecord(itemKey(i.collection, i.item), i);
