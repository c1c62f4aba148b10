import { type Common, Hardfork, Mainnet, type StateManagerInterface, createCustomCommon } from '@ethereumjs/common';
import { type EVM, createEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { CHAIN_ID } from '../protocol/params';
import { keccak256, sha256 } from '../crypto/hash';
import { fastEipLookup, fastOpcodes, installEvmSpeedups } from './speedups';
import { pricePrecompiles } from './precompiles';
import { cairnEvmParams } from './opcodePrices';

/**
 * The VM's rules: Ethereum mainnet's EVM at the Prague hardfork (EIP-7623 calldata floor,
 * EIP-2537 BLS precompiles, EIP-7702 code delegation in the interpreter — no type-4
 * transactions reach it), with chain id 72020. Prague runs unchanged on
 * @ethereumjs/evm 10.1.3, so there was no reason to fall back to Cancun.
 */
export const VM_HARDFORK = Hardfork.Prague;

/** docs/PROTOCOL.md "VM": gas ceiling of one VM execution; a gasLimit above it is refused. */
export { VM_MAX_GAS } from '../protocol/params';

/** GASLIMIT opcode value: a constant block gas limit (no gas market; blocks cap tx count instead). */
export const VM_BLOCK_GAS_LIMIT = 30_000_000n;

/** EIP-3529: refunds are capped at gasUsed / 5 since London. (A VM-package param, so not in the Common we load.) */
export const MAX_REFUND_QUOTIENT = 5n;

/**
 * A fresh Common for chain `chainId` (the development network's 72020 unless a chain
 * specification sets another) / Prague with the EVM and tx parameter tables loaded.
 * Fresh because a Common is mutable (the EVM and tx constructors call updateParams on it);
 * each EVM instance gets its own.
 */
export function createCairnCommon(chainId: number = CHAIN_ID): Common {
  // customCrypto: SHA3 and mapping-slot hashing use our keccak (src/crypto/keccak.ts), the 0x02
  // precompile Node's native SHA-256, not noble's JavaScript ones.
  const common = createCustomCommon({ chainId, name: 'cairn' }, Mainnet, {
    hardfork: VM_HARDFORK,
    params: paramsTx,
    customCrypto: { keccak256, sha256 },
  });
  common.updateParams(cairnEvmParams); // Cairn's opcode prices (src/vm/opcodePrices.ts) for anything reading them
  return common;
}

const decodeCommons = new Map<number, Common>();

/** Shared Common for reading parameters (never handed to anything that mutates it). */
export const cairnCommon: Common = createCairnCommon();

/**
 * The Common handed to transaction decoding (createTxFromRLP). Each transaction constructor
 * copies its Common and re-merges the tx parameter table into the copy: measured at ~120 µs
 * of a ~150 µs decode, on the main thread, for every raw transaction admitted or re-derived.
 * This instance already holds those parameters and nothing changes its hardfork, so its
 * copy is itself and re-merging is skipped: decode drops to ~28 µs. Never give it to an EVM
 * (the EVM does change its Common).
 */
export const txDecodeCommon: Common = txDecodeCommonFor(CHAIN_ID);

/** txDecodeCommon for chain `chainId` (one per chain id a process decodes for: a node has one). */
export function txDecodeCommonFor(chainId: number): Common {
  let c = decodeCommons.get(chainId);
  if (c === undefined) {
    const fresh = createCairnCommon(chainId);
    Object.assign(fresh, { copy: () => fresh, updateParams: () => fresh });
    decodeCommons.set(chainId, (c = fresh));
  }
  return c;
}

/** An EVM with Cairn's rules over `stateManager` (normally an EvmStateAdapter). */
export async function createCairnEvm(stateManager: StateManagerInterface, chainId: number = CHAIN_ID): Promise<EVM> {
  await installEvmSpeedups();
  const evm = await createEVM({ common: createCairnCommon(chainId), stateManager, params: cairnEvmParams });
  fastEipLookup(evm.common);
  fastOpcodes(evm);
  pricePrecompiles(evm);
  return evm;
}
