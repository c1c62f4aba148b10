import type { OraclesView, TaskView, TasksPage } from '../../views';
import { find, get } from '../api';
import { badge, coins, facts, link, table, timeline } from '../format';
import { html } from '../html';
import type { Page } from './types';

const inBlocks = (n: number) => html`<strong>(in ${String(n)} blocks)</strong>`;

export async function tasks(): Promise<Page> {
  const [{ tasks: list }, o] = await Promise.all([
    get<TasksPage>('/ai/tasks?limit=100'),
    get<OraclesView>('/ai/oracles'),
  ]);
  return {
    title: 'AI tasks',
    body: html`
      <h2>Tasks</h2>
      ${table(
        ['Id', 'Status', 'Mode', 'Prompt', 'Reward', 'Result', 'Next'],
        list.map((t) => [
          link.task(t.id),
          badge(t.status),
          t.mode,
          t.prompt.length > 60 ? `${t.prompt.slice(0, 60)}…` : t.prompt,
          coins(t.reward),
          t.result,
          t.next ? `${t.next.what} in ${t.next.inBlocks} blocks` : '',
        ]),
        'No tasks yet.',
      )}
      <h2>Oracles</h2>
      ${table(
        ['Oracle', 'Status', 'Stake', 'Reputation', 'Completed', 'Failed', 'Missed', 'Slashes'],
        o.oracles.map((x) => [
          link.address(x.address, x.native),
          html`${badge(x.status)}${x.why ? html` <span class="muted">${x.why}</span>` : ''}`,
          coins(x.stake),
          x.reputation,
          x.completed,
          x.failed,
          x.missed,
          x.slashes,
        ]),
        'No oracles registered.',
      )}`,
  };
}

export async function task(id: string): Promise<Page> {
  const t = await find<TaskView>(`/ai/tasks/${encodeURIComponent(id)}`);
  if (!t) return { title: 'Task not found', body: html`<p>No AI task <code>${id}</code>.</p>` };
  const d = t.deadlines;
  return {
    title: `AI task (${t.mode})`,
    body: html`
      ${facts([
        ['Id', html`<span class="mono">${t.id}</span>`],
        ['Status', badge(t.status)],
        [
          'Next',
          t.next
            ? html`${t.next.what} at ${link.block(t.next.height)} ${inBlocks(t.next.inBlocks)}`
            : 'waiting on a transaction',
        ],
        ['Prompt', t.prompt],
        ['Mode', `${t.mode}, ${t.aggregate}${t.quorum !== null ? `, quorum ${t.quorum}` : ''}`],
        ['Requester', link.address(t.requester)],
        ['Reward', coins(t.reward)],
        ['Price', t.price !== null ? coins(t.price) : undefined],
        ['Oracle', t.oracle ? link.address(t.oracle) : undefined],
        ['Result', t.result !== null ? html`<strong>${t.result}</strong>` : null],
        ['Winners', t.winners.length ? html`${t.winners.map((w) => html`${link.address(w)} `)}` : undefined],
        ['Challenger', t.challenger ? html`${link.address(t.challenger)} (bond ${coins(t.bond ?? '0')})` : undefined],
        [
          'Deadlines',
          Object.entries(d)
            .filter(([, h]) => h !== null)
            .map(([k, h]) => `${k} ${h}`)
            .join(' · ') || null,
        ],
      ])}
      <h2>State timeline</h2>${timeline(t.history)}
      ${
        t.commits.length
          ? html`<h2>Commits</h2>${table(
              ['Oracle', 'Commitment', 'Block'],
              t.commits.map((c) => [
                link.address(c.oracle),
                html`<span class="mono">${c.commit}</span>`,
                link.block(c.height),
              ]),
            )}`
          : ''
      }
      ${
        t.reveals.length
          ? html`<h2>Reveals</h2>${table(
              ['Oracle', 'Output', 'Block'],
              t.reveals.map((r) => [link.address(r.oracle), r.output, link.block(r.height)]),
            )}`
          : ''
      }
      ${
        t.bids.length
          ? html`<h2>Bids</h2>${table(
              ['Oracle', 'Price', 'Block'],
              t.bids.map((b) => [link.address(b.oracle), coins(b.price), link.block(b.height)]),
            )}`
          : ''
      }
      ${
        t.verdicts.length
          ? html`<h2>Verdicts</h2>${table(
              ['Juror', 'Verdict'],
              t.verdicts.map((v) => [link.address(v.juror), v.verdict]),
            )}`
          : ''
      }`,
  };
}
