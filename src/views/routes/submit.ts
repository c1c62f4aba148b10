import type { BlockIntakeView, SubmitVerdictView } from '..';
import { TOO_LARGE } from './common';
import { defineRoute, view } from './define';

/** What enters the node: transactions, and blocks from peers. */
export const SUBMIT_ROUTES = {
  postTx: defineRoute({
    method: 'POST',
    path: '/tx',
    ok: view<SubmitVerdictView>('SubmitVerdictView'),
    body: { view: 'TxEnvelope' },
    summary: 'Submit a hybrid-signed transaction envelope',
    description: 'A refused transaction is not an HTTP error: 200 with accepted false and the reason.',
    errors: { 400: 'Malformed envelope or a rule of its type broken', 413: TOO_LARGE },
  }),
  postVmTx: defineRoute({
    method: 'POST',
    path: '/vm/tx',
    ok: view<SubmitVerdictView>('SubmitVerdictView'),
    body: { view: 'VmTxRequest' },
    summary: 'Submit a signed Ethereum transaction {raw}',
    errors: { 400: 'No raw transaction, or it cannot be decoded', 413: TOO_LARGE },
  }),
  postBlock: defineRoute({
    method: 'POST',
    path: '/blocks',
    ok: view<BlockIntakeView>('BlockIntakeView'),
    body: { view: 'BlockBody' },
    summary: 'A block gossiped by a peer: {status: imported | known | stale | orphan, height} or 400 {error}',
    errors: { 400: 'Malformed or invalid block (nothing changes)', 413: TOO_LARGE },
  }),
};
