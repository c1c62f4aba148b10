import { requireOwner } from '../assets/common';
import { defineAssetTx, refuse } from '../assets/define';
import { readItemRef } from './fields';
import { loadItem, saveItem } from './load';

/**
 * NFT_APPROVE: the item's owner lets `to` transfer it (one approval per item), or clears the
 * approval with to = null. Approving oneself is refused at admission: the sender must be the
 * owner, so to = sender could only ever approve the owner.
 */
export const nftApproveHandler = defineAssetTx({
  type: 'NFT_APPROVE',
  to: 'optional',
  required: ['collection', 'item'],
  parse(tx, d) {
    if (tx.to === tx.from) refuse(`${tx.type} cannot approve the owner: to must differ from the sender`);
    return readItemRef(tx.type, d);
  },
  async run({ state, sender, party }, ref) {
    const { item } = await loadItem(state, ref);
    requireOwner(sender, item.owner, 'the item');
    await saveItem(state, { ...item, approved: party });
  },
});
