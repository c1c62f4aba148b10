import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/** Why the NFT721 types are refused (owner-only checks refuse with ASSET_NOT_OWNER, assets/errors.ts). */
export const NFT = refusals('nft', {
  NFT_SYMBOL_TAKEN: (_m: { symbol: string }) => 'symbol already taken',
  NFT_UNKNOWN_COLLECTION: (_m: { collection: Hex }) => 'unknown collection',
  /** No such item in the collection: never minted, or burned. */
  NFT_UNKNOWN_ITEM: (_m: { collection: Hex; item: number }) => 'unknown item',
  NFT_NOT_OWNER_OR_APPROVED: (_m: {
    collection: Hex;
    item: number;
    owner: Address;
    approved: Address | null;
    sender: Address;
  }) => 'only the owner of the item or its approved address may transfer it',
});
