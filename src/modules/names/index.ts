import type { TxHandler } from '../handler';
import { notYet } from '../assets/pending';

/** Name service handlers by type. */
export const NAME_HANDLERS = notYet(['NAME_REGISTER', 'NAME_UPDATE', 'NAME_TRANSFER', 'NAME_RELEASE'] as const) satisfies Record<string, TxHandler>;
