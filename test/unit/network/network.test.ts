import { describe, expect, it } from 'vitest';
import { DEV_ACCOUNTS_DEFAULT, DEV_NETWORK, devGenesis } from '../../../src/chain/devnet';
import { networkOfSpec } from '../../../src/chain/genesis';
import { defaultNodeConfig } from '../../../src/config/config';
import { CHAIN_ID } from '../../../src/protocol/params';

describe('the development network value (what a transaction for `cairn node` signs)', () => {
  it('is the genesis `cairn node` builds with its default development accounts', async () => {
    expect(defaultNodeConfig.devAccounts).toBe(DEV_ACCOUNTS_DEFAULT);
    expect(await networkOfSpec(devGenesis(DEV_ACCOUNTS_DEFAULT).spec)).toEqual(DEV_NETWORK);
    expect(DEV_NETWORK.chainId).toBe(CHAIN_ID);
  });

  it('another genesis is another network, even with the same chain id', async () => {
    const other = await networkOfSpec(devGenesis(DEV_ACCOUNTS_DEFAULT + 1).spec);
    expect(other.chainId).toBe(DEV_NETWORK.chainId);
    expect(other.genesisHash).not.toBe(DEV_NETWORK.genesisHash);
  });
});
