import type { Common } from '@ethereumjs/common';
import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import { cairnCommon } from './common';

export interface AccessListEntry {
  address: Address;
  storageKeys: Hex[];
}

export interface IntrinsicInput {
  to: Address | null;
  input: Uint8Array;
  accessList?: readonly AccessListEntry[];
}

export interface IntrinsicGas {
  /** What the transaction pays before execution: base + create + calldata + initcode words + access list. */
  intrinsic: bigint;
  /** EIP-7623 calldata floor (0 when the rule is not active): the least gasUsed a transaction reports. */
  floor: bigint;
  /** The lowest valid gasLimit: max(intrinsic, floor). */
  minimum: bigint;
}

/**
 * Intrinsic gas exactly as @ethereumjs/tx computes it for an EIP-2930/1559 transaction
 * (`tx.getIntrinsicGas()`, `getCalldataFloorGas(tx)`, `getMinimumGasLimit(tx)`), from the
 * same parameter table (`common.param`) and the same EIP activation checks.
 *
 * Why not call those functions: they take a transaction object, and building one copies the
 * Common — ~145 µs, a large share of a whole ERC-20 transfer. This re-derivation reads the
 * library's own parameters, refuses the EIPs whose formulas it does not implement, and a
 * unit test compares it with the library functions on random inputs.
 */
export function intrinsicGas(m: IntrinsicInput, common: Common = cairnCommon): IntrinsicGas {
  for (const eip of UNSUPPORTED_EIPS) {
    if (common.isActivatedEIP(eip))
      throw new Error(`intrinsicGas: EIP-${eip} is active; its formula is not implemented here`);
  }
  const p = params(common);
  let zero = 0n;
  const data = m.input;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zero++;
  const nonZero = BigInt(data.length) - zero;

  let gas = p.txGas + zero * p.txDataZeroGas + nonZero * p.txDataNonZeroGas;
  if (m.to === null) {
    gas += p.txCreationGas;
    if (common.isActivatedEIP(3860)) gas += p.initCodeWordGas * ((BigInt(data.length) + 31n) / 32n);
  }
  for (const e of m.accessList ?? [])
    gas += p.accessListAddressGas + BigInt(e.storageKeys.length) * p.accessListStorageKeyGas;

  let floor = 0n;
  if (common.isActivatedEIP(7623)) floor = p.txGas + p.totalCostFloorPerToken * (zero + nonZero * 4n);
  return { intrinsic: gas, floor, minimum: gas > floor ? gas : floor };
}

/** EIP-3860: the largest initcode a creation may carry. */
export function maxInitCodeSize(common: Common = cairnCommon): number {
  return common.isActivatedEIP(3860) ? Number(common.param('maxInitCodeSize')) : Infinity;
}

/** Formulas changed by these (Amsterdam-era) EIPs are not re-derived above. */
const UNSUPPORTED_EIPS = [2780, 7976, 7981, 8037, 8038];

interface Params {
  txGas: bigint;
  txCreationGas: bigint;
  txDataZeroGas: bigint;
  txDataNonZeroGas: bigint;
  initCodeWordGas: bigint;
  accessListAddressGas: bigint;
  accessListStorageKeyGas: bigint;
  totalCostFloorPerToken: bigint;
}

const cache = new WeakMap<Common, { hardfork: string; p: Params }>();

function params(common: Common): Params {
  const hit = cache.get(common);
  if (hit && hit.hardfork === common.hardfork()) return hit.p;
  const n = (name: string) => common.param(name);
  const p: Params = {
    txGas: n('txGas'),
    txCreationGas: n('txCreationGas'),
    txDataZeroGas: n('txDataZeroGas'),
    txDataNonZeroGas: n('txDataNonZeroGas'),
    initCodeWordGas: common.isActivatedEIP(3860) ? n('initCodeWordGas') : 0n,
    accessListAddressGas: n('accessListAddressGas'),
    accessListStorageKeyGas: n('accessListStorageKeyGas'),
    totalCostFloorPerToken: common.isActivatedEIP(7623) ? n('totalCostFloorPerToken') : 0n,
  };
  cache.set(common, { hardfork: common.hardfork(), p });
  return p;
}
