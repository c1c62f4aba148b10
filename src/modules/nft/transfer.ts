import { TxFailure } from '../handler';
import { defineHandler } from './define';
import { parseItemRef } from './fields';
import { loadItem, saveItem } from './load';

/** NFT_TRANSFER: the item's owner or approved address moves it to `to`; the approval is cleared. */
export const nftTransferHandler = defineHandler({
  type: 'NFT_TRANSFER',
  to: 'the recipient',
  required: ['collection', 'item'],
  parse: (d, tx) => parseItemRef(tx.type, d),
  async run({ state, sender, tx }, ref) {
    const { item } = await loadItem(state, ref);
    if (sender !== item.owner && sender !== item.approved) throw new TxFailure('only the owner of the item or its approved address may transfer it');
    const to = tx.to!;
    await saveItem(state, { ...item, owner: to, approved: null });
    return [{ kind: 'nft.transfer', collection: ref.collection, item: ref.item, from: item.owner, to }];
  },
});
