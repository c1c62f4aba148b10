import type { Hex } from '../../primitives/hex';
import { requireOwner } from '../assets/common';
import { defineHandler } from './define';
import { collectionIdError, uriError } from './fields';
import { loadCollection, saveCollection, saveItem } from './load';

/** NFT_MINT: the collection owner mints the next item (minted + 1) to `to`. */
export const nftMintHandler = defineHandler({
  type: 'NFT_MINT',
  to: 'the recipient',
  required: ['collection'],
  optional: ['uri'],
  parse: (d, tx) => collectionIdError(tx.type, d.collection) ?? uriError(tx.type, d.uri) ?? { collection: d.collection as Hex, uri: (d.uri as string | null | undefined) ?? null },
  async run({ state, height, sender, tx }, { collection, uri }) {
    const c = await loadCollection(state, collection);
    requireOwner(sender, c.owner, 'the collection');
    const item = c.minted + 1;
    const to = tx.to!;
    await saveCollection(state, { ...c, minted: item });
    await saveItem(state, { collection, item, owner: to, uri, approved: null, mintedAt: height });
    return [{ kind: 'nft.transfer', collection, item, from: null, to }];
  },
});
