import type { TxHandler } from '../handler';
import { notYet } from '../assets/pending';

/** FT20 handlers by type. */
export const TOKEN_HANDLERS = notYet(['TOKEN_CREATE', 'TOKEN_TRANSFER', 'TOKEN_APPROVE', 'TOKEN_TRANSFER_FROM', 'TOKEN_MINT', 'TOKEN_BURN', 'TOKEN_PAUSE', 'TOKEN_UNPAUSE', 'TOKEN_BLACKLIST', 'TOKEN_FREEZE', 'TOKEN_UNFREEZE'] as const) satisfies Record<string, TxHandler>;
