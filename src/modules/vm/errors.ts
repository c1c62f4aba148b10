import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/**
 * Why a VM transaction failed: the EVM's outcome, in geth's words (vm/execute.ts). A failed VM
 * transaction keeps its receipt and is charged for the gas it used (gasUsed 0 when refused
 * before execution); a value above the sender's balance is TX_INSUFFICIENT_BALANCE.
 */
export const VM = refusals('vm', {
  /** The contract reverted; `revertReason` is its decoded Error(string) message, when it gave one. */
  VM_REVERTED: (m: { revertReason?: string }) =>
    m.revertReason !== undefined ? `execution reverted: ${m.revertReason}` : 'execution reverted',
  VM_OUT_OF_GAS: (_m: { gasLimit: bigint }) => 'out of gas',
  /** The gas limit is below the intrinsic gas (or the EIP-7623 floor) of the transaction. */
  VM_INTRINSIC_GAS_TOO_LOW: (_m: { gasLimit: bigint }) => 'intrinsic gas too low',
  VM_GAS_LIMIT_ABOVE_CAP: (m: { gasLimit: bigint; cap: bigint }) => `gas limit above VM_MAX_GAS ${m.cap}`,
  /** A creation's initcode is over the EIP-3860 limit. */
  VM_INITCODE_TOO_LARGE: (_m: { bytes: number }) => 'max initcode size exceeded',
  /** The sender has code (EIP-3607): only externally owned accounts send transactions. */
  VM_SENDER_NOT_EOA: (_m: { from: Address }) => 'sender not an eoa',
  /** Any other EVM exception (invalid opcode, stack underflow, a static call's state change, …), in the EVM's words. */
  VM_EXCEPTION: (m: { error?: string }) => m.error ?? 'execution failed',
});
