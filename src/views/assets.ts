import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { CollectionRecord } from '../modules/nft/records';
import type { TokenRecord } from '../modules/tokens/records';
import type { CappedPage } from './paging';

/** JSON shapes of the token, NFT and name endpoints (served by api/assetReader, typed by the SDK). */

/**
 * An opaque pagination cursor (holders, a collection's items): pass a page's `nextBefore` as the next call's `before`.
 */
export type Cursor = string;
/**
 * Where the next page of a feed ordered by height (tokens, transfers, collections, names)
 * starts: the block height of the page's last entry (a page ends with a whole block). Pass it
 * as the next call's `before`: the next page holds what is strictly below that height.
 */
export type HeightCursor = number;

/**
 * GET /tokens/:id (by id or symbol); also the entries of GET /tokens. `holders` is part of the token's state record.
 */
export type TokenView = TokenRecord & { ownerNative: string };
export interface HolderView {
  address: Address;
  native: string;
  balance: string;
}
/** A mint has from null, a burn to null. */
export interface TokenTransferView {
  txId: Hex;
  kind: 'transfer' | 'mint' | 'burn';
  from: Address | null;
  to: Address | null;
  fromNative: string | null;
  toNative: string | null;
  amount: string;
  blockHeight: number;
}
/** A collection as GET /nfts lists it: `supply` = minted − burned. */
export type CollectionView = CollectionRecord & { ownerNative: string; supply: number };
/** GET /nfts/:collection:item. */
export interface ItemView {
  id: string; // "<collection>:<item>"
  collection: Hex;
  item: number;
  owner: Address;
  ownerNative: string;
  uri: string | null;
  approved: Address | null;
  mintedAt: number;
  name: string; // the collection's
  symbol: string;
}
/** A name as GET /names lists it. */
export interface NameEntryView {
  name: string;
  owner: Address;
  ownerNative: string;
  target: Address;
  targetNative: string;
  registeredAt: number;
}
/** GET /name/:name. `address` is what the name resolves to. */
export interface NameResolutionView {
  name: string;
  address: Address;
  native: string;
  owner: Address;
  ownerNative: string;
  registeredAt: number;
}
/** One FT20 holding on an account view. */
export interface AccountTokenView {
  token: Hex;
  symbol: string;
  name: string;
  decimals: number;
  balance: string;
}

export interface TokenList extends CappedPage {
  tokens: TokenView[];
  nextBefore: HeightCursor | null;
}
export interface TokenHolders extends CappedPage {
  token: Hex;
  holders: HolderView[];
  nextBefore: Cursor | null;
}
export interface TokenTransfers extends CappedPage {
  token: Hex;
  transfers: TokenTransferView[];
  nextBefore: HeightCursor | null;
}
/** GET /nfts/:collection: the collection with a page of its live items, newest first. */
export interface CollectionDetail extends CollectionView, CappedPage {
  items: ItemView[];
  nextBefore: Cursor | null;
}
export interface CollectionList extends CappedPage {
  collections: CollectionView[];
  nextBefore: HeightCursor | null;
}
export interface NameList extends CappedPage {
  names: NameEntryView[];
  nextBefore: HeightCursor | null;
}
