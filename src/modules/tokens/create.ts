import { MAX_ASSET_NAME_BYTES, MAX_TOKEN_DECIMALS, SYMBOL_RE } from '../../protocol/params';
import { assetId, utf8Length } from '../assets/common';
import { defineAssetTx, refuse } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { field } from './fields';
import { moveTokens } from './ledger';
import { putToken, symbolKey, type TokenRecord } from './records';

/** Control characters (C0, DEL, C1) and lone surrogates (not encodable as UTF-8). */
const BAD_NAME_CHAR = /[\p{Cc}\p{Cs}]/u;

/**
 * TOKEN_CREATE: a new token owned by the sender, with the whole initial supply credited to
 * the sender. Its id is assetId(tx.id); its symbol is unique across tokens.
 */
export const tokenCreateHandler = defineAssetTx({
  type: 'TOKEN_CREATE',
  to: 'none',
  required: ['name', 'symbol', 'decimals', 'supply'],
  optional: ['mintable'],
  parse(tx, d) {
    const { name, symbol, decimals } = d;
    if (typeof name !== 'string' || name.length === 0 || utf8Length(name) > MAX_ASSET_NAME_BYTES || BAD_NAME_CHAR.test(name)) {
      refuse(`TOKEN_CREATE data.name must be 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes without control characters`);
    }
    if (typeof symbol !== 'string' || !SYMBOL_RE.test(symbol)) {
      refuse('TOKEN_CREATE data.symbol must be an upper-case letter followed by up to 11 upper-case letters or digits');
    }
    if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > MAX_TOKEN_DECIMALS) {
      refuse(`TOKEN_CREATE data.decimals must be an integer from 0 to ${MAX_TOKEN_DECIMALS}`);
    }
    const supply = field.amount(tx, d, 'supply', true);
    const mintable = field.boolean(tx, d, 'mintable', false);
    if (supply === 0n && !mintable) refuse('TOKEN_CREATE data.supply may be "0" only for a mintable token');
    return { name, symbol, decimals, supply, mintable };
  },
  async run(c, d) {
    if (await c.state.getRecord(symbolKey(d.symbol))) throw new TxFailure('symbol already taken');
    const id = assetId(c.tx.id);
    const token: TokenRecord = {
      id, name: d.name, symbol: d.symbol, decimals: d.decimals, owner: c.sender,
      mintable: d.mintable, paused: false, supply: '0', holders: 0, createdAt: c.height, createdBy: c.tx.id,
    };
    await putToken(c.state, token);
    await c.state.putRecord(symbolKey(d.symbol), { id });
    c.events.push({ kind: 'token.create', token: id, symbol: d.symbol, name: d.name, height: c.height });
    if (d.supply > 0n) await moveTokens(c, token, null, c.sender, d.supply);
  },
});
