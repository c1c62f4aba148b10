import {
  MAX_ASSET_NAME_BYTES,
  MAX_NFT_URI_BYTES,
  MAX_TOKEN_AMOUNT,
  MAX_TOKEN_DECIMALS,
  NAME_RE,
  NAME_REGISTRATION_COST,
  SYMBOL_RE,
} from '../protocol/params';
import type { Address, TxType } from '../protocol/types';
import { parseAddress } from '../crypto/address';
import { CairnError } from '../errors/CairnError';
import { assetId, ASSET_ID_RE } from '../modules/assets/common';
import type { Hex } from '../primitives/hex';
// The response shapes are the server's own types (type-only imports: nothing of the node is
// bundled into the SDK), so the two cannot drift apart.
import type {
  CollectionView as ServerCollectionView,
  HolderView,
  ItemView,
  NameView as ServerNameEntry,
  TokenTransferView,
  TokenView as ServerTokenView,
} from '../api/assetReader';

/**
 * Typed builders of the asset transactions (FT20 tokens, NFT721 collections, names):
 * one input shape per type → the unsigned fields {type, to, amount, data} that signTx
 * takes (plus a nonce). They check the input's shape only (field types, symbol and name
 * alphabets, amount ranges): whether the transaction can succeed (ownership, balances,
 * pauses…) is for the node to decide. Errors are CairnError('INVALID_ASSET_TX') whose
 * message starts with the offending field's name and whose meta.field names it.
 */

export const TOKEN_TX_TYPES = [
  'TOKEN_CREATE', 'TOKEN_TRANSFER', 'TOKEN_APPROVE', 'TOKEN_TRANSFER_FROM', 'TOKEN_MINT', 'TOKEN_BURN',
  'TOKEN_PAUSE', 'TOKEN_UNPAUSE', 'TOKEN_BLACKLIST', 'TOKEN_FREEZE', 'TOKEN_UNFREEZE',
] as const satisfies readonly TxType[];
export const NFT_TX_TYPES = ['NFT_CREATE', 'NFT_MINT', 'NFT_TRANSFER', 'NFT_APPROVE', 'NFT_BURN'] as const satisfies readonly TxType[];
export const NAME_TX_TYPES = ['NAME_REGISTER', 'NAME_UPDATE', 'NAME_TRANSFER', 'NAME_RELEASE'] as const satisfies readonly TxType[];
export const ASSET_TX_TYPES = [...TOKEN_TX_TYPES, ...NFT_TX_TYPES, ...NAME_TX_TYPES] as const;
export type AssetTxType = (typeof ASSET_TX_TYPES)[number];

/** A token amount in the token's base units: integer string, bigint or safe integer. */
export type TokenAmount = bigint | string | number;
/** 0x (any case) or cairn1… address. */
export type AddressInput = string;

export type AssetTxInput =
  // FT20
  | { type: 'TOKEN_CREATE'; name: string; symbol: string; decimals: number; supply: TokenAmount; mintable?: boolean }
  | { type: 'TOKEN_TRANSFER'; token: string; to: AddressInput; amount: TokenAmount }
  /** Sets the spender's allowance to `amount` (0 revokes it). */
  | { type: 'TOKEN_APPROVE'; token: string; spender: AddressInput; amount: TokenAmount }
  | { type: 'TOKEN_TRANSFER_FROM'; token: string; from: AddressInput; to: AddressInput; amount: TokenAmount }
  | { type: 'TOKEN_MINT'; token: string; to: AddressInput; amount: TokenAmount }
  | { type: 'TOKEN_BURN'; token: string; amount: TokenAmount }
  | { type: 'TOKEN_PAUSE'; token: string }
  | { type: 'TOKEN_UNPAUSE'; token: string }
  | { type: 'TOKEN_BLACKLIST'; token: string; target: AddressInput; blacklisted: boolean }
  /** Freezes the sender's own balance of the token until block height `until`. */
  | { type: 'TOKEN_FREEZE'; token: string; until: number }
  | { type: 'TOKEN_UNFREEZE'; token: string }
  // NFT721
  | { type: 'NFT_CREATE'; name: string; symbol: string }
  | { type: 'NFT_MINT'; collection: string; to: AddressInput; uri?: string }
  | { type: 'NFT_TRANSFER'; collection: string; item: number; to: AddressInput }
  /** `approved: null` clears the approval. */
  | { type: 'NFT_APPROVE'; collection: string; item: number; approved: AddressInput | null }
  | { type: 'NFT_BURN'; collection: string; item: number }
  // Names
  /** `target` is what the name resolves to; default (null) the sender. */
  | { type: 'NAME_REGISTER'; name: string; target?: AddressInput | null }
  | { type: 'NAME_UPDATE'; name: string; target: AddressInput }
  | { type: 'NAME_TRANSFER'; name: string; owner: AddressInput }
  | { type: 'NAME_RELEASE'; name: string };

/** The unsigned fields of an asset transaction: pass them with a nonce to signTx. */
export interface UnsignedAssetTx {
  type: AssetTxType;
  to: Address | null;
  amount: string;
  data: Record<string, unknown>;
}

