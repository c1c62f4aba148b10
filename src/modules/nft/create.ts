import { TxFailure } from '../../protocol/handler';
import { NFT } from './errors';
import { assetId } from '../assets/common';
import { textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { nameField, symbolOf } from './fields';
import { saveCollection } from './load';
import { nftSymbolKey } from './records';

/** NFT_CREATE: a new collection owned by the sender; its id derives from the transaction id. */
export const nftCreate = defineTx({
  type: 'NFT_CREATE',
  module: 'nft',
  summary: 'a new collection owned by the sender (the only account that may mint); id = assetId(tx id)',
  to: { kind: 'none' },
  fields: { name: nameField, symbol: symbolOf },
  energy: 2_000n,
  creates: 'collection',
  async run({ state, height, sender, tx, events }, { name, symbol }) {
    if (await state.getRecord(nftSymbolKey(symbol))) throw new TxFailure(NFT.NFT_SYMBOL_TAKEN({ symbol }));
    const id = assetId(tx.id);
    await saveCollection(state, {
      id,
      name,
      symbol,
      owner: sender,
      minted: 0,
      burned: 0,
      createdAt: height,
      createdBy: tx.id,
    });
    await state.putRecord(nftSymbolKey(symbol), { id });
    events.push({ kind: 'nft.create', collection: id, symbol, name, height });
  },
  cli: {
    command: 'nft create',
    about: `Creates an NFT721 collection owned by the sender (the only account that may mint).
Prints the new collection's id ("collection") with the verdict.`,
    summary: 'create a collection: --name --symbol',
    flags: [
      textFlag('name', '<text>', 'display name, 1 to 64 bytes'),
      textFlag('symbol', '<SYMBOL>', 'an upper-case letter then up to 11 upper-case letters or digits'),
    ],
    example: 'cairn nft create --name "Cairn Stones" --symbol STONE --wait included',
  },
});
