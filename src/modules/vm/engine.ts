import { GAS_PER_ENERGY, GAS_PRICE_WEI } from '../../protocol/params';
import type { SignedTx, VmReceipt } from '../../protocol/types';
import { TxFailure, type VmEngine } from '../../protocol/handler';
import { fromHex, toHex } from '../../primitives/hex';
import { executeVm, type VmMessage, type VmOutcome } from '../../vm/execute';
import { WEI_PER_BASE } from '../../vm/units';
import type { VmCallData } from './vm';

/**
 * The EVM behind the VmEngine port (chain/applyTx hands it to every execution): the message a
 * VM transaction asks for, its execution, and the receipt. Gas converts to energy at
 * GAS_PER_ENERGY (rounded up); a revert keeps its receipt and is charged.
 */

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const MAX_RETURN_BYTES = 4_096; // receipts keep at most this much return/revert data

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

function receiptOf(o: VmOutcome): VmReceipt {
  return {
    gasUsed: o.gasUsed.toString(),
    logs: o.logs,
    ...(o.createdAddress ? { contractAddress: o.createdAddress } : {}),
    ...(o.returnData !== '0x' ? { returnData: o.returnData.length > 2 + 2 * MAX_RETURN_BYTES ? toHex(Buffer.from(o.returnData.slice(2, 2 + 2 * MAX_RETURN_BYTES), 'hex')) : o.returnData } : {}),
    ...(o.internal.length ? { internal: o.internal.map((t) => ({ kind: t.kind, from: t.from, to: t.to, amountWei: t.valueWei.toString() })) } : {}),
  };
}

export const evmEngine: VmEngine = {
  async execute({ state, height, timestamp, producer, tx, network }) {
    const out = await executeVm(state, vmMessageOf(tx), { height, timestamp, producer, chainId: network.chainId });
    const energy = ceilDiv(out.gasUsed, GAS_PER_ENERGY);
    const vm = receiptOf(out);
    if (out.status === 'success') return { energy, vm };
    const reason = out.revertReason !== undefined ? `execution reverted: ${out.revertReason}` : (out.error ?? 'execution failed');
    throw new TxFailure(reason, energy, vm);
  },
};
