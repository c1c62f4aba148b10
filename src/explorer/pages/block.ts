import type { BlockView } from '../../views';
import { find } from '../api';
import { badge, facts, link, table, time, units } from '../format';
import { html } from '../html';
import type { Page } from './types';

export async function block(ref: string): Promise<Page> {
  const b = await find<BlockView>(`/blocks/${encodeURIComponent(ref)}`);
  if (!b) return { title: 'Block not found', body: html`<p>No block <code>${ref}</code> on this node.</p>` };
  const previous = b.height > 0 ? link.block(b.height - 1, '← previous') : '';
  return {
    title: `Block ${b.height}`,
    body: html`
      <p class="nav">${previous} ${link.block(b.height + 1, 'next →')}</p>
      ${facts([
        ['Height', String(b.height)],
        ['Hash', html`<span class="mono">${b.hash}</span>`],
        ['Finality', b.finalized ? badge('final') : badge('pending')],
        ['Time', time(b.timestamp)],
        ['Producer', link.address(b.producer, b.producerNative)],
        ['Parent', b.height > 0 ? html`<a class="mono" href="#/block/${b.parentHash}">${b.parentHash}</a>` : null],
        ['State root', html`<span class="mono">${b.stateRoot}</span>`],
        ['Tx root', html`<span class="mono">${b.txRoot}</span>`],
        ['Transactions', String(b.txCount)],
        ['Size', `${b.size.toLocaleString('en')} bytes`],
      ])}
      <h2>Transactions</h2>
      ${table(
        ['#', 'Id', 'Type', 'From', 'To', 'Amount', 'Result'],
        b.txs.map((t) => [
          t.index ?? '',
          link.tx(t.id),
          t.type,
          link.address(t.from),
          link.address(t.to),
          units(t.amount),
          t.result ? badge(t.result.status) : '',
        ]),
        'No transactions in this block.',
      )}`,
  };
}
