import type {
  CollectionList,
  NameList,
  NameResolutionView,
  NftView,
  TokenHolders,
  TokenList,
  TokenTransfers,
  TokenView,
} from '..';
import { cursor, FEED_PAGE, heightBefore } from './common';
import { assetRef, defineRoute, limit, nftRef, segment, view } from './define';

/** FT20 tokens, NFT721 collections and names (node-local indexes). */

const tokenRef = assetRef('token', 'Token: 0x + 40 hex digits (any case) or its symbol (any case)');
const NEXT_PAGE = 'Pass nextBefore as --before for the next page.';

export const ASSET_ROUTES = {
  tokens: defineRoute({
    method: 'GET',
    path: '/tokens',
    ok: view<TokenList>('TokenList'),
    summary:
      'FT20 tokens, newest first (node-local index; before = a block height, e.g. the nextBefore of the previous page)',
    query: { limit: limit(FEED_PAGE), before: heightBefore },
    errors: { 400: 'limit or before malformed' },
    cli: { command: 'token list', help: `Prints {tokens, nextBefore}. ${NEXT_PAGE}` },
  }),
  token: defineRoute({
    method: 'GET',
    path: '/tokens/:id',
    ok: view<TokenView>('TokenView'),
    summary: 'Token by id or symbol, with holder count',
    nullIfMissing: true,
    params: { id: tokenRef },
    errors: { 400: 'Neither a token id nor a symbol', 404: 'No such token' },
    cli: {
      command: 'token info',
      help: 'Prints the token: id, name, symbol, decimals, owner, supply, paused…',
      example: 'cairn token info CUSD',
    },
  }),
  tokenHolders: defineRoute({
    method: 'GET',
    path: '/tokens/:id/holders',
    ok: view<TokenHolders>('TokenHolders'),
    summary: 'Token holders, largest balance first',
    params: { id: tokenRef },
    query: { limit: limit(FEED_PAGE), before: cursor },
    errors: { 400: 'Bad token reference, limit or cursor', 404: 'No such token' },
    cli: {
      command: 'token holders',
      help: `Prints {token, holders: [{address, native, balance}], nextBefore}. ${NEXT_PAGE}`,
      example: 'cairn token holders CUSD --limit 20',
    },
  }),
  tokenTransfers: defineRoute({
    method: 'GET',
    path: '/tokens/:id/transfers',
    ok: view<TokenTransfers>('TokenTransfers'),
    summary: 'Token transfers, mints and burns, newest first',
    params: { id: tokenRef },
    query: { limit: limit(FEED_PAGE), before: heightBefore },
    errors: { 400: 'Bad token reference, limit or before', 404: 'No such token' },
    cli: {
      command: 'token transfers',
      help:
        `Prints {token, transfers: [{txId, kind, from, to, amount, blockHeight…}], nextBefore}. Mints have from ` +
        `null, burns to null. ${NEXT_PAGE}`,
    },
  }),
  nfts: defineRoute({
    method: 'GET',
    path: '/nfts',
    ok: view<CollectionList>('CollectionList'),
    summary: 'NFT721 collections, newest first',
    query: { limit: limit(FEED_PAGE), before: heightBefore },
    errors: { 400: 'limit or before malformed' },
    cli: { command: 'nft list', help: `Prints {collections, nextBefore}. ${NEXT_PAGE}` },
  }),
  nft: defineRoute({
    method: 'GET',
    path: '/nfts/:id',
    ok: view<NftView>('NftView'),
    nullIfMissing: true,
    summary: 'Collection (id or symbol) with its items newest first, or one item as <collection>:<item>',
    params: {
      id: nftRef('A collection (0x + 40 hex digits or its symbol), or one item as <collection>:<item> (items from 1)'),
    },
    query: { limit: limit(FEED_PAGE, 'Items per page of a collection'), before: cursor },
    errors: { 400: 'Bad collection or item reference, limit or cursor', 404: 'No such collection or item' },
    cli: {
      command: 'nft info',
      help: 'Prints the collection with a page of its items, or one item (<collection>:<item>): owner, uri, mintedAt…',
      example: 'cairn nft info STONE:3',
    },
  }),
  names: defineRoute({
    method: 'GET',
    path: '/names',
    ok: view<NameList>('NameList'),
    summary: 'Registered names, newest first',
    query: { limit: limit(FEED_PAGE), before: heightBefore },
    errors: { 400: 'limit or before malformed' },
    cli: { command: 'name list', help: `Prints {names, nextBefore}. ${NEXT_PAGE}` },
  }),
  resolveName: defineRoute({
    method: 'GET',
    path: '/name/:name',
    ok: view<NameResolutionView>('NameResolutionView'),
    summary: 'Name resolution: target address and owner',
    nullIfMissing: true,
    params: { name: segment('3–32 characters of a–z, 0–9 and -, not starting or ending with -') },
    errors: { 404: 'Not registered (also for anything that cannot be a name)' },
    cli: {
      command: 'name resolve',
      help: 'Prints {name, address, native, owner, ownerNative, registeredAt}.',
      example: 'cairn name resolve alice',
    },
  }),
};
