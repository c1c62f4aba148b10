import { html, type Html } from './html';

/** 1 coin = 1,000,000 base units (docs/API.md "Conventions"); amounts arrive as integer strings in base units. */
const COIN_DECIMALS = 6;

/** An integer string of base units as a decimal number with thousands separators. */
export function units(v: string | number | bigint, decimals = COIN_DECIMALS): string {
  let n = BigInt(v);
  const neg = n < 0n;
  if (neg) n = -n;
  const s = n.toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = decimals > 0 ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

export const coins = (v: string | number | bigint): string => `${units(v)} coin${BigInt(v) === 1_000_000n ? '' : 's'}`;

export const short = (h: string, n = 10): string => (h.length > n + 6 ? `${h.slice(0, n)}…${h.slice(-4)}` : h);

export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export const time = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

/** Links into the explorer's own pages (hash routes: the node serves one page). */
export const link = {
  block: (ref: string | number, text?: string): Html =>
    html`<a href="#/block/${String(ref)}">${text ?? String(ref)}</a>`,
  tx: (id: string): Html => html`<a class="mono" href="#/tx/${id}" title="${id}">${short(id)}</a>`,
  address: (a: string | null | undefined, label?: string | null): Html =>
    a
      ? html`<a class="mono" href="#/address/${a}" title="${a}">${label ?? short(a)}</a>`
      : html`<span class="muted">—</span>`,
  token: (id: string, symbol?: string): Html => html`<a href="#/token/${id}">${symbol ?? short(id)}</a>`,
  nft: (id: string, text?: string): Html => html`<a href="#/nft/${id}">${text ?? short(id)}</a>`,
  name: (n: string): Html => html`<a href="#/name/${n}">${n}</a>`,
  proposal: (id: string): Html => html`<a href="#/proposal/${id}">${short(id)}</a>`,
  task: (id: string): Html => html`<a class="mono" href="#/task/${id}">${short(id)}</a>`,
  transfer: (id: string): Html => html`<a class="mono" href="#/bridge/${id}">${short(id)}</a>`,
};

/** A status word as a coloured badge (the words are the API's own). */
export const badge = (status: string): Html => html`<span class="badge s-${status.toLowerCase()}">${status}</span>`;

/** One row of `facts`: a null value shows as a muted dash. */
const factRow = ([k, v]: [string, Html | string | number | null | undefined]) =>
  html`<tr><th>${k}</th><td>${v ?? html`<span class="muted">—</span>`}</td></tr>`;

/** A two-column table of labelled values. */
export const facts = (rows: [string, Html | string | number | null | undefined][]): Html =>
  html`<table class="facts">${rows.filter(([, v]) => v !== undefined).map(factRow)}</table>`;

const headRow = (head: string[]) => html`<tr>${head.map((h) => html`<th>${h}</th>`)}</tr>`;
const bodyRow = (r: (Html | string | number | null)[]) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`;

/** A table with a header row; `empty` when there are no rows. */
export const table = (head: string[], rows: (Html | string | number | null)[][], empty = 'Nothing yet.'): Html =>
  rows.length === 0
    ? html`<p class="muted">${empty}</p>`
    : html`<table class="list"><thead>${headRow(head)}</thead><tbody>${rows.map(bodyRow)}</tbody></table>`;

/** The event XState records for a machine's first state. */
const INIT = 'xstate.init';

type Transition = { from: string; to: string; event: string; height: number };

/** One transition of a timeline: its height, from → to, the event. */
function timelineItem(h: Transition): Html {
  const at = link.block(h.height, `#${h.height}`);
  const from = h.from && h.event !== INIT ? html`${badge(h.from)} → ` : '';
  const event = h.event === INIT ? 'created' : h.event;
  return html`<li><span class="at">${at}</span> ${from}${badge(h.to)} <span class="muted">${event}</span></li>`;
}

/** A machine's transitions as a vertical timeline: height, from → to, the event. */
export const timeline = (history: Transition[]): Html => html`<ol class="timeline">${history.map(timelineItem)}</ol>`;
