import { requireOwner } from '../assets/common';
import { defineTx } from '../tx/define';
import { COLLECTION_FLAG, ITEM_FIELDS, ITEM_FLAG } from './fields';
import { loadItem, saveCollection } from './load';
import { itemKey } from './records';

/** NFT_BURN: the item's owner destroys it; its number is never reused. */
export const nftBurn = defineTx({
  type: 'NFT_BURN',
  module: 'nft',
  summary: "the item's owner destroys it; its number is never reused",
  to: { kind: 'none' },
  fields: ITEM_FIELDS,
  energy: 150n,
  async run({ state, sender, events }, ref) {
    const { collection, item } = await loadItem(state, ref);
    requireOwner(sender, item.owner, 'the item');
    await state.deleteRecord(itemKey(ref.collection, ref.item));
    await saveCollection(state, { ...collection, burned: collection.burned + 1 });
    events.push({ kind: 'nft.transfer', collection: ref.collection, item: ref.item, from: item.owner, to: null });
  },
  cli: {
    command: 'nft burn',
    about: 'Destroys an item the sender owns; its number is never reused.',
    summary: '--collection --item',
    flags: [COLLECTION_FLAG, ITEM_FLAG],
    example: 'cairn nft burn --collection 0x… --item 3',
  },
});
