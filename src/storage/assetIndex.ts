import type { ChainEvent } from '../protocol/events';
import { NAME_RE } from '../protocol/params';
import type { Address, Block } from '../protocol/types';
import { fromHex, toHex, word32, type Hex } from '../primitives/hex';
import { readU64be, u32be, u64be } from '../primitives/height';
import type { KvBatch, KvStore } from '../state/kv';
import { bucketKey } from './buckets';

/**
 * Node-local indexes of FT20 tokens, NFT721 collections and names, derived from the events
 * of a block's successful module transactions (protocol/events.ts) and written by
 * `putAssetIndexes` into the block's own batch (synchronous, no reads: every entry is
 * computed from the events alone). Values that change with state (supplies, item owners,
 * name records) stay authoritative in the state trie; these buckets give order and lists.
 *
 * The buckets (tokenList, holdersByBalance, holdings, tokenTransfers, tokenSearch,
 * collectionList, collectionItems, namesList, namesByName) are declared with their key
 * layouts in storage/buckets.ts.
 *
 * Addresses and asset ids are their 20 bytes; heights u64be, tx and event indexes u32be
 * (`ev` = the event's position in its transaction's events); balances 32-byte big-endian,
 * so that byte order is numeric order.
 */

const enc = new TextEncoder();
const dec = new TextDecoder();
const json = (b: Uint8Array) => JSON.parse(Buffer.from(b).toString('utf8'));
const bytes = (v: unknown) => enc.encode(JSON.stringify(v));
const EMPTY = new Uint8Array(0);

export function readU256be(b: Uint8Array, offset = 0): bigint {
  return BigInt(`0x${Buffer.from(b.buffer, b.byteOffset + offset, 32).toString('hex')}`);
}

/** The smallest key above every key that starts with `prefix`. */
function prefixEnd(prefix: Uint8Array): Buffer {
  const b = Buffer.from(prefix);
  let i = b.length - 1;
  while (i >= 0 && b[i] === 0xff) i--;
  if (i < 0) return Buffer.concat([b, Buffer.alloc(64, 0xff)]); // not reached with our one-letter buckets
  const out = b.subarray(0, i + 1);
  out[i]++;
  return out;
}

export interface StoredTokenTransfer {
  txId: Hex;
  kind: 'transfer' | 'mint' | 'burn';
  from: Address | null;
  to: Address | null;
  amount: string;
  blockHeight: number;
}

export interface StoredName {
  owner: Address;
  target: Address;
  registeredAt: number;
}

/** Adds the asset index entries of `block` to `batch` (called by ChainStore.putBlock). */
export function putAssetIndexes(batch: KvBatch, block: Block): void {
  const height = block.header.height;
  const hb = u64be(height);
  // Net effect of the block per (token, holder): the first `previous` and the last `balance`.
  const moves = new Map<string, { token: Hex; holder: Address; first: bigint; last: bigint }>();
  block.results.forEach((r, i) => {
    if (r.status !== 'success' || !r.events?.length) return;
    const txId = block.txs[i].id;
    r.events.forEach((e: ChainEvent, n) => {
      const pos = Buffer.concat([u32be(i), u32be(n)]);
      switch (e.kind) {
        case 'token.create': {
          const id = fromHex(e.token);
          batch.put(bucketKey('tokenList', u64be(e.height), pos), id);
          const meta = bytes({ symbol: e.symbol, name: e.name });
          batch.put(
            bucketKey('tokenSearch', enc.encode('s'), enc.encode(e.symbol.toLowerCase()), Buffer.of(0), id),
            meta,
          );
          batch.put(
            bucketKey('tokenSearch', enc.encode('n'), enc.encode(e.name.toLowerCase()), Buffer.of(0), id),
            meta,
          );
          break;
        }
        case 'token.transfer': {
          const kind = e.from === null ? 'mint' : e.to === null ? 'burn' : 'transfer';
          const rec: StoredTokenTransfer = {
            txId,
            kind,
            from: e.from,
            to: e.to,
            amount: e.amount,
            blockHeight: height,
          };
          batch.put(bucketKey('tokenTransfers', fromHex(e.token), hb, pos), bytes(rec));
          break;
        }
        case 'token.balance': {
          const k = `${e.token}${e.holder}`;
          const m = moves.get(k);
          if (m) m.last = BigInt(e.balance);
          else moves.set(k, { token: e.token, holder: e.holder, first: BigInt(e.previous), last: BigInt(e.balance) });
          break;
        }
        case 'nft.create':
          batch.put(bucketKey('collectionList', u64be(e.height), pos), fromHex(e.collection));
          break;
        case 'nft.transfer': {
          const k = bucketKey('collectionItems', fromHex(e.collection), u64be(e.item));
          if (e.from === null) batch.put(k, EMPTY);
          if (e.to === null) batch.del(k);
          break;
        }
        case 'name.register':
        case 'name.update': {
          const registeredAt = e.kind === 'name.register' ? e.height : e.registeredAt;
          const nb = enc.encode(e.name);
          batch.put(bucketKey('namesList', u64be(registeredAt), nb), bytes({ owner: e.owner, target: e.target }));
          batch.put(
            bucketKey('namesByName', nb),
            bytes({ owner: e.owner, target: e.target, registeredAt } satisfies StoredName),
          );
          break;
        }
        case 'name.release': {
          const nb = enc.encode(e.name);
          batch.del(bucketKey('namesList', u64be(e.registeredAt), nb));
          batch.del(bucketKey('namesByName', nb));
          break;
        }
      }
    });
  });
  for (const m of moves.values()) {
    const token = fromHex(m.token);
    const holder = fromHex(m.holder);
    if (m.first > 0n && m.first !== m.last) batch.del(bucketKey('holdersByBalance', token, word32(m.first), holder));
    if (m.last > 0n) {
      batch.put(bucketKey('holdersByBalance', token, word32(m.last), holder), EMPTY);
      batch.put(bucketKey('holdings', holder, token), word32(m.last));
    } else batch.del(bucketKey('holdings', holder, token));
  }
}

