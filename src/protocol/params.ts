import { COIN } from '../primitives/amount';

/**
 * Protocol constants. Values the interface names (docs/API.md "Limits and protection") are spelled as there.
 * Governable parameters will be read through one accessor (issue: governance);
 * until then these are the genesis values.
 */
/**
 * The development network's chain id (eth_chainId 0x11954). A chain specification sets
 * its own (`chainId`, 1..MAX_CHAIN_ID): a node serves and checks its chain's, never this one.
 */
export const CHAIN_ID = 72020;
export const CHAIN_ID_HEX = '0x11954';
/** Largest chain id a specification may set: EIP-155's v = 2·id + 35 stays a small integer everywhere. */
export const MAX_CHAIN_ID = 4_294_967_295;

/** Domain tags keep a tx id / signed message from ever colliding with another hashed thing. */
export const TX_DOMAIN = 'CAIRN/TX/v1\n';
export const BLOCK_DOMAIN = 'CAIRN/BLOCK/v1\n';

/** The state trie's node cache, in MiB, unless `--state-cache-mb` says otherwise (state/trieNodes.ts). */
export const STATE_CACHE_MB_DEFAULT = 128;

export const MAX_TXS_PER_BLOCK = 500;
export const MAX_DATA_BYTES = 65_536;
export const MAX_FUTURE_NONCE_GAP = 64;
export const MEMPOOL_CAP_DEFAULT = 5_000;
export const MEMPOOL_MAX = 50_000;
export const MEMPOOL_LIFETIME_MS = 21_600_000;
/**
 * Per-sender bounds of the mempool (not in the spec; node policy, configurable). A sender holds at
 * most MEMPOOL_SENDER_PENDING transactions (one block's worth) and at most MEMPOOL_SENDER_GAPPED of
 * them beyond its next nonce ("gapped": they cannot run until the gap fills); a gapped transaction
 * leaves after MEMPOOL_GAPPED_LIFETIME_MS (10 min) instead of the 6 h lifetime.
 */
export const MEMPOOL_SENDER_PENDING = 500;
export const MEMPOOL_SENDER_GAPPED = 16;
export const MEMPOOL_GAPPED_LIFETIME_MS = 600_000;
export const MAX_CHAIN_PAGE = 2_000;
/**
 * State sync (node-local, not consensus): a node keeps the state of every SNAPSHOT_INTERVAL_BLOCKS-th final block,
 * the newest SNAPSHOTS_KEPT, for joining nodes (--snapshot-interval); they fetch it by node hash, at most
 * MAX_SNAPSHOT_NODES per request.
 */
export const SNAPSHOT_INTERVAL_BLOCKS = 1_000;
export const SNAPSHOTS_KEPT = 2;
export const MAX_SNAPSHOT_NODES = 512;

/** Energy: each account regenerates up to its cap over ENERGY_REGEN_BLOCKS. */
export const BURN_PER_ENERGY = 1n; // base units burned per missing energy unit
export const FREE_ENERGY = 10_000n; // cap of every account, stake adds to it
export const ENERGY_PER_STAKED_COIN = 10n;
export const ENERGY_REGEN_BLOCKS = 28_800n;
export const GAS_PER_ENERGY = 100n;

/** Energy cost per transaction type: each type's entry (modules/registry.ts). VM types cost gas / GAS_PER_ENERGY. */

/** FEES in base units as the spec's eth_gasPrice formula names them. */
export const FEES = { VM_TRANSFER: 210n } as const;

/** Block reward, stakes, set sizes, windows: governable, in protocol/governable.ts (read through its one accessor). */

/** The treasury is an account with a fixed address no key controls (20 bytes of 0x…7e). */
export const TREASURY_ADDRESS: `0x${string}` = '0x000000000000000000000000000000000000007e';
/** Voters' block rewards wait here until CLAIM_VOTER_REWARD (an account no key controls: 0x…7f). */
export const REWARD_POOL_ADDRESS: `0x${string}` = '0x000000000000000000000000000000000000007f';
/** Coins of an UNSTAKE wait here until they mature (0x…7c). */
export const UNBONDING_ADDRESS: `0x${string}` = '0x000000000000000000000000000000000000007c';
/** Governance deposits are held here while their proposal runs (0x…7d). */
export const GOV_ESCROW_ADDRESS: `0x${string}` = '0x000000000000000000000000000000000000007d';
/** Holds the coins of vesting schedules until their beneficiaries claim them (VESTING_CREATE / VESTING_CLAIM). */
export const VESTING_ESCROW_ADDRESS: `0x${string}` = '0x000000000000000000000000000000000000007b';
/** AI task rewards, challenge bonds and oracle stakes are held here (0x…7a). */
export const AI_ESCROW_ADDRESS: `0x${string}` = '0x000000000000000000000000000000000000007a';
/** Coins locked by BRIDGE_OUT (and tokens, in its token balance) wait here until released by BRIDGE_IN (0x…79). */
export const BRIDGE_ESCROW_ADDRESS: `0x${string}` = '0x0000000000000000000000000000000000000079';

/** The fixed VM gas price in wei: FEES.VM_TRANSFER × 10^12 / 21,000 (no gas market). */
export const GAS_PRICE_WEI = (FEES.VM_TRANSFER * 10n ** 12n) / 21_000n;
export const VM_MAX_GAS = 5_190_000n;

/** FT20 (docs/PROTOCOL.md "Tokens"). Amounts and supplies are integer strings up to 2^256 − 1. */
export const MAX_TOKEN_AMOUNT = 2n ** 256n - 1n;
export const MAX_TOKEN_DECIMALS = 18;
export const MAX_ASSET_NAME_BYTES = 64;
/** Symbols: an upper-case letter, then up to 11 upper-case letters or digits; unique per chain. */
export const SYMBOL_RE = /^[A-Z][A-Z0-9]{0,11}$/;

/** NFT721: items are numbered 1, 2, 3… per collection; a URI is optional and bounded. */
export const MAX_NFT_URI_BYTES = 256;

/**
 * Name service: 3–32 characters of a–z, 0–9 and '-', not starting or ending with '-'.
 * Registering costs NAME_REGISTRATION_COST base units, carried in the transaction's
 * `amount` and paid to the treasury.
 */
export const NAME_RE = /^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/;
export const NAME_REGISTRATION_COST = 10n * COIN;
