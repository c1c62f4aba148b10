import { GAS_PRICE_WEI, VM_MAX_GAS } from '../../protocol/params';
import type { SignedTx } from '../../protocol/types';
import { fromHex, isHex, type Hex } from '../../primitives/hex';
import type { VmMessage } from '../../vm/execute';
import { WEI_PER_BASE } from '../../vm/units';

/** The `data` of a hybrid VM_CALL / VM_DEPLOY: calldata (or init code) and the gas limit. */
export interface VmCallData {
  input: Hex;
  gasLimit: number;
}

/** Stateless check of a hybrid VM payload; undefined when fine. */
export function validateVmData(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data must be an object {input, gasLimit}';
  const d = data as Record<string, unknown>;
  for (const k of Object.keys(d)) if (k !== 'input' && k !== 'gasLimit') return `unknown data field: ${k}`;
  if (!isHex(d.input)) return 'data.input must be 0x-prefixed hex';
  if (!Number.isSafeInteger(d.gasLimit) || (d.gasLimit as number) <= 0) return 'data.gasLimit must be a positive integer';
  if (BigInt(d.gasLimit as number) > VM_MAX_GAS) return `data.gasLimit exceeds VM_MAX_GAS ${VM_MAX_GAS}`;
  return undefined;
}

export const gasLimitOf = (tx: SignedTx): bigint =>
  tx.envelope === 'eth' ? BigInt(tx.gasLimit) : BigInt((tx.data as VmCallData).gasLimit);

/** The EVM message a VM transaction asks for, from either envelope. */
export function vmMessageOf(tx: SignedTx): VmMessage {
  if (tx.envelope === 'eth') {
    return {
      from: tx.from, to: tx.to, valueWei: BigInt(tx.valueWei), input: fromHex(tx.input), gasLimit: BigInt(tx.gasLimit),
      gasPrice: BigInt(tx.gasPrice), ...(tx.accessList ? { accessList: tx.accessList } : {}),
    };
  }
  const d = tx.data as VmCallData;
  return { from: tx.from, to: tx.to, valueWei: BigInt(tx.amount) * WEI_PER_BASE, input: fromHex(d.input), gasLimit: BigInt(d.gasLimit), gasPrice: GAS_PRICE_WEI };
}