/* ---------------------------------------------------------------- cursors */

/**
 * A feed cursor: base64url (no padding) of a one-letter feed tag followed by the position
 * (the key suffix of the page's last entry). Opaque to clients; `before` = strictly after
 * that entry in the feed's order. Holders and items page with cursors; the feeds ordered by
 * height page by height (HeightStart) and issue none, but still take the cursors they issued
 * before, so a client's saved cursor keeps working.
 */
export type Feed = 'tokens' | 'holders' | 'transfers' | 'collections' | 'items' | 'names';
const TAG: Record<Feed, number> = {
  tokens: 0x74,
  holders: 0x68,
  transfers: 0x78,
  collections: 0x63,
  items: 0x69,
  names: 0x6e,
};

function validPosition(feed: Feed, p: Uint8Array): boolean {
  switch (feed) {
    case 'tokens':
    case 'transfers':
    case 'collections':
      return p.length === 16;
    case 'holders':
      return p.length === 52;
    case 'items':
      return p.length === 8;
    case 'names':
      return p.length > 8 && NAME_RE.test(dec.decode(p.subarray(8)));
  }
}

export function encodeCursor(feed: Feed, position: Uint8Array): string {
  return Buffer.concat([Buffer.of(TAG[feed]), position]).toString('base64url');
}

/** The position in a cursor of `feed`, or undefined if it is not one (wrong feed, length, encoding). */
export function decodeCursor(feed: Feed, s: string): Uint8Array | undefined {
  if (typeof s !== 'string' || s.length === 0 || s.length > 200 || !/^[A-Za-z0-9_-]+$/.test(s)) return undefined;
  const b = Buffer.from(s, 'base64url');
  if (b.toString('base64url') !== s || b.length < 1 || b[0] !== TAG[feed]) return undefined;
  const p = new Uint8Array(b.subarray(1));
  return validPosition(feed, p) ? p : undefined;
}

/** A page, and where the next one starts (`C`: a cursor, or a height): null when nothing is left. */
export interface Page<T, C = string> {
  items: T[];
  nextBefore: C | null;
}

/**
 * Where a page of a feed ordered by height (tokens, transfers, collections, names) starts: below
 * a block height (docs/API.md "Pagination": `before` is the height of the last item seen), or strictly after the
 * entry at a position (from a cursor these feeds issued before they paged by height).
 */
export type HeightStart = number | Uint8Array;

/* ----------------------------------------------------------------- reads */

/** Read side of the asset indexes (stateless). */
export class AssetIndex {
  /** token → count summed over the delta log up to `height` (deltas are only ever appended at new heights). */

  constructor(private readonly kv: KvStore) {}

  /**
   * Entries under `prefix` from `gte` up to (not including) `lt`, newest (highest key) first, at most `limit`:
   * positions and values.
   */
  private async entries(prefix: Buffer, gte: Buffer, lt: Buffer, limit?: number): Promise<[Buffer, Uint8Array][]> {
    const out: [Buffer, Uint8Array][] = [];
    for await (const [k, v] of this.kv.iterate({ gte, lt, reverse: true, limit }))
      out.push([Buffer.from(k).subarray(prefix.length), v]);
    return out;
  }

  /**
   * Newest first under `prefix`: entries strictly below `before` (a position: the key part
   * after the prefix), at most `limit`, and the cursor of the next page (null when done).
   */
  private async page<T>(
    feed: Feed,
    prefix: Buffer,
    limit: number,
    before: Uint8Array | undefined,
    map: (pos: Buffer, v: Uint8Array) => T,
  ): Promise<Page<T>> {
    const got = await this.entries(
      prefix,
      prefix,
      before ? Buffer.concat([prefix, before]) : prefixEnd(prefix),
      limit + 1,
    );
    const more = got.length > limit;
    const items = got.slice(0, limit);
    return {
      items: items.map(([pos, v]) => map(pos, v)),
      nextBefore: more ? encodeCursor(feed, items[limit - 1][0]) : null,
    };
  }

