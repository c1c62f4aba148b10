import { tokenBlacklist, tokenPause, tokenUnpause } from './admin';
import { tokenCreate } from './create';
import { tokenFreeze, tokenUnfreeze } from './freeze';
import { tokenApprove, tokenBurn, tokenMint, tokenTransfer, tokenTransferFrom } from './move';

/** The FT20 entries (rules and reasons: docs/PROTOCOL.md "Tokens (FT20)"). */
export {
  tokenApprove,
  tokenBlacklist,
  tokenBurn,
  tokenCreate,
  tokenFreeze,
  tokenMint,
  tokenPause,
  tokenTransfer,
  tokenTransferFrom,
  tokenUnfreeze,
  tokenUnpause,
};
