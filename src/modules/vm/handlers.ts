import { GAS_PER_ENERGY } from '../../protocol/params';
import type { TxType, VmReceipt } from '../../protocol/types';
import { toHex } from '../../primitives/hex';
import { executeVm, type VmOutcome } from '../../vm/execute';
import { TxFailure, type TxHandler } from '../../protocol/handler';
import { gasLimitOf, validateVmData, vmMessageOf } from './message';

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const MAX_RETURN_BYTES = 4_096; // receipts keep at most this much return/revert data

function receiptOf(o: VmOutcome): VmReceipt {
  return {
    gasUsed: o.gasUsed.toString(),
    logs: o.logs,
    ...(o.createdAddress ? { contractAddress: o.createdAddress } : {}),
    ...(o.returnData !== '0x' ? { returnData: o.returnData.length > 2 + 2 * MAX_RETURN_BYTES ? toHex(Buffer.from(o.returnData.slice(2, 2 + 2 * MAX_RETURN_BYTES), 'hex')) : o.returnData } : {}),
    ...(o.internal.length ? { internal: o.internal.map((t) => ({ kind: t.kind, from: t.from, to: t.to, amountWei: t.valueWei.toString() })) } : {}),
  };
}

/**
 * VM_DEPLOY, VM_CALL and VM_TRANSFER: the EVM through either envelope. Gas converts to
 * energy at GAS_PER_ENERGY (rounded up); a revert keeps its receipt and is charged.
 */
function vmHandler(type: TxType): TxHandler {
  return {
    type,
    validate(tx) {
      if (tx.envelope === 'eth') return undefined; // decoded and checked from the raw transaction
      if (type === 'VM_TRANSFER') return 'VM_TRANSFER only arrives through POST /vm/tx or eth_sendRawTransaction';
      const err = validateVmData(tx.data);
      if (err) return err;
      if (type === 'VM_CALL' && tx.to === null) return 'VM_CALL needs a destination contract';
      if (type === 'VM_DEPLOY' && tx.to !== null) return 'VM_DEPLOY takes no destination';
      return undefined;
    },
    maxEnergy: (tx) => ceilDiv(gasLimitOf(tx), GAS_PER_ENERGY),
    async execute({ state, height, timestamp, producer, tx }) {
      const out = await executeVm(state, vmMessageOf(tx), { height, timestamp, producer });
      const energy = ceilDiv(out.gasUsed, GAS_PER_ENERGY);
      const vm = receiptOf(out);
      if (out.status === 'success') return { energy, vm };
      const reason = out.revertReason !== undefined ? `execution reverted: ${out.revertReason}` : (out.error ?? 'execution failed');
      throw new TxFailure(reason, energy, vm);
    },
  };
}

export const vmDeployHandler = vmHandler('VM_DEPLOY');
export const vmCallHandler = vmHandler('VM_CALL');
export const vmTransferHandler = vmHandler('VM_TRANSFER');
