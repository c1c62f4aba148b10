import type { TxType } from '../chain/types';
import type { TxHandler } from './handler';
import { transferHandler } from './native/transfer';
import { vmCallHandler, vmDeployHandler, vmTransferHandler } from './vm/handlers';

/** Every implemented transaction type, by name. */
export const HANDLERS: Record<TxType, TxHandler> = {
  TRANSFER: transferHandler,
  VM_DEPLOY: vmDeployHandler,
  VM_CALL: vmCallHandler,
  VM_TRANSFER: vmTransferHandler,
};

export const handlerFor = (type: TxType): TxHandler => HANDLERS[type];
