import { TxFailure } from '../../protocol/handler';
import { NFT } from './errors';
import { addressFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { COLLECTION_FLAG, ITEM_FIELDS, ITEM_FLAG } from './fields';
import { loadItem, saveItem } from './load';

/** NFT_TRANSFER: the item's owner or approved address moves it to `to`; the approval is cleared. */
export const nftTransfer = defineTx({
  type: 'NFT_TRANSFER',
  module: 'nft',
  summary: "the item's owner or approved address moves it to `to`; the approval is cleared",
  to: { kind: 'required', role: 'recipient' },
  fields: ITEM_FIELDS,
  energy: 150n,
  async run({ state, sender, to, events }, ref) {
    const { item } = await loadItem(state, ref);
    if (sender !== item.owner && sender !== item.approved) {
      throw new TxFailure(
        NFT.NFT_NOT_OWNER_OR_APPROVED({
          collection: ref.collection,
          item: ref.item,
          owner: item.owner,
          approved: item.approved,
          sender,
        }),
      );
    }
    await saveItem(state, { ...item, owner: to, approved: null });
    events.push({ kind: 'nft.transfer', collection: ref.collection, item: ref.item, from: item.owner, to });
  },
  cli: {
    command: 'nft transfer',
    about: 'Gives an item to --to (its owner, or the account approved for it).',
    summary: '--collection --item --to',
    flags: [COLLECTION_FLAG, ITEM_FLAG, addressFlag('to', 'recipient, 0x… or cairn1…')],
    example: 'cairn nft transfer --collection STONE --item 3 --to cairn1…',
  },
});
