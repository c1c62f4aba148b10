import type { ContractMetadataView, ContractVerifyResult, InternalList, LogList } from '..';
import { FEED_PAGE, LONG_PAGE, TOO_LARGE } from './common';
import { address, addressFilter, defineRoute, intDefault, limit, view } from './define';

/** The VM's node-local indexes and contract verification. */
export const VM_ROUTES = {
  internal: defineRoute({
    method: 'GET',
    path: '/internal',
    ok: view<InternalList>('InternalList'),
    summary: 'Internal transfers moved by VM execution (node-local index)',
    query: {
      address: addressFilter('Only transfers from or to this account (0x or cairn1… address)'),
      from: intDefault('First height (default 0)', 0),
      limit: limit(FEED_PAGE),
    },
    errors: { 400: 'Bad address, from or limit' },
  }),
  logs: defineRoute({
    method: 'GET',
    path: '/logs',
    ok: view<LogList>('LogList'),
    summary: 'Recent VM events, newest first',
    query: { limit: limit(LONG_PAGE) },
    errors: { 400: 'limit malformed or 0' },
  }),
  contract: defineRoute({
    method: 'GET',
    path: '/contract/:addr',
    ok: view<ContractMetadataView>('ContractMetadataView'),
    summary: 'Verification metadata of a VM contract',
    nullIfMissing: true,
    params: { addr: address() },
    errors: { 400: 'Not an address', 404: 'No verified contract at that address' },
  }),
  verifyContract: defineRoute({
    method: 'POST',
    path: '/contract/:addr/verify',
    ok: view<ContractVerifyResult>('ContractVerifyResult'),
    summary: 'Verify a contract: Solidity source and settings',
    params: { addr: address() },
    body: { view: 'ContractVerifyRequest' },
    errors: {
      400: 'Bad address or body, compilation errors, or the compiled code does not match',
      404: 'No contract code at that address',
      413: TOO_LARGE,
      502: 'A service the node called failed (the solc compiler worker)',
    },
  }),
};
