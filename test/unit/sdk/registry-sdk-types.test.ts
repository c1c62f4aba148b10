import { describe, expect, it } from 'vitest';
import { buildAssetTx, type AssetTxInput } from '../../../src/sdk/assets';

/**
 * The SDK's AssetTxInput is derived from the registry entries (field kinds and `to` rules):
 * these assignments are checked by `tsc` (CI's typecheck), the @ts-expect-error lines must
 * stay errors.
 */
type Of<T> = Extract<AssetTxInput, { type: T }>;

const approve: Of<'TOKEN_APPROVE'> = {
  type: 'TOKEN_APPROVE',
  token: `0x${'11'.repeat(20)}`,
  spender: `0x${'aa'.repeat(20)}`,
  amount: 1n,
};
const clear: Of<'NFT_APPROVE'> = { type: 'NFT_APPROVE', collection: `0x${'22'.repeat(20)}`, item: 1, approved: null };
const register: Of<'NAME_REGISTER'> = { type: 'NAME_REGISTER', name: 'alice' };
const create: Of<'TOKEN_CREATE'> = { type: 'TOKEN_CREATE', name: 'A', symbol: 'A', decimals: 0, supply: 1 };
const mint: Of<'NFT_MINT'> = { type: 'NFT_MINT', collection: `0x${'22'.repeat(20)}`, to: `0x${'aa'.repeat(20)}` };
// @ts-expect-error NFT_APPROVE's `approved` must be given (null clears)
const noApproved: Of<'NFT_APPROVE'> = { type: 'NFT_APPROVE', collection: 'c', item: 1 };
// @ts-expect-error TOKEN_APPROVE's to is named `spender`
const toNotSpender: Of<'TOKEN_APPROVE'> = { type: 'TOKEN_APPROVE', token: 't', to: 'x', amount: 1n };
// @ts-expect-error an item number is a number
const itemText: Of<'NFT_BURN'> = { type: 'NFT_BURN', collection: 'c', item: '1' };
// @ts-expect-error NAME_TRANSFER's to is named `owner`
const ownerNotTarget: Of<'NAME_TRANSFER'> = { type: 'NAME_TRANSFER', name: 'a', target: 'x' };
void [noApproved, toNotSpender, itemText, ownerNotTarget];

describe('AssetTxInput (derived from the registry)', () => {
  it('types inputs the builder accepts', () => {
    for (const input of [approve, clear, register, create, mint] as AssetTxInput[])
      expect(buildAssetTx(input).type).toBe(input.type);
  });
});
