import { requireOwner } from '../assets/common';
import { addressFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { COLLECTION_FLAG, ITEM_FIELDS, ITEM_FLAG } from './fields';
import { loadItem, saveItem } from './load';

/**
 * NFT_APPROVE: the item's owner lets `to` transfer it (one approval per item), or clears the
 * approval with to = null. Approving oneself is refused at admission: the sender must be the
 * owner, so to = sender could only ever approve the owner.
 */
export const nftApprove = defineTx({
  type: 'NFT_APPROVE',
  module: 'nft',
  summary: "the item's owner lets `to` transfer it (one approval per item); to = null clears the approval",
  to: { kind: 'optional', role: 'approved', input: 'approved', explicit: true },
  rules: [
    (tx) => (tx.to === tx.from ? 'NFT_APPROVE cannot approve the owner: to must differ from the sender' : undefined),
  ],
  fields: ITEM_FIELDS,
  energy: 100n,
  async run({ state, sender, to }, ref) {
    const { item } = await loadItem(state, ref);
    requireOwner(sender, item.owner, 'the item');
    await saveItem(state, { ...item, approved: to });
  },
  cli: {
    command: 'nft approve',
    about: 'Lets one other account transfer an item (owner only); a transfer clears it.',
    summary: '--collection --item (--to <address> | --clear)',
    flags: [
      COLLECTION_FLAG,
      ITEM_FLAG,
      addressFlag('to', 'the account approved', 'approved'),
      { flag: 'clear', field: 'approved', kind: 'clear', help: 'remove the approval instead' },
    ],
    exclusive: 'give exactly one of --to <address> (approve) or --clear (remove the approval)',
    example: 'cairn nft approve --collection 0x… --item 3 --to 0x…',
  },
});
