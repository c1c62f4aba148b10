import type { TxType } from '../chain/types';
import type { TxHandler } from './handler';
import { transferHandler } from './native/transfer';

/** Every implemented transaction type, by name. */
export const HANDLERS: Record<TxType, TxHandler> = {
  TRANSFER: transferHandler,
};

export const handlerFor = (type: TxType): TxHandler => HANDLERS[type];
