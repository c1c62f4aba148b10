import type { CliFlag } from '../tx/entry';
import { assetIdField, tokenAmountField } from '../tx/fields';

/** Fields and CLI flags the FT20 types share. */

export const tokenField = assetIdField('token', 'token id (0x + 40 lower-case hex)');
/** 1..2^256 − 1 base units of the token. */
export const amountField = tokenAmountField("integer string, 1 to 2^256 − 1 of the token's base units");

export const AMOUNT_HELP = `integer in the token's base units
(no decimal point: with decimals 6, 1.5 tokens is 1500000)`;

export const TOKEN_FLAG: CliFlag = {
  flag: 'token',
  field: 'token',
  kind: 'token',
  metavar: '<id|SYMBOL>',
  help: `the token: its id (0x + 40 hex) or its symbol, looked up on the
node with GET /tokens/:symbol`,
};

export const amountFlag = (help = AMOUNT_HELP): CliFlag => ({
  flag: 'amount',
  field: 'amount',
  kind: 'text',
  metavar: '<n>',
  help,
});
