import { GAS_PER_ENERGY, GAS_PRICE_WEI, VM_MAX_GAS } from '../../protocol/params';
import type { SignedTx, VmReceipt } from '../../protocol/types';
import { TxFailure, type VmEngine } from '../../protocol/handler';
import type { Refusal } from '../../protocol/refusal';
import { TX } from '../../protocol/txRefusals';
import { fromHex, toHex } from '../../primitives/hex';
import {
  ERR_BALANCE,
  ERR_GAS_CAP,
  ERR_INITCODE,
  ERR_INTRINSIC,
  ERR_NOT_EOA,
  ERR_OUT_OF_GAS,
  executeVm,
  type VmMessage,
  type VmOutcome,
} from '../../vm/execute';
import { WEI_PER_BASE } from '../../vm/units';
import { VM } from './errors';
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
      from: tx.from,
      to: tx.to,
      valueWei: BigInt(tx.valueWei),
      input: fromHex(tx.input),
      gasLimit: BigInt(tx.gasLimit),
      gasPrice: BigInt(tx.gasPrice),
      ...(tx.accessList ? { accessList: tx.accessList } : {}),
    };
  }
  const d = tx.data as VmCallData;
  return {
    from: tx.from,
    to: tx.to,
    valueWei: BigInt(tx.amount) * WEI_PER_BASE,
    input: fromHex(d.input),
    gasLimit: BigInt(d.gasLimit),
    gasPrice: GAS_PRICE_WEI,
  };
}

function receiptOf(o: VmOutcome): VmReceipt {
  return {
    gasUsed: o.gasUsed.toString(),
    logs: o.logs,
    ...(o.createdAddress ? { contractAddress: o.createdAddress } : {}),
    ...(o.returnData !== '0x'
      ? {
          returnData:
            o.returnData.length > 2 + 2 * MAX_RETURN_BYTES
              ? toHex(Buffer.from(o.returnData.slice(2, 2 + 2 * MAX_RETURN_BYTES), 'hex'))
              : o.returnData,
        }
      : {}),
    ...(o.internal.length
      ? {
          internal: o.internal.map((t) => ({ kind: t.kind, from: t.from, to: t.to, amountWei: t.valueWei.toString() })),
        }
      : {}),
  };
}

/**
 * The EVM's error of a failed (not reverted) outcome, told as the VM catalog's refusal; the EVM's own words otherwise.
 */
function failureOf(msg: VmMessage, error: string | undefined): Refusal {
  switch (error) {
    case ERR_OUT_OF_GAS:
      return VM.VM_OUT_OF_GAS({ gasLimit: msg.gasLimit });
    case ERR_INTRINSIC:
      return VM.VM_INTRINSIC_GAS_TOO_LOW({ gasLimit: msg.gasLimit });
    case ERR_GAS_CAP:
      return VM.VM_GAS_LIMIT_ABOVE_CAP({ gasLimit: msg.gasLimit, cap: VM_MAX_GAS });
    case ERR_INITCODE:
      return VM.VM_INITCODE_TOO_LARGE({ bytes: msg.input.length });
    case ERR_NOT_EOA:
      return VM.VM_SENDER_NOT_EOA({ from: msg.from });
    case ERR_BALANCE:
      return TX.TX_INSUFFICIENT_BALANCE();
    default:
      return VM.VM_EXCEPTION({ error });
  }
}

export const evmEngine: VmEngine = {
  async execute({ state, height, timestamp, producer, tx, network }) {
    const msg = vmMessageOf(tx);
    const out = await executeVm(state, msg, { height, timestamp, producer, chainId: network.chainId });
    const energy = ceilDiv(out.gasUsed, GAS_PER_ENERGY);
    const vm = receiptOf(out);
    if (out.status === 'success') return { energy, vm };
    const refusal =
      out.status === 'reverted'
        ? VM.VM_REVERTED(out.revertReason !== undefined ? { revertReason: out.revertReason } : {})
        : failureOf(msg, out.error);
    throw new TxFailure(refusal, energy, vm);
  },
};
