import type { TxType } from '../../protocol/types';
import type { TxHandler } from '../../protocol/handler';
import { tokenBlacklistHandler, tokenPauseHandler, tokenUnpauseHandler } from './admin';
import { tokenCreateHandler } from './create';
import { tokenFreezeHandler, tokenUnfreezeHandler } from './freeze';
import { tokenApproveHandler, tokenBurnHandler, tokenMintHandler, tokenTransferFromHandler, tokenTransferHandler } from './move';

/** The 11 FT20 types (TOKEN_CREATE … TOKEN_UNFREEZE). */
export type TokenTxType = Extract<TxType, `TOKEN_${string}`>;

/** FT20 handlers by type (rules and reasons: docs/PROTOCOL.md "Tokens (FT20)"). */
export const TOKEN_HANDLERS: Record<TokenTxType, TxHandler> = {
  TOKEN_CREATE: tokenCreateHandler,
  TOKEN_TRANSFER: tokenTransferHandler,
  TOKEN_APPROVE: tokenApproveHandler,
  TOKEN_TRANSFER_FROM: tokenTransferFromHandler,
  TOKEN_MINT: tokenMintHandler,
  TOKEN_BURN: tokenBurnHandler,
  TOKEN_PAUSE: tokenPauseHandler,
  TOKEN_UNPAUSE: tokenUnpauseHandler,
  TOKEN_BLACKLIST: tokenBlacklistHandler,
  TOKEN_FREEZE: tokenFreezeHandler,
  TOKEN_UNFREEZE: tokenUnfreezeHandler,
};
