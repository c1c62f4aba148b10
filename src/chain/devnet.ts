import { toNative } from '../crypto/address';
import { keccak256 } from '../crypto/hash';
import { deriveKeys, devSecret, DEV_SEED, type HybridKeys } from '../crypto/keys';
import { COIN } from '../primitives/amount';
import { toHex, utf8 } from '../primitives/hex';
import type { GenesisSpec } from './genesis';
import { parseGenesisSpec } from './genesisSpec';
import { CHAIN_ID } from '../protocol/params';
import type { Network } from '../protocol/network';

/**
 * The development network: accounts and the single validator all derive from the fixed,
 * published DEV_SEED, so every fresh node builds the same genesis. Never use on a real network.
 */
export const DEV_GENESIS_TIMESTAMP = 1_767_225_600_000; // 2026-01-01T00:00:00Z
export const DEV_ACCOUNT_BALANCE = 10_000_000n * COIN;
export const DEV_VALIDATOR_STAKE = 1_000_000n * COIN;
/** Development accounts `cairn node` funds at genesis unless --dev-accounts says otherwise. */
export const DEV_ACCOUNTS_DEFAULT = 10;

/**
 * The development network of `cairn node` (DEV_ACCOUNTS_DEFAULT accounts, one validator): what
 * a transaction for it signs (test/unit/network/network.test.ts recomputes the genesis hash). Any other
 * genesis (another --dev-accounts, `cairn devnet`, a --genesis file) is another network: ask
 * its node (GET /status, CairnClient.network()).
 */
export const DEV_NETWORK: Network = {
  chainId: CHAIN_ID,
  genesisHash: '0x5fc9a80a15dd78be8a222b48373c080276a03b2142377a4eab1333cd92774e71',
};

/**
 * The development network's short windows (docs/PROTOCOL.md "Development network"): every
 * lifecycle can be watched within a minute or two of blocks. Other parameters keep their defaults.
 */
export const DEV_PARAMS: Record<string, string> = {
  EPOCH_BLOCKS: '10',
  COMMISSION_DELAY_BLOCKS: '5',
  UNBONDING_BLOCKS: '10',
  GOV_VOTING_BLOCKS: '10',
  GOV_TIMELOCK_BLOCKS: '5',
  ORACLE_UNBONDING_BLOCKS: '10',
  AI_COMMIT_BLOCKS: '10',
  AI_REVEAL_BLOCKS: '10',
  AI_BID_BLOCKS: '10',
  AI_EXPIRY_BLOCKS: '20',
  AI_CHALLENGE_BLOCKS: '10',
  AI_VERDICT_BLOCKS: '10',
  BRIDGE_WINDOW_BLOCKS: '20',
};

export interface DevAccount {
  address: string;
  native: string;
  secret: string;
  secp256k1PrivateKey: string;
}

export const devValidatorSecret = (seed = DEV_SEED, index = 0): Uint8Array =>
  keccak256(utf8(`${seed}/validator/${index}`));

/** The entry of dev-accounts.json / dev-validators.json for a key pair. */
export const devAccountFile = (keys: HybridKeys): DevAccount => ({
  address: keys.address,
  native: toNative(keys.address),
  secret: Buffer.from(keys.secret).toString('hex'),
  secp256k1PrivateKey: toHex(keys.secp256k1.privateKey),
});

export function devAccounts(count: number, seed = DEV_SEED): { keys: HybridKeys; file: DevAccount }[] {
  return Array.from({ length: count }, (_, i) => {
    const keys = deriveKeys(devSecret(i, seed));
    return { keys, file: devAccountFile(keys) };
  });
}

/**
 * The development genesis with `validators` validators (keys `<seed>/validator/<i>`, each
 * staking DEV_VALIDATOR_STAKE): one for `cairn node`, N for `cairn devnet`.
 */
/** `params` override the development parameters (names and ranges checked like any chain specification's). */
export function devNetworkGenesis(
  count: number,
  validators: number,
  seed = DEV_SEED,
  params: Record<string, string> = {},
): { spec: GenesisSpec; validators: HybridKeys[]; accounts: DevAccount[] } {
  const accounts = devAccounts(count, seed);
  const keys = Array.from({ length: validators }, (_, i) => deriveKeys(devValidatorSecret(seed, i)));
  const spec = parseGenesisSpec({
    chainId: CHAIN_ID,
    timestamp: DEV_GENESIS_TIMESTAMP,
    params: { ...DEV_PARAMS, ...params },
    accounts: [
      ...accounts.map((a) => ({ address: a.keys.address, balance: DEV_ACCOUNT_BALANCE.toString() })),
      ...keys.map((v) => ({
        address: v.address,
        balance: '0',
        staked: DEV_VALIDATOR_STAKE.toString(),
        isValidator: true,
        signingKeys: { secp256k1: toHex(v.secp256k1.publicKey), mldsa44: toHex(v.mldsa44.publicKey) },
      })),
    ],
  });
  return { spec, validators: keys, accounts: accounts.map((a) => a.file) };
}

export function devGenesis(
  count: number,
  seed = DEV_SEED,
): { spec: GenesisSpec; validator: HybridKeys; accounts: DevAccount[] } {
  const { spec, validators, accounts } = devNetworkGenesis(count, 1, seed);
  return { spec, validator: validators[0], accounts };
}
