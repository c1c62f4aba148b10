import type { TxHandler } from '../../protocol/handler';
import { nameReleaseHandler, nameTransferHandler, nameUpdateHandler } from './manage';
import { nameRegisterHandler } from './register';

/** Name service handlers by type. */
export const NAME_HANDLERS = {
  NAME_REGISTER: nameRegisterHandler,
  NAME_UPDATE: nameUpdateHandler,
  NAME_TRANSFER: nameTransferHandler,
  NAME_RELEASE: nameReleaseHandler,
} satisfies Record<string, TxHandler>;
