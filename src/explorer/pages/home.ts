import type { BlockSummaryView, StatsView, StatusView, TxSummary } from '../../views';
import { get } from '../api';
import { chart } from '../charts';
import { ago, badge, coins, link, table, units } from '../format';
import { html } from '../html';
import type { Page } from './types';

const card = (label: string, value: string, id?: string) => {
  const attrs = id ? html` id="${id}"` : '';
  return html`<div class="card"${attrs}><div class="label">${label}</div><div class="value">${value}</div></div>`;
};

export async function home(): Promise<Page> {
  const [status, stats, { blocks }, { txs }] = await Promise.all([
    get<StatusView>('/status'),
    get<StatsView>('/stats'),
    get<{ blocks: BlockSummaryView[] }>('/blocks?limit=100'),
    get<{ txs: TxSummary[] }>('/txs?limit=12'),
  ]);
  const body = html`
    <section class="cards">
      ${card('Height', String(status.height))}
      ${card('Finalized', String(status.finalizedHeight))}
      ${card('TPS (1 h)', stats.tps.toFixed(2))}
      ${card('Volume 24 h', coins(stats.volume24h))}
      ${card('Transactions', String(stats.transactions))}
      ${card('Accounts', String(stats.accounts))}
      ${card('Supply', coins(status.supply))}
      ${card('Staked', coins(status.staked))}
    </section>
    <section class="charts">
      <div class="chart" id="chart-tps"></div>
      <div class="chart" id="chart-volume"></div>
      <div class="chart" id="chart-blocks"></div>
    </section>
    <section class="two">
      <div><h2>Latest blocks</h2>${table(
        ['Height', 'Age', 'Txs', 'Producer', ''],
        blocks
          .slice(0, 12)
          .map((b) => [
            link.block(b.height),
            ago(b.timestamp),
            b.txCount,
            link.address(b.producer),
            b.finalized ? badge('final') : badge('pending'),
          ]),
      )}</div>
      <div><h2>Latest transactions</h2>${table(
        ['Id', 'Type', 'From', 'Amount', 'Status'],
        txs.map((t) => [link.tx(t.id), t.type, link.address(t.from), units(t.amount), badge(t.status)]),
      )}</div>
    </section>`;
  return {
    title: 'Overview',
    body,
    mount(root) {
      // /stats' hourly series: TPS is the hour's transactions over its 3,600 seconds.
      const xs = stats.series.map((h) => h.time / 1000);
      chart(
        root.querySelector('#chart-tps')!,
        'Transactions per second, by hour',
        xs,
        [{ label: 'TPS', values: stats.series.map((h) => h.txs / 3600), color: '#2b6cb0' }],
        { time: true },
      );
      chart(
        root.querySelector('#chart-volume')!,
        'Volume by hour (coins)',
        xs,
        [{ label: 'coins', values: stats.series.map((h) => Number(BigInt(h.volume) / 1_000_000n)), color: '#2f855a' }],
        { time: true },
      );
      const recent = [...blocks].reverse();
      chart(
        root.querySelector('#chart-blocks')!,
        'Transactions per block (latest 100)',
        recent.map((b) => b.height),
        [{ label: 'txs', values: recent.map((b) => b.txCount), color: '#b7791f' }],
      );
    },
  };
}
