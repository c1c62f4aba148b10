import type { SearchHit } from '../../views';
import { get } from '../api';
import { link, table } from '../format';
import { html } from '../html';
import type { Page } from './types';

/** The explorer route of a search hit. */
export function routeOf(h: SearchHit): string {
  switch (h.kind) {
    case 'address':
      return `#/address/${h.id}`;
    case 'block':
      return `#/block/${h.height ?? h.id}`;
    case 'transaction':
      return `#/tx/${h.id}`;
    case 'token':
      return `#/token/${h.id}`;
    case 'name':
      return `#/name/${h.name ?? h.id}`;
  }
}

export async function searchHits(q: string): Promise<SearchHit[]> {
  return (await get<{ results: SearchHit[] }>(`/search?q=${encodeURIComponent(q)}`)).results;
}

/** A search hit as a link to its page (a block's also links its height). */
function hitLink(h: SearchHit) {
  const height = h.kind === 'block' && h.height !== undefined ? html` (${link.block(h.height)})` : '';
  return html`<a href="${routeOf(h)}">${h.symbol ?? h.name ?? h.native ?? h.id}</a>${height}`;
}

export async function search(q: string): Promise<Page> {
  const hits = await searchHits(q);
  return {
    title: `Search “${q}”`,
    body: table(
      ['Kind', 'Found'],
      hits.map((h) => [h.kind, hitLink(h)]),
      'Nothing found: search takes an address (0x or cairn1), a block height or hash, a transaction id, a ' +
        'token symbol or name, or a name — or a prefix of one.',
    ),
  };
}
