import type {
  BlockList,
  BlockView,
  ChainPage,
  MempoolView,
  SearchView,
  StatsView,
  StatusView,
  TxList,
  TxRecord,
} from '..';
import { CHAIN_PAGE, FEED_PAGE, LONG_PAGE } from './common';
import { defineRoute, id64, int, intDefault, limit, segment, str, view } from './define';

/** The chain: status, blocks, the mempool, transactions and search. */
export const CHAIN_ROUTES = {
  status: defineRoute({
    method: 'GET',
    path: '/status',
    ok: view<StatusView>('StatusView'),
    summary: 'Chain state: height, finalizedHeight, head hash, supply, treasury, validators, block reward',
  }),
  latestBlock: defineRoute({
    method: 'GET',
    path: '/blocks/latest',
    ok: view<BlockView>('BlockView'),
    summary: 'Chain head',
  }),
  blocks: defineRoute({
    method: 'GET',
    path: '/blocks',
    ok: view<BlockList>('BlockList'),
    summary: 'Blocks, newest first from height `from`',
    query: {
      limit: limit(FEED_PAGE),
      from: int('Newest height of the page (default: the head; larger values mean the head)'),
    },
    errors: { 400: 'limit or from malformed, or limit 0' },
  }),
  block: defineRoute({
    method: 'GET',
    path: '/blocks/:ref',
    ok: view<BlockView>('BlockView'),
    summary: 'Block by height or hash, with size',
    nullIfMissing: true,
    params: { ref: segment('A height, or a block hash (0x + 64 hex digits)') },
    errors: {
      404: 'No block at that height or with that hash, or its history is pruned (the error says from which height this node keeps it)',
    },
  }),
  chain: defineRoute({
    method: 'GET',
    path: '/chain',
    ok: view<ChainPage>('ChainPage'),
    summary:
      'Contiguous full blocks with height, hash and size on top ' +
      '(at most 2000 per page: MAX_CHAIN_PAGE; a larger limit is capped)',
    query: {
      from: intDefault('First height of the page (default 0)', 0),
      limit: limit(CHAIN_PAGE, 'Blocks asked for'),
    },
    errors: {
      400: 'from or limit malformed, or limit 0',
      404: 'from is below the history this node keeps (--history: the error says from which height)',
    },
  }),
  mempool: defineRoute({
    method: 'GET',
    path: '/mempool',
    ok: view<MempoolView>('MempoolView'),
    summary:
      'Pending transactions, oldest first (limit: default 100; a larger limit than 1000 is capped), with the ' +
      "pool's size",
    query: { limit: limit(LONG_PAGE) },
    errors: { 400: 'limit malformed or 0' },
  }),
  stats: defineRoute({
    method: 'GET',
    path: '/stats',
    ok: view<StatsView>('StatsView'),
    summary: 'Accounts, stake, 24h volume, TPS, hourly series',
  }),
  txs: defineRoute({
    method: 'GET',
    path: '/txs',
    ok: view<TxList>('TxList'),
    summary: 'Global transaction feed',
    query: { limit: limit(FEED_PAGE) },
    errors: { 400: 'limit malformed or 0' },
  }),
  tx: defineRoute({
    method: 'GET',
    path: '/tx/:id',
    ok: view<TxRecord>('TxRecord'),
    summary: 'Transaction, in mempool or in a block',
    nullIfMissing: true,
    params: { id: id64('Transaction id: 0x + 64 hex digits', 'transaction id must be 0x followed by 64 hex digits') },
    errors: {
      400: 'Not 0x + 64 hex digits',
      404: 'Not known to this node (it may still be propagating, or be older than the history it keeps)',
    },
  }),
  search: defineRoute({
    method: 'GET',
    path: '/search',
    ok: view<SearchView>('SearchView'),
    summary: 'Prefix search over addresses, blocks, transactions, tokens (symbol or name) and names',
    query: {
      q: {
        ...str('Prefix to search (first 200 characters; empty: no results; given twice, the first)'),
        repeated: 'first',
      },
    },
  }),
};
