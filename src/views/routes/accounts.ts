import type { AccountProofView, AccountView, AddressTxsView, AnalysisView } from '..';
import { FEED_PAGE } from './common';
import { address, defineRoute, int, limit, view } from './define';

/** Accounts: the account, its transactions, its aggregates and its Merkle proof. */
export const ACCOUNT_ROUTES = {
  account: defineRoute({
    method: 'GET',
    path: '/address/:end',
    ok: view<AccountView>('AccountView'),
    nullIfMissing: true,
    summary: 'Account by 0x or cairn1 address, with its FT20 holdings; 404 if never funded and holding no tokens',
    params: { end: address() },
    errors: {
      400: 'Not an address',
      404: 'The account has never received anything and holds no tokens (treat as balance 0, nonce 0)',
    },
  }),
  addressTxs: defineRoute({
    method: 'GET',
    path: '/address/:end/txs',
    ok: view<AddressTxsView>('AddressTxsView'),
    summary: 'Wallet transactions, newest first',
    params: { end: address() },
    query: {
      limit: limit(FEED_PAGE),
      before: int('Only transactions below this height (the `nextBefore` of the previous page)'),
    },
    errors: { 400: 'Not an address, or limit/before malformed' },
  }),
  analysis: defineRoute({
    method: 'GET',
    path: '/address/:end/analysis',
    ok: view<AnalysisView>('AnalysisView'),
    summary: 'Account aggregates',
    params: { end: address() },
    errors: { 400: 'Not an address' },
  }),
  proof: defineRoute({
    method: 'GET',
    path: '/proof/:end',
    ok: view<AccountProofView>('AccountProofView'),
    summary: 'Merkle proof of the account against a block stateRoot',
    description:
      'Check it with verifyAccountProof(stateRoot, address, proof), taking the stateRoot from a header you ' +
      'trust, not from this same answer.',
    params: { end: address() },
    query: { height: int('Block whose stateRoot the proof is against (default: the head)') },
    errors: {
      400: 'Not an address, or height malformed',
      404: 'No block at that height, or its state is pruned (the error says from which height this node keeps state)',
    },
  }),
};
