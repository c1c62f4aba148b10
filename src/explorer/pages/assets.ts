import type {
  CollectionDetail,
  CollectionList,
  ItemView,
  NameList,
  NameResolutionView,
  TokenHolders,
  TokenList,
  TokenTransfers,
  TokenView,
} from '../../views';
import { find, get } from '../api';
import { badge, facts, link, table, units } from '../format';
import { html } from '../html';
import type { Page } from './types';

export async function tokens(): Promise<Page> {
  const { tokens: list } = await get<TokenList>('/tokens?limit=100');
  return {
    title: 'Tokens (FT20)',
    body: table(
      ['Symbol', 'Name', 'Supply', 'Holders', 'Owner'],
      list.map((t) => [
        link.token(t.id, t.symbol),
        t.name,
        units(t.supply, t.decimals),
        t.holders,
        link.address(t.owner),
      ]),
      'No tokens yet.',
    ),
  };
}

export async function token(id: string): Promise<Page> {
  const t = await find<TokenView>(`/tokens/${encodeURIComponent(id)}`);
  if (!t) return { title: 'Token not found', body: html`<p>No token <code>${id}</code>.</p>` };
  const [{ holders }, { transfers }] = await Promise.all([
    get<TokenHolders>(`/tokens/${t.id}/holders?limit=25`),
    get<TokenTransfers>(`/tokens/${t.id}/transfers?limit=25`),
  ]);
  return {
    title: `${t.name} (${t.symbol})`,
    body: html`
      ${facts([
        ['Id', html`<span class="mono">${t.id}</span>`],
        ['Supply', units(t.supply, t.decimals)],
        ['Decimals', String(t.decimals)],
        ['Holders', String(t.holders)],
        ['Owner', link.address(t.owner, t.ownerNative)],
        ['Mintable', t.mintable ? 'yes' : 'no'],
        ['Paused', t.paused ? badge('paused') : 'no'],
        ['Created', link.block(t.createdAt)],
      ])}
      <h2>Holders</h2>
      ${table(
        ['Address', 'Balance'],
        holders.map((h) => [link.address(h.address, h.native), units(h.balance, t.decimals)]),
      )}
      <h2>Transfers</h2>
      ${table(
        ['Tx', 'Block', 'Kind', 'From', 'To', 'Amount'],
        transfers.map((x) => [
          link.tx(x.txId),
          link.block(x.blockHeight),
          x.kind,
          link.address(x.from),
          link.address(x.to),
          units(x.amount, t.decimals),
        ]),
      )}`,
  };
}

export async function nfts(): Promise<Page> {
  const { collections } = await get<CollectionList>('/nfts?limit=100');
  return {
    title: 'NFT collections (NFT721)',
    body: table(
      ['Symbol', 'Name', 'Items', 'Owner'],
      collections.map((c) => [link.nft(c.id, c.symbol), c.name, c.supply, link.address(c.owner)]),
      'No collections yet.',
    ),
  };
}

/** A collection (`<id or symbol>`) or one item (`<collection>:<item>`). */
export async function nft(id: string): Promise<Page> {
  if (id.includes(':')) {
    const i = await find<ItemView>(`/nfts/${encodeURIComponent(id)}`);
    if (!i) return { title: 'NFT not found', body: html`<p>No item <code>${id}</code>.</p>` };
    return {
      title: `${i.name} #${i.item}`,
      body: facts([
        ['Collection', link.nft(i.collection, `${i.name} (${i.symbol})`)],
        ['Item', String(i.item)],
        ['Owner', link.address(i.owner, i.ownerNative)],
        ['URI', i.uri],
        ['Approved', i.approved ? link.address(i.approved) : null],
        ['Minted', link.block(i.mintedAt)],
      ]),
    };
  }
  const c = await find<CollectionDetail>(`/nfts/${encodeURIComponent(id)}?limit=50`);
  if (!c) return { title: 'Collection not found', body: html`<p>No collection <code>${id}</code>.</p>` };
  return {
    title: `${c.name} (${c.symbol})`,
    body: html`
      ${facts([
        ['Id', html`<span class="mono">${c.id}</span>`],
        ['Owner', link.address(c.owner, c.ownerNative)],
        ['Minted', String(c.minted)],
        ['Burned', String(c.burned)],
        ['Created', link.block(c.createdAt)],
      ])}
      <h2>Items</h2>
      ${table(
        ['Item', 'Owner', 'URI', 'Minted'],
        c.items.map((i) => [link.nft(i.id, `#${i.item}`), link.address(i.owner), i.uri, link.block(i.mintedAt)]),
        'No items.',
      )}`,
  };
}

export async function names(): Promise<Page> {
  const { names: list } = await get<NameList>('/names?limit=100');
  return {
    title: 'Names',
    body: table(
      ['Name', 'Resolves to', 'Owner', 'Registered'],
      list.map((n) => [
        link.name(n.name),
        link.address(n.target, n.targetNative),
        link.address(n.owner),
        link.block(n.registeredAt),
      ]),
      'No names yet.',
    ),
  };
}

export async function name(n: string): Promise<Page> {
  const r = await find<NameResolutionView>(`/name/${encodeURIComponent(n)}`);
  if (!r) return { title: 'Name not found', body: html`<p>The name <code>${n}</code> is not registered.</p>` };
  return {
    title: `Name ${r.name}`,
    body: facts([
      ['Name', r.name],
      ['Resolves to', link.address(r.address, r.native)],
      ['Owner', link.address(r.owner, r.ownerNative)],
      ['Registered', link.block(r.registeredAt)],
    ]),
  };
}