  /**
   * Newest first under `prefix`, for a feed whose positions start with the block height (u64be):
   * entries below `start`, at least `limit` of them when there are as many, and whole blocks — the
   * rest of the last entry's block is added — so that the next page starts below that block's
   * height, `nextBefore` (null when nothing is left), and skips nothing.
   */
  private async heightPage<T>(
    prefix: Buffer,
    limit: number,
    start: HeightStart | undefined,
    map: (pos: Buffer, v: Uint8Array) => T,
  ): Promise<Page<T, number>> {
    const at = (pos: Uint8Array) => Buffer.concat([prefix, pos]);
    const top = start === undefined ? prefixEnd(prefix) : at(typeof start === 'number' ? u64be(start) : start);
    const got = await this.entries(prefix, prefix, top, limit);
    const last = got.at(-1);
    if (got.length < limit || !last) return { items: got.map(([pos, v]) => map(pos, v)), nextBefore: null };
    const height = last[0].subarray(0, 8);
    // a block holds at most a few entries per transaction
    got.push(...(await this.entries(prefix, at(height), at(last[0]))));
    const more = (await this.entries(prefix, prefix, at(height), 1)).length > 0;
    return { items: got.map(([pos, v]) => map(pos, v)), nextBefore: more ? readU64be(height) : null };
  }

  /** Token ids, newest first. */
  tokens(limit: number, before?: HeightStart): Promise<Page<Hex, number>> {
    return this.heightPage(bucketKey('tokenList'), limit, before, (_p, v) => toHex(v));
  }

  /** Holders of `token` by balance, largest first (ties: higher address first). */
  holders(token: Hex, limit: number, before?: Uint8Array): Promise<Page<{ address: Address; balance: string }>> {
    return this.page('holders', bucketKey('holdersByBalance', fromHex(token)), limit, before, (p) => ({
      address: toHex(p.subarray(32, 52)),
      balance: readU256be(p).toString(),
    }));
  }

  /** Non-zero token balances of `account` (by token id), at most `limit`. */
  async holdings(account: Address, limit: number): Promise<{ token: Hex; balance: string }[]> {
    const prefix = bucketKey('holdings', fromHex(account));
    const out: { token: Hex; balance: string }[] = [];
    for await (const [k, v] of this.kv.iterate({ gte: prefix, lt: prefixEnd(prefix), limit })) {
      out.push({ token: toHex(Buffer.from(k).subarray(prefix.length)), balance: readU256be(v).toString() });
    }
    return out;
  }

  /** Transfers (mints and burns included) of `token`, newest first. */
  transfers(token: Hex, limit: number, before?: HeightStart): Promise<Page<StoredTokenTransfer, number>> {
    return this.heightPage(
      bucketKey('tokenTransfers', fromHex(token)),
      limit,
      before,
      (_p, v) => json(v) as StoredTokenTransfer,
    );
  }

  /** Tokens whose symbol or name starts with `prefix` (case-insensitive), symbol matches first. */
  async searchTokens(prefix: string, limit: number): Promise<{ id: Hex; symbol: string; name: string }[]> {
    const q = enc.encode(prefix.toLowerCase());
    const out = new Map<Hex, { id: Hex; symbol: string; name: string }>();
    for (const kind of ['s', 'n']) {
      const p = bucketKey('tokenSearch', enc.encode(kind), q);
      for await (const [k, v] of this.kv.iterate({ gte: p, lt: prefixEnd(p), limit })) {
        const id = toHex(Buffer.from(k).subarray(k.length - 20));
        if (!out.has(id)) out.set(id, { id, ...(json(v) as { symbol: string; name: string }) });
        if (out.size >= limit) return [...out.values()];
      }
    }
    return [...out.values()];
  }

  /** Collection ids, newest first. */
  collections(limit: number, before?: HeightStart): Promise<Page<Hex, number>> {
    return this.heightPage(bucketKey('collectionList'), limit, before, (_p, v) => toHex(v));
  }

  /** Live (not burned) item numbers of `collection`, newest (highest) first. */
  items(collection: Hex, limit: number, before?: Uint8Array): Promise<Page<number>> {
    return this.page('items', bucketKey('collectionItems', fromHex(collection)), limit, before, (p) => readU64be(p));
  }

  /** Registered names, newest registration first. */
  names(limit: number, before?: HeightStart): Promise<Page<StoredName & { name: string }, number>> {
    return this.heightPage(bucketKey('namesList'), limit, before, (p, v) => ({
      name: dec.decode(p.subarray(8)),
      ...(json(v) as { owner: Address; target: Address }),
      registeredAt: readU64be(p),
    }));
  }

  /** Registered names starting with `prefix`, in name order. */
  async searchNames(prefix: string, limit: number): Promise<(StoredName & { name: string })[]> {
    const p = bucketKey('namesByName', enc.encode(prefix));
    const out: (StoredName & { name: string })[] = [];
    for await (const [k, v] of this.kv.iterate({ gte: p, lt: prefixEnd(p), limit })) {
      out.push({ name: dec.decode(Buffer.from(k).subarray(1)), ...(json(v) as StoredName) });
    }
    return out;
  }
}
