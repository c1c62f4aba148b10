import type { Address } from '../protocol/types';
import { toNative } from '../crypto/address';
import { nameKey, type NameRecord } from '../modules/names/records';
import { collectionKey, itemKey, nftSymbolKey, type CollectionRecord, type ItemRecord } from '../modules/nft/records';
import { balanceKey, symbolKey, tokenKey, type TokenRecord } from '../modules/tokens/records';
import type { Hex } from '../primitives/hex';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { AssetIndex, type HeightStart, type Page } from '../storage/assetIndex';
import type {
  AccountTokenView,
  CollectionDetail,
  CollectionList,
  CollectionView,
  ItemView,
  NameEntryView,
  NameList,
  TokenHolders,
  TokenList,
  TokenTransfers,
  TokenView,
} from '../views';
import type { AssetQueries, AssetRef, ReadModel } from './ports';

/** Most holdings listed on one account view. */
export const MAX_ACCOUNT_TOKENS = 1_000;

/**
 * Token, NFT and name reads. Lists come from the node-local indexes (storage/assetIndex.ts);
 * values that are consensus state (token records, balances, collections, items, names) are
 * read from the state trie at the published head root.
 */
export class AssetReader implements AssetQueries {
  readonly index: AssetIndex;

  constructor(private readonly d: { kv: KvStore; view: ReadModel }) {
    this.index = new AssetIndex(d.kv);
  }

  private state(): Promise<StateTrie> {
    return StateTrie.open(this.d.kv, this.d.view.head.stateRoot);
  }

  private async tokenView(s: StateTrie, id: Hex): Promise<TokenView | undefined> {
    const t = await s.getRecord<TokenRecord>(tokenKey(id));
    if (!t) return undefined;
    return { ...t, ownerNative: toNative(t.owner) };
  }

  private async resolve(s: StateTrie, ref: AssetRef, bySymbol: (sym: string) => string): Promise<Hex | undefined> {
    if ('id' in ref) return ref.id;
    return (await s.getRecord<{ id: Hex }>(bySymbol(ref.symbol)))?.id;
  }

  /** Tokens, newest first. */
  async tokens(limit: number, before?: HeightStart): Promise<TokenList> {
    const page = await this.index.tokens(limit, before);
    const s = await this.state();
    const tokens: TokenView[] = [];
    for (const id of page.items) {
      const v = await this.tokenView(s, id); // absent only for a block indexed but not yet published
      if (v) tokens.push(v);
    }
    return { tokens, nextBefore: page.nextBefore };
  }

  async token(ref: AssetRef): Promise<TokenView | undefined> {
    const s = await this.state();
    const id = await this.resolve(s, ref, symbolKey);
    return id ? this.tokenView(s, id) : undefined;
  }

  /** The id of an existing token, or undefined. */
  async tokenId(ref: AssetRef): Promise<Hex | undefined> {
    const s = await this.state();
    const id = await this.resolve(s, ref, symbolKey);
    return id && (await s.getRecord<TokenRecord>(tokenKey(id))) ? id : undefined;
  }

  /** Holders by balance, largest first (balances as indexed, i.e. as of the newest block). */
  async holders(token: Hex, limit: number, before?: Uint8Array): Promise<Omit<TokenHolders, 'token'>> {
    const page = await this.index.holders(token, limit, before);
    return {
      holders: page.items.map((h) => ({ address: h.address, native: toNative(h.address), balance: h.balance })),
      nextBefore: page.nextBefore,
    };
  }

  async transfers(token: Hex, limit: number, before?: HeightStart): Promise<Omit<TokenTransfers, 'token'>> {
    const page = await this.index.transfers(token, limit, before);
    return {
      transfers: page.items.map((t) => ({
        txId: t.txId,
        kind: t.kind,
        from: t.from,
        to: t.to,
        fromNative: t.from ? toNative(t.from) : null,
        toNative: t.to ? toNative(t.to) : null,
        amount: t.amount,
        blockHeight: t.blockHeight,
      })),
      nextBefore: page.nextBefore,
    };
  }

  /** Non-zero FT20 balances of `addr` (balance read from state at the head). */
  async accountTokens(addr: Address): Promise<AccountTokenView[]> {
    const held = await this.index.holdings(addr, MAX_ACCOUNT_TOKENS);
    if (held.length === 0) return [];
    const s = await this.state();
    const out: AccountTokenView[] = [];
    for (const h of held) {
      const t = await s.getRecord<TokenRecord>(tokenKey(h.token));
      const balance = await s.getRecord<string>(balanceKey(h.token, addr));
      if (!t || !balance || balance === '0') continue;
      out.push({ token: h.token, symbol: t.symbol, name: t.name, decimals: t.decimals, balance });
    }
    return out;
  }

