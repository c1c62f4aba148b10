import { assetId } from '../assets/common';
import { defineAssetTx } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { readCollectionName, readSymbol } from './fields';
import { saveCollection } from './load';
import { nftSymbolKey } from './records';

/** NFT_CREATE: a new collection owned by the sender; its id derives from the transaction id. */
export const nftCreateHandler = defineAssetTx({
  type: 'NFT_CREATE',
  to: 'none',
  required: ['name', 'symbol'],
  parse(tx, d) {
    const name = readCollectionName(tx.type, d.name);
    return { name, symbol: readSymbol(tx.type, d.symbol) };
  },
  async run({ state, height, sender, tx, events }, { name, symbol }) {
    if (await state.getRecord(nftSymbolKey(symbol))) throw new TxFailure('symbol already taken');
    const id = assetId(tx.id);
    await saveCollection(state, { id, name, symbol, owner: sender, minted: 0, burned: 0, createdAt: height, createdBy: tx.id });
    await state.putRecord(nftSymbolKey(symbol), { id });
    events.push({ kind: 'nft.create', collection: id, symbol, name, height });
  },
});