function invalid(field: string, message: string): never {
  throw new CairnError('INVALID_ASSET_TX', `${field} ${message}`, { field });
}

const show = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : typeof v === 'bigint' ? `${v}n` : JSON.stringify(v) ?? String(v));

function amountOf(field: string, v: unknown, allowZero: boolean): string {
  let n: bigint | undefined;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^(0|[1-9][0-9]*)$/.test(v) && v.length <= 78) n = BigInt(v);
  const range = allowZero ? '0 to 2^256 - 1' : '1 to 2^256 - 1';
  if (n === undefined) invalid(field, `must be an integer amount in the token's base units (${range}), got ${show(v)}`);
  if (n < 0n || n > MAX_TOKEN_AMOUNT || (!allowZero && n === 0n)) invalid(field, `must be from ${range}, got ${show(v)}`);
  return n.toString(10);
}

function idOf(field: string, v: unknown): Hex {
  if (typeof v !== 'string' || !ASSET_ID_RE.test(v.toLowerCase()))
    invalid(field, `must be an asset id (0x + 40 hex), got ${show(v)}`);
  return v.toLowerCase() as Hex;
}

function addressOf(field: string, v: unknown): Address {
  const a = typeof v === 'string' ? parseAddress(v) : undefined;
  if (a === undefined) invalid(field, `must be an address (0x + 40 hex, or cairn1…), got ${show(v)}`);
  return a;
}

function intOf(field: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
    invalid(field, `must be an integer from ${min} to ${max}, got ${show(v)}`);
  return v;
}

/** C0 and C1 control characters, DEL, lone surrogates. */
const BAD_TEXT = /[\p{Cc}\p{Cs}]/u;

function assetName(field: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0) invalid(field, `must be a non-empty string, got ${show(v)}`);
  if (Buffer.byteLength(v, 'utf8') > MAX_ASSET_NAME_BYTES) invalid(field, `must be at most ${MAX_ASSET_NAME_BYTES} bytes of UTF-8`);
  if (BAD_TEXT.test(v)) invalid(field, 'must not contain control characters');
  return v;
}

function symbolOf(field: string, v: unknown): string {
  if (typeof v !== 'string' || !SYMBOL_RE.test(v))
    invalid(field, `must be an upper-case letter then up to 11 upper-case letters or digits (e.g. "USDC"), got ${show(v)}`);
  return v;
}

/** NS names: 3–32 characters of a–z, 0–9 and '-', not starting or ending with '-'. */
export function isValidName(v: unknown): v is string {
  return typeof v === 'string' && NAME_RE.test(v);
}

function nsName(v: unknown): string {
  if (!isValidName(v))
    invalid('name', `must be 3 to 32 characters of a-z, 0-9 and '-', not starting or ending with '-', got ${show(v)}`);
  return v;
}

function boolOf(field: string, v: unknown): boolean {
  if (typeof v !== 'boolean') invalid(field, `must be true or false, got ${show(v)}`);
  return v;
}

const tx = (type: AssetTxType, to: Address | null, data: Record<string, unknown>, amount = '0'): UnsignedAssetTx => ({ type, to, amount, data });

