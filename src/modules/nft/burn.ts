import { requireOwner } from '../assets/common';
import { defineAssetTx } from '../assets/define';
import { readItemRef } from './fields';
import { loadItem, saveCollection } from './load';
import { itemKey } from './records';

/** NFT_BURN: the item's owner destroys it; its number is never reused. */
export const nftBurnHandler = defineAssetTx({
  type: 'NFT_BURN',
  to: 'none',
  required: ['collection', 'item'],
  parse: (tx, d) => readItemRef(tx.type, d),
  async run({ state, sender, events }, ref) {
    const { collection, item } = await loadItem(state, ref);
    requireOwner(sender, item.owner, 'the item');
    await state.deleteRecord(itemKey(ref.collection, ref.item));
    await saveCollection(state, { ...collection, burned: collection.burned + 1 });
    events.push({ kind: 'nft.transfer', collection: ref.collection, item: ref.item, from: item.owner, to: null });
  },
});
