import type { TxHandler } from '../../protocol/handler';
import { nftApproveHandler } from './approve';
import { nftBurnHandler } from './burn';
import { nftCreateHandler } from './create';
import { nftMintHandler } from './mint';
import { nftTransferHandler } from './transfer';

/** NFT721 handlers by type. */
export const NFT_HANDLERS = {
  NFT_CREATE: nftCreateHandler,
  NFT_MINT: nftMintHandler,
  NFT_TRANSFER: nftTransferHandler,
  NFT_APPROVE: nftApproveHandler,
  NFT_BURN: nftBurnHandler,
} satisfies Record<string, TxHandler>;