  private collectionView(c: CollectionRecord): CollectionView {
    return { ...c, ownerNative: toNative(c.owner), supply: c.minted - c.burned };
  }

  private itemView(c: CollectionRecord, i: ItemRecord): ItemView {
    return {
      id: `${i.collection}:${i.item}`,
      collection: i.collection,
      item: i.item,
      owner: i.owner,
      ownerNative: toNative(i.owner),
      uri: i.uri,
      approved: i.approved,
      mintedAt: i.mintedAt,
      name: c.name,
      symbol: c.symbol,
    };
  }

  /** Collections, newest first. */
  async collections(limit: number, before?: HeightStart): Promise<CollectionList> {
    const page = await this.index.collections(limit, before);
    const s = await this.state();
    const collections: CollectionView[] = [];
    for (const id of page.items) {
      const c = await s.getRecord<CollectionRecord>(collectionKey(id));
      if (c) collections.push(this.collectionView(c));
    }
    return { collections, nextBefore: page.nextBefore };
  }

  /** A collection with a page of its live items, newest first. */
  async collection(ref: AssetRef, limit: number, before?: Uint8Array): Promise<CollectionDetail | undefined> {
    const s = await this.state();
    const id = await this.resolve(s, ref, nftSymbolKey);
    const c = id ? await s.getRecord<CollectionRecord>(collectionKey(id)) : undefined;
    if (!c) return undefined;
    const page: Page<number> = await this.index.items(c.id, limit, before);
    const items: ItemView[] = [];
    for (const n of page.items) {
      const i = await s.getRecord<ItemRecord>(itemKey(c.id, n));
      if (i) items.push(this.itemView(c, i));
    }
    return { ...this.collectionView(c), items, nextBefore: page.nextBefore };
  }

  async item(ref: AssetRef, item: number): Promise<ItemView | undefined> {
    const s = await this.state();
    const id = await this.resolve(s, ref, nftSymbolKey);
    const c = id ? await s.getRecord<CollectionRecord>(collectionKey(id)) : undefined;
    const i = c ? await s.getRecord<ItemRecord>(itemKey(c.id, item)) : undefined;
    return c && i ? this.itemView(c, i) : undefined;
  }

  private nameView(n: { name: string; owner: Address; target: Address; registeredAt: number }): NameEntryView {
    return {
      name: n.name,
      owner: n.owner,
      ownerNative: toNative(n.owner),
      target: n.target,
      targetNative: toNative(n.target),
      registeredAt: n.registeredAt,
    };
  }

  /** Registered names, newest registration first. */
  async names(limit: number, before?: HeightStart): Promise<NameList> {
    const page = await this.index.names(limit, before);
    return { names: page.items.map((n) => this.nameView(n)), nextBefore: page.nextBefore };
  }

  /** A registered name (from state at the head). */
  async name(name: string): Promise<NameEntryView | undefined> {
    const r = await (await this.state()).getRecord<NameRecord>(nameKey(name));
    return r ? this.nameView(r) : undefined;
  }

  /** Search hits: tokens by symbol or name prefix, names by prefix. */
  async search(q: string, limit: number) {
    const out: (
      | { kind: 'token'; id: Hex; symbol: string; name: string }
      | { kind: 'name'; id: string; address: Address; native: string }
    )[] = [];
    const s = q.trim();
    if (!s) return out;
    if (/^0x[0-9a-fA-F]{40}$/.test(s)) {
      const t = await (await this.state()).getRecord<TokenRecord>(tokenKey(s.toLowerCase() as Hex));
      if (t) out.push({ kind: 'token', id: t.id, symbol: t.symbol, name: t.name });
    }
    for (const t of await this.index.searchTokens(s, limit))
      if (!out.some((o) => o.id === t.id)) out.push({ kind: 'token', ...t });
    const lower = s.toLowerCase();
    if (/^[a-z0-9-]{1,32}$/.test(lower)) {
      for (const n of await this.index.searchNames(lower, limit))
        out.push({ kind: 'name', id: n.name, address: n.target, native: toNative(n.target) });
    }
    return out.slice(0, limit);
  }
}
