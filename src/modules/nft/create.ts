import { assetId } from '../assets/common';
import { TxFailure } from '../handler';
import { defineHandler } from './define';
import { collectionNameError, symbolError } from './fields';
import { saveCollection } from './load';
import { nftSymbolKey } from './records';

/** NFT_CREATE: a new collection owned by the sender; its id derives from the transaction id. */
export const nftCreateHandler = defineHandler({
  type: 'NFT_CREATE',
  to: 'none',
  required: ['name', 'symbol'],
  parse: (d, tx) => collectionNameError(tx.type, d.name) ?? symbolError(tx.type, d.symbol) ?? { name: d.name as string, symbol: d.symbol as string },
  async run({ state, height, sender, tx }, { name, symbol }) {
    if (await state.getRecord(nftSymbolKey(symbol))) throw new TxFailure('symbol already taken');
    const id = assetId(tx.id);
    await saveCollection(state, { id, name, symbol, owner: sender, minted: 0, burned: 0, createdAt: height, createdBy: tx.id });
    await state.putRecord(nftSymbolKey(symbol), { id });
    return [{ kind: 'nft.create', collection: id, symbol, name, height }];
  },
});
