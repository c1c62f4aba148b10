import type { StatusView, TxRecord } from '../../views';
import { find, get } from '../api';
import { badge, coins, facts, link, time } from '../format';
import { html } from '../html';
import type { Page } from './types';

/** The happy path of the transaction lifecycle (the node's status words); a refusal, drop or undo leaves it. */
const PATH = ['submitted', 'pending', 'included', 'finalized'] as const;

function lifecycle(status: string) {
  const at = PATH.indexOf(status as (typeof PATH)[number]);
  if (at < 0) {
    const steps = PATH.map((s) => html`<span class="step">${s}</span>`);
    return html`<div class="lifecycle off">${steps} <span class="step now bad">${status}</span></div>`;
  }
  const steps = PATH.map((s, i) => html`<span class="step${i < at ? ' done' : i === at ? ' now' : ''}">${s}</span>`);
  return html`<div class="lifecycle">${steps}</div>`;
}

export async function tx(id: string): Promise<Page> {
  const [t, status] = await Promise.all([find<TxRecord>(`/tx/${encodeURIComponent(id)}`), get<StatusView>('/status')]);
  if (!t)
    return {
      title: 'Transaction not found',
      body: html`<p>No transaction <code>${id}</code> on this node: not in its mempool nor in a block.</p>`,
    };
  const depth = t.blockHeight !== undefined ? status.height - t.blockHeight : null;
  const toFinal =
    t.blockHeight !== undefined && t.status === 'included' ? t.blockHeight - status.finalizedHeight : null;
  const reason = t.reason ? html` <span class="muted">${t.reason}</span>` : '';
  const finalized = `finalized height ${status.finalizedHeight}`;
  const finalWhen =
    toFinal !== null ? html` <span class="muted">final when block ${t.blockHeight} is (${finalized})</span>` : '';
  const where = html`<span class="muted">(index ${String(t.index)}, ${String(depth)} blocks deep)</span>`;
  const error = t.result?.error ? html` <span class="muted">${t.result.error}</span>` : '';
  return {
    title: `Transaction ${t.type}`,
    body: html`
      ${lifecycle(t.status)}
      ${facts([
        ['Id', html`<span class="mono">${t.id}</span>`],
        ['Status', html`${badge(t.status)}${reason}${finalWhen}`],
        ['Type', t.type],
        ['From', link.address(t.from, t.fromNative)],
        ['To', link.address(t.to, t.toNative)],
        ['Amount', coins(t.amount)],
        ['Fee', coins(t.fee)],
        ['Nonce', String(t.nonce)],
        ['Signed at', time(t.timestamp)],
        ['Received', t.receivedAt ? time(t.receivedAt) : undefined],
        ['Block', t.blockHeight !== undefined ? html`${link.block(t.blockHeight)} ${where}` : null],
        [
          'Result',
          t.result
            ? html`${badge(t.result.status)}${error} · energy ${t.result.energyUsed} · burned ${coins(t.result.burned)}`
            : null,
        ],
        [
          'Signed with',
          t.publicKeys
            ? 'secp256k1 + ML-DSA-44 (hybrid)'
            : t.envelope === 'eth'
              ? 'Ethereum transaction (secp256k1)'
              : undefined,
        ],
      ])}
      ${t.result?.events?.length ? html`<h2>Events</h2><pre>${JSON.stringify(t.result.events, null, 2)}</pre>` : ''}
      ${t.data && Object.keys(t.data).length ? html`<h2>Data</h2><pre>${JSON.stringify(t.data, null, 2)}</pre>` : ''}`,
  };
}
