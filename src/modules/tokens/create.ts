import { MAX_ASSET_NAME_BYTES, MAX_TOKEN_DECIMALS } from '../../protocol/params';
import { TxFailure } from '../../protocol/handler';
import { TOKEN } from './errors';
import { assetId } from '../assets/common';
import { textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { assetNameField, booleanField, integerField, symbolField, tokenAmountField } from '../tx/fields';
import { AMOUNT_HELP } from './fields';
import { moveTokens } from './ledger';
import { putToken, symbolKey, type TokenRecord } from './records';

const NAME_REASON = `must be 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes without control characters`;

/**
 * TOKEN_CREATE: a new token owned by the sender, with the whole initial supply credited to
 * the sender. Its id is assetId(tx.id); its symbol is unique across tokens.
 */
export const tokenCreate = defineTx({
  type: 'TOKEN_CREATE',
  module: 'tokens',
  summary: 'a new token owned by the sender, who receives the whole initial supply; id = assetId(tx id)',
  to: { kind: 'none' },
  fields: {
    name: assetNameField(
      MAX_ASSET_NAME_BYTES,
      { shape: NAME_REASON, text: NAME_REASON },
      `display name, 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes, no control characters or lone surrogates`,
    ),
    symbol: symbolField(
      'must be an upper-case letter followed by up to 11 upper-case letters or digits',
      'A-Z then up to 11 A-Z/0-9; unique among tokens',
    ),
    decimals: integerField(
      `must be an integer from 0 to ${MAX_TOKEN_DECIMALS}`,
      `display precision, 0 to ${MAX_TOKEN_DECIMALS}`,
      0,
      MAX_TOKEN_DECIMALS,
    ),
    supply: tokenAmountField('initial supply, integer string 0 to 2^256 − 1', true),
    mintable: booleanField('optional, default false: the owner may mint later', false),
  },
  dataRules: [
    {
      broken: (d) => d.supply === 0n && !d.mintable,
      reason: 'TOKEN_CREATE data.supply may be "0" only for a mintable token',
      sdk: { field: 'supply', message: 'may be 0 only for a mintable token' },
    },
  ],
  energy: 2_000n,
  creates: 'token',
  async run(c, d) {
    if (await c.state.getRecord(symbolKey(d.symbol)))
      throw new TxFailure(TOKEN.TOKEN_SYMBOL_TAKEN({ symbol: d.symbol }));
    const id = assetId(c.tx.id);
    const token: TokenRecord = {
      id,
      name: d.name,
      symbol: d.symbol,
      decimals: d.decimals,
      owner: c.sender,
      mintable: d.mintable,
      paused: false,
      supply: '0',
      holders: 0,
      createdAt: c.height,
      createdBy: c.tx.id,
    };
    await putToken(c.state, token);
    await c.state.putRecord(symbolKey(d.symbol), { id });
    c.events.push({ kind: 'token.create', token: id, symbol: d.symbol, name: d.name, height: c.height });
    if (d.supply > 0n) await moveTokens(c, token, null, c.sender, d.supply);
  },
  cli: {
    command: 'token create',
    about: `Creates an FT20 token owned by the sender, who receives the whole initial supply.
Prints the new token's id ("token") with the verdict: it is derived from the
transaction id, so it is known before the transaction is included.`,
    summary: 'create a token: --name --symbol --supply [--decimals] [--mintable]',
    flags: [
      textFlag('name', '<text>', 'display name, 1 to 64 bytes'),
      textFlag(
        'symbol',
        '<SYMBOL>',
        `an upper-case letter then up to 11 upper-case letters or digits;
unique on the chain`,
      ),
      textFlag('supply', '<n>', `initial supply, ${AMOUNT_HELP}`),
      {
        flag: 'decimals',
        field: 'decimals',
        kind: 'int',
        metavar: '<d>',
        default: 0,
        help: '0 to 18 (default 0): display precision only',
      },
      {
        flag: 'mintable',
        field: 'mintable',
        kind: 'switch',
        help: 'the owner may mint more later (default: fixed supply)',
      },
    ],
    example:
      'cairn token create --name "Cairn Dollar" --symbol CUSD --decimals 6 --supply 1000000000000 --wait included',
  },
});
