import { requireOwner } from '../assets/common';
import { addressFlag, textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { COLLECTION_FLAG, collectionField, uriField } from './fields';
import { loadCollection, saveCollection, saveItem } from './load';

/** NFT_MINT: the collection owner mints the next item (minted + 1) to `to`. */
export const nftMint = defineTx({
  type: 'NFT_MINT',
  module: 'nft',
  summary: 'the collection owner mints the next item (minted + 1) to `to`',
  to: { kind: 'required', role: 'recipient', inputLast: true },
  fields: { collection: collectionField, uri: uriField },
  energy: 300n,
  async run({ state, height, sender, to, events }, { collection, uri }) {
    const c = await loadCollection(state, collection);
    requireOwner(sender, c.owner, 'the collection');
    const item = c.minted + 1;
    await saveCollection(state, { ...c, minted: item });
    await saveItem(state, { collection, item, owner: to, uri, approved: null, mintedAt: height });
    events.push({ kind: 'nft.transfer', collection, item, from: null, to });
  },
  cli: {
    command: 'nft mint',
    about: `Mints the collection's next item (numbered 1, 2, 3…) to --to (collection owner only).
With --wait, the minted item number is printed ("item").`,
    summary: '--collection --to [--uri] (collection owner)',
    flags: [
      COLLECTION_FLAG,
      addressFlag('to', 'recipient, 0x… or cairn1…'),
      { ...textFlag('uri', '<uri>', 'optional metadata URI, at most 256 bytes'), optional: true },
    ],
    example: 'cairn nft mint --collection 0x… --to cairn1… --uri ipfs://… --wait included',
  },
  /** The minted item number, from the mint's event. */
  report(events) {
    const ev = events.find((e) => e.kind === 'nft.transfer' && e.from === null);
    return ev?.kind === 'nft.transfer' ? { item: ev.item } : {};
  },
});
