/**
 * The block explorer the node serves at GET / (http/explorer.ts bundles this file with
 * esbuild when the node starts). It only reads the node's own JSON API, same origin, so
 * it works offline. Pages are hash routes (#/tx/<id>) and refresh themselves while shown.
 */
import type { StatusView } from '../views';
import { get } from './api';
import { html } from './html';
import { account } from './pages/account';
import * as ai from './pages/ai';
import { name, names, nft, nfts, token, tokens } from './pages/assets';
import { block } from './pages/block';
import * as bridgePages from './pages/bridge';
import * as governance from './pages/governance';
import { home } from './pages/home';
import { routeOf, search, searchHits } from './pages/search';
import { tx } from './pages/tx';
import type { PageFn } from './pages/types';
import { validators } from './pages/validators';
import 'uplot/dist/uPlot.min.css';
import './style.css';

const ROUTES: Record<string, PageFn> = {
  '': home,
  block,
  tx,
  address: account,
  token,
  tokens,
  nft,
  nfts,
  name,
  names,
  validators,
  proposals: governance.proposals,
  proposal: governance.proposal,
  tasks: ai.tasks,
  task: ai.task,
  bridge: (arg) => (arg ? bridgePages.transfer(arg) : bridgePages.bridge()),
  search,
};

/** How often the shown page re-reads the node (a block is 500 ms by default). */
const REFRESH_MS = 3000;

const main = document.querySelector<HTMLElement>('#page')!;
const head = document.querySelector<HTMLElement>('#head')!;
let shown = '';
let rendering = false;
/** A route change while a page was loading: render again once it is done. */
let queued = false;

function parseRoute(hash: string): { kind: string; arg: string } {
  const [kind = '', ...rest] = hash.replace(/^#\/?/, '').split('/');
  return { kind, arg: decodeURIComponent(rest.join('/')) };
}

async function renderHead(): Promise<void> {
  const s = await get<StatusView>('/status');
  const [h, f] = [String(s.height), String(s.finalizedHeight)];
  const height = html`<a id="head-height" href="#/block/${h}">${h}</a>`;
  const finalized = html`<a id="head-final" href="#/block/${f}">${f}</a>`;
  const behind = html`<span class="muted">(${String(s.height - s.finalizedHeight)} behind)</span>`;
  const chain = html`<span title="chain id">chain ${String(s.chainId)}</span>`;
  head.innerHTML = html`${chain} · height ${height} · finalized ${finalized} ${behind}`.text;
}

async function render(force = false): Promise<void> {
  if (rendering) {
    queued ||= force;
    return;
  }
  rendering = true;
  const hash = location.hash;
  const { kind, arg } = parseRoute(hash);
  try {
    const fn = ROUTES[kind];
    const page = fn ? await fn(arg) : { title: 'Not found', body: html`<p>No page <code>${hash}</code>.</p>` };
    if (hash !== location.hash) return; // the user moved on while this page loaded
    // A re-render of the same page keeps the reader's place.
    const y = force ? 0 : window.scrollY;
    main.innerHTML = html`<h1>${page.title}</h1>${page.body}`.text;
    page.mount?.(main);
    document.title = `${page.title} · Cairn explorer`;
    if (hash !== shown) window.scrollTo(0, 0);
    else window.scrollTo(0, y);
    shown = hash;
    // What a test (or a script) waits for: the page of this hash is on screen.
    main.dataset.hash = hash;
    main.dataset.ready = 'true';
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    const retrying = html`<p class="muted">Retrying every ${String(REFRESH_MS / 1000)} s.</p>`;
    main.innerHTML = html`<h1>The node did not answer</h1><p class="error">${error}</p>${retrying}`.text;
  } finally {
    rendering = false;
  }
  if (queued) {
    queued = false;
    return render(true);
  }
  renderHead().catch(() => {
    head.textContent = 'node unreachable';
  });
}

/** A search with one hit goes straight to it; several show a list. */
document.querySelector<HTMLFormElement>('#search')!.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const q = (document.querySelector<HTMLInputElement>('#q')!.value ?? '').trim();
  if (!q) return;
  try {
    const hits = await searchHits(q);
    location.hash = hits.length === 1 ? routeOf(hits[0]) : `#/search/${encodeURIComponent(q)}`;
  } catch {
    location.hash = `#/search/${encodeURIComponent(q)}`;
  }
});

window.addEventListener('hashchange', () => {
  main.dataset.ready = 'false';
  void render(true);
});
setInterval(() => {
  if (document.visibilityState === 'visible' && !window.getSelection()?.toString()) void render();
}, REFRESH_MS);
void render(true);
