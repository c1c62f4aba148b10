import { requireOwner } from '../assets/common';
import { defineAssetTx } from '../assets/define';
import { readCollectionId, readUri } from './fields';
import { loadCollection, saveCollection, saveItem } from './load';

/** NFT_MINT: the collection owner mints the next item (minted + 1) to `to`. */
export const nftMintHandler = defineAssetTx({
  type: 'NFT_MINT',
  to: 'recipient',
  required: ['collection'],
  optional: ['uri'],
  parse(tx, d) {
    const collection = readCollectionId(tx.type, d.collection);
    return { collection, uri: readUri(tx.type, d.uri) };
  },
  async run({ state, height, sender, party, events }, { collection, uri }) {
    const c = await loadCollection(state, collection);
    requireOwner(sender, c.owner, 'the collection');
    const item = c.minted + 1;
    const to = party!;
    await saveCollection(state, { ...c, minted: item });
    await saveItem(state, { collection, item, owner: to, uri, approved: null, mintedAt: height });
    events.push({ kind: 'nft.transfer', collection, item, from: null, to });
  },
});