/** The unsigned fields of one asset transaction. Throws CairnError('INVALID_ASSET_TX') on bad input. */
export function buildAssetTx(input: AssetTxInput): UnsignedAssetTx {
  if (input === null || typeof input !== 'object') throw new CairnError('INVALID_ASSET_TX', 'input must be an object with a type', { field: 'type' });
  const i = input as AssetTxInput;
  switch (i.type) {
    case 'TOKEN_CREATE': {
      const data: Record<string, unknown> = {
        name: assetName('name', i.name),
        symbol: symbolOf('symbol', i.symbol),
        decimals: intOf('decimals', i.decimals, 0, MAX_TOKEN_DECIMALS),
        supply: amountOf('supply', i.supply, true),
      };
      if (i.mintable !== undefined) data.mintable = boolOf('mintable', i.mintable);
      if (data.supply === '0' && data.mintable !== true) invalid('supply', 'may be 0 only for a mintable token');
      return tx(i.type, null, data);
    }
    case 'TOKEN_TRANSFER':
    case 'TOKEN_MINT':
      return tx(i.type, addressOf('to', i.to), { token: idOf('token', i.token), amount: amountOf('amount', i.amount, false) });
    case 'TOKEN_APPROVE':
      return tx(i.type, addressOf('spender', i.spender), { token: idOf('token', i.token), amount: amountOf('amount', i.amount, true) });
    case 'TOKEN_TRANSFER_FROM':
      return tx(i.type, addressOf('to', i.to), {
        token: idOf('token', i.token),
        from: addressOf('from', i.from),
        amount: amountOf('amount', i.amount, false),
      });
    case 'TOKEN_BURN':
      return tx(i.type, null, { token: idOf('token', i.token), amount: amountOf('amount', i.amount, false) });
    case 'TOKEN_PAUSE':
    case 'TOKEN_UNPAUSE':
    case 'TOKEN_UNFREEZE':
      return tx(i.type, null, { token: idOf('token', i.token) });
    case 'TOKEN_BLACKLIST':
      return tx(i.type, addressOf('target', i.target), { token: idOf('token', i.token), blacklisted: boolOf('blacklisted', i.blacklisted) });
    case 'TOKEN_FREEZE':
      return tx(i.type, null, { token: idOf('token', i.token), until: intOf('until', i.until, 1) });

    case 'NFT_CREATE':
      return tx(i.type, null, { name: assetName('name', i.name), symbol: symbolOf('symbol', i.symbol) });
    case 'NFT_MINT': {
      const data: Record<string, unknown> = { collection: idOf('collection', i.collection) };
      if (i.uri !== undefined) {
        if (typeof i.uri !== 'string') invalid('uri', `must be a string, got ${show(i.uri)}`);
        if (Buffer.byteLength(i.uri, 'utf8') > MAX_NFT_URI_BYTES) invalid('uri', `must be at most ${MAX_NFT_URI_BYTES} bytes of UTF-8`);
        data.uri = i.uri;
      }
      return tx(i.type, addressOf('to', i.to), data);
    }
    case 'NFT_TRANSFER':
      return tx(i.type, addressOf('to', i.to), { collection: idOf('collection', i.collection), item: intOf('item', i.item, 1) });
    case 'NFT_APPROVE':
      return tx(i.type, i.approved === null ? null : addressOf('approved', i.approved), {
        collection: idOf('collection', i.collection),
        item: intOf('item', i.item, 1),
      });
    case 'NFT_BURN':
      return tx(i.type, null, { collection: idOf('collection', i.collection), item: intOf('item', i.item, 1) });

    case 'NAME_REGISTER':
      return tx(
        i.type,
        i.target === undefined || i.target === null ? null : addressOf('target', i.target),
        { name: nsName(i.name) },
        NAME_REGISTRATION_COST.toString(10),
      );
    case 'NAME_UPDATE':
      return tx(i.type, addressOf('target', i.target), { name: nsName(i.name) });
    case 'NAME_TRANSFER':
      return tx(i.type, addressOf('owner', i.owner), { name: nsName(i.name) });
    case 'NAME_RELEASE':
      return tx(i.type, null, { name: nsName(i.name) });
    default:
      throw new CairnError(
        'INVALID_ASSET_TX',
        `type must be one of ${ASSET_TX_TYPES.join(', ')}, got ${show((i as { type?: unknown }).type)}`,
        { field: 'type' },
      );
  }
}

/**
 * The id of the token (TOKEN_CREATE) or collection (NFT_CREATE) a transaction creates,
 * known as soon as it is signed; undefined for other types.
 */
export function createdAssetId(tx: { type: string; id: Hex }): Hex | undefined {
  return tx.type === 'TOKEN_CREATE' || tx.type === 'NFT_CREATE' ? assetId(tx.id) : undefined;
}

export { assetId };

// ---------------------------------------------------------------------------------------
// Read endpoints (GET /tokens…, /nfts…, /names, /name/:name)

/** An opaque pagination cursor: pass a page's `nextBefore` as the next call's `before`. */
export type Cursor = string;

export interface PageOptions {
  limit?: number;
  before?: Cursor;
}


/** GET /tokens/:id (by id or symbol); also the entries of GET /tokens. */
export type TokenView = ServerTokenView;
export type TokenHolder = HolderView;
/** A mint has from null, a burn to null. */
export type TokenTransfer = TokenTransferView;
/** A collection as GET /nfts lists it: `supply` = minted − burned. */
export type CollectionView = ServerCollectionView;
/** GET /nfts/:collection:item. */
export type NftItemView = ItemView;
/** A name as GET /names lists it. */
export type NameEntry = ServerNameEntry;

export interface TokenList {
  tokens: TokenView[];
  nextBefore: Cursor | null;
}

export interface TokenHolders {
  token: Hex;
  holders: TokenHolder[];
  nextBefore: Cursor | null;
}

export interface TokenTransfers {
  token: Hex;
  transfers: TokenTransfer[];
  nextBefore: Cursor | null;
}

/** GET /nfts/:collection: the collection with a page of its live items, newest first. */
export interface CollectionDetail extends CollectionView {
  items: NftItemView[];
  nextBefore: Cursor | null;
}

export interface CollectionList {
  collections: CollectionView[];
  nextBefore: Cursor | null;
}

/** GET /name/:name. `address` is what the name resolves to. */
export interface NameView {
  name: string;
  address: Address;
  native: string;
  owner: Address;
  ownerNative: string;
  registeredAt: number;
}

export interface NameList {
  names: NameEntry[];
  nextBefore: Cursor | null;
}

/** `?limit=…&before=…` of a page request ('' when neither is set). */
export function pageQuery(opts: PageOptions = {}): string {
  const q: string[] = [];
  if (opts.limit !== undefined) q.push(`limit=${encodeURIComponent(String(opts.limit))}`);
  if (opts.before !== undefined) q.push(`before=${encodeURIComponent(opts.before)}`);
  return q.length === 0 ? '' : `?${q.join('&')}`;
}
