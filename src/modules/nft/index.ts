import type { TxHandler } from '../handler';
import { notYet } from '../assets/pending';

/** NFT721 handlers by type. */
export const NFT_HANDLERS = notYet(['NFT_CREATE', 'NFT_MINT', 'NFT_TRANSFER', 'NFT_APPROVE', 'NFT_BURN'] as const) satisfies Record<string, TxHandler>;
