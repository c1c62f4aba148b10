import type { ProposalView, ProposalsPage } from '../../views';
import { find, get } from '../api';
import { chart } from '../charts';
import { badge, coins, facts, link, table, timeline } from '../format';
import { html } from '../html';
import type { Page } from './types';

const coinsOf = (v: string) => Number(BigInt(v) / 1_000_000n);

export async function proposals(): Promise<Page> {
  const { proposals: list } = await get<ProposalsPage>('/governance/proposals?limit=100');
  return {
    title: 'Governance proposals',
    body: table(
      ['Id', 'Status', 'Action', 'Proposer', 'Yes', 'No', 'Voting ends', 'Updated'],
      list.map((p) => [
        link.proposal(p.id),
        badge(p.status),
        html`<code>${JSON.stringify(p.action)}</code>`,
        link.address(p.proposer),
        coins(p.tally.yes),
        coins(p.tally.no),
        link.block(p.votingEnds),
        link.block(p.updatedAt),
      ]),
      'No proposals yet.',
    ),
  };
}

export async function proposal(id: string): Promise<Page> {
  const p = await find<ProposalView>(`/governance/proposals/${encodeURIComponent(id)}`);
  if (!p) return { title: 'Proposal not found', body: html`<p>No proposal <code>${id}</code>.</p>` };
  const quorum = badge(p.tally.quorumReached ? 'quorum' : 'below-quorum');
  return {
    title: `Proposal ${p.id}`,
    body: html`
      ${facts([
        ['Status', badge(p.status)],
        ['Action', html`<code>${JSON.stringify(p.action)}</code>`],
        ['Proposer', link.address(p.proposer)],
        ['Deposit', coins(p.deposit)],
        ['Created', link.block(p.createdAt)],
        ['Voting ends', link.block(p.votingEnds)],
        ['Decided', p.decidedAt !== null ? link.block(p.decidedAt) : null],
        ['Executes at', p.executeAt !== null ? link.block(p.executeAt) : null],
        ['Failure', p.failure ?? undefined],
        [
          'Tally',
          `yes ${coins(p.tally.yes)} · no ${coins(p.tally.no)} · abstain ${coins(p.tally.abstain)} · ` +
            `veto ${coins(p.tally.veto)} · ${p.tally.voters} voters`,
        ],
        ['Turnout', html`${coins(p.tally.turnout)} of quorum ${coins(p.tally.quorum)} ${quorum}`],
        [
          'Rules',
          `quorum ${p.rules.quorumBps / 100} %, threshold ${p.rules.thresholdBps / 100} %, ` +
            `veto ${p.rules.vetoBps / 100} %, timelock ${p.rules.timelock} blocks`,
        ],
      ])}
      <div class="chart" id="chart-tally"></div>
      <h2>Transitions</h2>${timeline(p.history)}`,
    mount(root) {
      // The tally after each change, by height; a proposal without votes shows its start at zero.
      const h = p.tallyHistory.length
        ? p.tallyHistory
        : [{ height: p.createdAt, yes: '0', no: '0', abstain: '0', veto: '0', voters: 0 }];
      chart(
        root.querySelector('#chart-tally')!,
        'Tally over time (coins of stake)',
        h.map((t) => t.height),
        [
          { label: 'yes', values: h.map((t) => coinsOf(t.yes)), color: '#2f855a' },
          { label: 'no', values: h.map((t) => coinsOf(t.no)), color: '#c53030' },
          { label: 'abstain', values: h.map((t) => coinsOf(t.abstain)), color: '#718096' },
          { label: 'veto', values: h.map((t) => coinsOf(t.veto)), color: '#6b46c1' },
        ],
        { stepped: true },
      );
    },
  };
}
