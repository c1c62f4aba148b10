import { defineAssetTx } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { readItemRef } from './fields';
import { loadItem, saveItem } from './load';

/** NFT_TRANSFER: the item's owner or approved address moves it to `to`; the approval is cleared. */
export const nftTransferHandler = defineAssetTx({
  type: 'NFT_TRANSFER',
  to: 'recipient',
  required: ['collection', 'item'],
  parse: (tx, d) => readItemRef(tx.type, d),
  async run({ state, sender, party, events }, ref) {
    const { item } = await loadItem(state, ref);
    if (sender !== item.owner && sender !== item.approved) throw new TxFailure('only the owner of the item or its approved address may transfer it');
    const to = party!;
    await saveItem(state, { ...item, owner: to, approved: null });
    events.push({ kind: 'nft.transfer', collection: ref.collection, item: ref.item, from: item.owner, to });
  },
});
