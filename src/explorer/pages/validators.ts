import type { ValidatorView, ValidatorsView } from '../../views';
import { get } from '../api';
import { badge, coins, facts, link, table } from '../format';
import { html } from '../html';
import type { Page } from './types';

/** Productivity (0..1) as a bar: what a validator operator looks at first. */
const bar = (p: number) => {
  const pct = (p * 100).toFixed(1);
  const fill = String(Math.round(p * 100));
  return html`<span class="bar" title="${pct} %"><span style="width:${fill}%"></span></span> ${pct} %`;
};

const PRODUCING = html` <span class="badge s-now">producing</span>`;

const rows = (list: ValidatorView[], slot: string) =>
  list.map((v) => [
    html`${link.address(v.address, v.native)}${v.address === slot ? PRODUCING : ''}`,
    badge(v.performance.status),
    coins(v.stake),
    coins(v.weight),
    `${(v.commissionBps / 100).toFixed(2)} %`,
    `${v.performance.produced} / ${v.performance.expected.toFixed(1)}`,
    v.performance.missed,
    bar(v.performance.productivity),
    v.lastProduced !== null ? link.block(v.lastProduced) : '—',
    v.jailed ? `${v.jailed.reason} at ${v.jailed.at}` : '',
  ]);

const HEAD = [
  'Validator',
  'Status',
  'Stake',
  'Weight',
  'Commission',
  'Produced / expected',
  'Missed',
  'Productivity',
  'Last block',
  'Jailed',
];

export async function validators(): Promise<Page> {
  const v = await get<ValidatorsView>('/validators');
  const bank = table(HEAD, rows(v.bank, v.slotProducer), 'Nobody on standby.');
  return {
    title: 'Validators',
    body: html`
      ${facts([
        ['Epoch', `${v.epoch} (${v.epochBlocks} blocks each; next election at ${v.nextElection})`],
        ['Set in force', `${v.inForce.length} of at most ${v.maxValidators}, since height ${v.inForceSince}`],
        ['Producing this slot', link.address(v.slotProducer)],
        ['Jailed after', `${v.jailAfterBlocks} blocks without one of its own`],
        ['Performance window', `${v.performanceWindow} blocks`],
        [
          'Pending sets',
          v.pending.length
            ? v.pending.map((p) => `${p.active.length} validators decided at ${p.decidedAt}`).join('; ')
            : 'none',
        ],
      ])}
      <h2>Active</h2>${table(HEAD, rows(v.active, v.slotProducer))}
      <h2>Standby bank (${String(v.bankSize)} seats)</h2>${bank}
      <h2>Candidates</h2>${table(HEAD, rows(v.candidates, v.slotProducer), 'No other candidates.')}`,
  };
}
