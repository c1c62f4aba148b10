import { Type } from '@sinclair/typebox';
import { GAS_PER_ENERGY, VM_MAX_GAS } from '../../protocol/params';
import type { SignedTx } from '../../protocol/types';
import type { HandlerOutcome } from '../../protocol/handler';
import type { Hex } from '../../primitives/hex';
import type { DataMessages, Field, RunCtx, ToRule } from '../tx/entry';
import { defineTx } from '../tx/define';
import { hexField } from '../tx/fields';

/**
 * VM_DEPLOY, VM_CALL and VM_TRANSFER: the EVM through either envelope. An Ethereum-born
 * transaction is checked from its raw bytes at decoding; a hybrid one carries
 * data {input, gasLimit}. Energy is gas: gasLimit / GAS_PER_ENERGY (rounded up) at most,
 * gas used / GAS_PER_ENERGY charged. Execution goes through the ExecContext's VmEngine
 * (modules/vm/engine.ts), so these declarations never load the EVM.
 */

/** The `data` of a hybrid VM_CALL / VM_DEPLOY: calldata (or init code) and the gas limit. */
export interface VmCallData {
  input: Hex;
  gasLimit: number;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

export const gasLimitOf = (tx: SignedTx): bigint =>
  tx.envelope === 'eth' ? BigInt(tx.gasLimit) : BigInt((tx.data as VmCallData).gasLimit);
const gasEnergy = {
  most: (tx: SignedTx): bigint => ceilDiv(gasLimitOf(tx), GAS_PER_ENERGY),
  doc: `gas used ÷ ${GAS_PER_ENERGY}, rounded up (at most gas limit ÷ ${GAS_PER_ENERGY})`,
};

const VM_MESSAGES: DataMessages = {
  notObject: () => 'data must be an object {input, gasLimit}',
  missing: null,
  unknown: (_type, key) => `unknown data field: ${key}`,
  field: (_type, key, reason) => `data.${key} ${reason}`,
  toLast: true,
};

const gasLimitField: Field<number> = {
  checks: [
    {
      schema: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
      reason: 'must be a positive integer',
      sdk: (got) => `must be a positive integer, got ${got}`,
    },
    {
      schema: Type.Integer({ maximum: Number(VM_MAX_GAS) }),
      reason: `exceeds VM_MAX_GAS ${VM_MAX_GAS}`,
      sdk: () => `exceeds VM_MAX_GAS ${VM_MAX_GAS}`,
    },
  ],
  read: (v) => v as number,
  doc: `gas limit, 1 to VM_MAX_GAS (${VM_MAX_GAS})`,
};
const VM_FIELDS = {
  input: hexField('must be 0x-prefixed hex', 'calldata (VM_CALL) or init code (VM_DEPLOY), 0x hex'),
  gasLimit: gasLimitField,
};

const runVm = (c: RunCtx<ToRule>): Promise<HandlerOutcome> => c.vm.execute(c);

export const vmDeploy = defineTx({
  type: 'VM_DEPLOY',
  module: 'vm',
  summary: 'deploys a contract from init code (either envelope); amount is the value sent',
  envelope: 'both',
  to: { kind: 'none', reason: 'VM_DEPLOY takes no destination' },
  amount: { kind: 'any' },
  fields: VM_FIELDS,
  messages: VM_MESSAGES,
  energy: gasEnergy,
  run: runVm,
});

export const vmCall = defineTx({
  type: 'VM_CALL',
  module: 'vm',
  summary: 'calls contract `to` (either envelope); amount is the value sent',
  envelope: 'both',
  to: { kind: 'required', role: 'contract', reason: 'VM_CALL needs a destination contract' },
  amount: { kind: 'any' },
  fields: VM_FIELDS,
  messages: VM_MESSAGES,
  energy: gasEnergy,
  run: runVm,
});

/** VM_TRANSFER is value sent by an EVM wallet: it only exists on the VM path (raw Ethereum transactions). */
export const vmTransfer = defineTx({
  type: 'VM_TRANSFER',
  module: 'vm',
  summary: 'value sent by an EVM wallet to `to`; only through POST /vm/tx or eth_sendRawTransaction',
  envelope: { only: 'eth', reason: 'VM_TRANSFER only arrives through POST /vm/tx or eth_sendRawTransaction' },
  to: { kind: 'optional', role: 'recipient' },
  amount: { kind: 'any' },
  energy: gasEnergy,
  run: runVm,
});
