import type { TxType } from '../protocol/types';
import type { TxHandler } from '../protocol/handler';
import { NAME_HANDLERS } from './names';
import { transferHandler } from './native/transfer';
import { NFT_HANDLERS } from './nft';
import { TOKEN_HANDLERS } from './tokens';
import { vmCallHandler, vmDeployHandler, vmTransferHandler } from './vm/handlers';

/** Every implemented transaction type, by name. */
export const HANDLERS: Record<TxType, TxHandler> = {
  TRANSFER: transferHandler,
  VM_DEPLOY: vmDeployHandler,
  VM_CALL: vmCallHandler,
  VM_TRANSFER: vmTransferHandler,
  ...TOKEN_HANDLERS,
  ...NFT_HANDLERS,
  ...NAME_HANDLERS,
};

export const handlerFor = (type: TxType): TxHandler | undefined => HANDLERS[type];
