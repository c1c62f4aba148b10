import type { Server } from 'hyper-express';
import { decodeCursor, type AssetRef, type Feed, type HeightStart } from '../../api/ports';
import { NAME_RE, SYMBOL_RE } from '../../protocol/params';
import type { Hex } from '../../primitives/hex';
import { badRequest, notFound } from '../httpError';
import { intParam, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';
import type { CollectionList, NameList, NameResolutionView, NftView, TokenHolders, TokenList, TokenTransfers, TokenView } from '../../views';

const ID_RE = /^0x[0-9a-fA-F]{40}$/;

function segment(s: string | undefined): string {
  try {
    return decodeURIComponent(s ?? '');
  } catch {
    return ''; // a malformed %-escape is a malformed parameter, not a server error
  }
}

/** `before` on holders and a collection's items: a cursor this feed returned as `nextBefore`; absent or empty = from the first. */
function cursorParam(q: Record<string, string>, feed: Feed, invalid = 'invalid cursor: before must be a nextBefore value returned by this feed'): Uint8Array | undefined {
  const raw: unknown = q.before;
  if (raw === undefined || raw === '') return undefined;
  const p = typeof raw === 'string' ? decodeCursor(feed, raw) : undefined;
  if (!p) throw badRequest(invalid);
  return p;
}

/**
 * `before` on the feeds ordered by height (tokens, transfers, collections, names): a block
 * height, the page holding what is strictly below it (docs/API.md "Pagination": the height of the last item seen,
 * as on /address/:end/txs; `nextBefore` is one); absent or empty = from the newest. A cursor
 * these feeds returned before they paged by height (never all digits) is still honoured.
 */
function heightParam(q: Record<string, string>, feed: Feed): HeightStart | undefined {
  const raw: unknown = q.before;
  if (typeof raw === 'string' && /^\d+$/.test(raw)) return intParam(q, 'before');
  return cursorParam(q, feed, 'invalid before: expected a block height (the nextBefore of the previous page)');
}

/** A token or collection: 0x + 40 hex digits (any case), or a symbol (any case). */
function assetRef(raw: string, what: string): AssetRef {
  if (ID_RE.test(raw)) return { id: raw.toLowerCase() as Hex };
  const symbol = raw.toUpperCase();
  if (SYMBOL_RE.test(symbol)) return { symbol };
  throw badRequest(`invalid ${what}: expected 0x followed by 40 hex digits or a symbol (a letter, then up to 11 letters or digits)`);
}

const shown = (ref: AssetRef) => ('id' in ref ? ref.id : ref.symbol);

export function registerAssetRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  const assets = () => d.reader.assets; // the reader exists only once the node has started

  const tokenIdOf = async (raw: string | undefined): Promise<Hex> => {
    const ref = assetRef(segment(raw), 'token');
    const id = await assets().tokenId(ref);
    if (!id) throw notFound(`token not found: ${shown(ref)}`);
    return id;
  };

  app.get('/tokens', r(async (req): Promise<TokenList> => {
    const q = req.query_parameters;
    const size = pageSize(q);
    return sized(size, await assets().tokens(size.limit, heightParam(q, 'tokens')));
  }));

  app.get('/tokens/:id', r(async (req): Promise<TokenView> => {
    const ref = assetRef(segment(req.path_parameters.id), 'token');
    const t = await assets().token(ref);
    if (!t) throw notFound(`token not found: ${shown(ref)}`);
    return t;
  }));

  app.get('/tokens/:id/holders', r(async (req): Promise<TokenHolders> => {
    const q = req.query_parameters;
    const size = pageSize(q);
    const before = cursorParam(q, 'holders');
    const token = await tokenIdOf(req.path_parameters.id);
    return sized(size, { token, ...(await assets().holders(token, size.limit, before)) });
  }));

  app.get('/tokens/:id/transfers', r(async (req): Promise<TokenTransfers> => {
    const q = req.query_parameters;
    const size = pageSize(q);
    const before = heightParam(q, 'transfers');
    const token = await tokenIdOf(req.path_parameters.id);
    return sized(size, { token, ...(await assets().transfers(token, size.limit, before)) });
  }));

  app.get('/nfts', r(async (req): Promise<CollectionList> => {
    const q = req.query_parameters;
    const size = pageSize(q);
    return sized(size, await assets().collections(size.limit, heightParam(q, 'collections')));
  }));

  // `<collection>:<item>` → the item; `<collection>` → the collection with a page of its items.
  app.get('/nfts/:id', r(async (req): Promise<NftView> => {
    const raw = segment(req.path_parameters.id);
    const m = /^([^:]+)(?::(\d{1,15}))?$/.exec(raw);
    if (!m) throw badRequest('invalid NFT id: expected <collection> or <collection>:<item> (collection: 0x + 40 hex digits or a symbol; item: a positive integer)');
    const ref = assetRef(m[1], 'collection');
    if (m[2] !== undefined) {
      const item = Number(m[2]);
      if (item < 1) throw badRequest('invalid NFT id: items are numbered from 1');
      const v = await assets().item(ref, item);
      if (!v) throw notFound(`NFT not found: ${shown(ref)}:${item}`);
      return v;
    }
    const q = req.query_parameters;
    const size = pageSize(q);
    const c = await assets().collection(ref, size.limit, cursorParam(q, 'items'));
    if (!c) throw notFound(`collection not found: ${shown(ref)}`);
    return sized(size, c);
  }));

  app.get('/names', r(async (req): Promise<NameList> => {
    const q = req.query_parameters;
    const size = pageSize(q);
    return sized(size, await assets().names(size.limit, heightParam(q, 'names')));
  }));

  app.get('/name/:name', r(async (req): Promise<NameResolutionView> => {
    const raw = req.path_parameters.name ?? '';
    const name = segment(raw).toLowerCase();
    // The read resolves the name or answers 404 (docs/API.md "GET /name/:name"): a string that cannot be a name (a
    // malformed %-escape included) is not registered either.
    if (!NAME_RE.test(name)) throw notFound(`name not registered: ${(name || raw).slice(0, 100)} (names are 3–32 characters of a–z, 0–9 and '-', not starting or ending with '-')`);
    const v = await assets().name(name);
    if (!v) throw notFound(`name not registered: ${name}`);
    return { name: v.name, address: v.target, native: v.targetNative, owner: v.owner, ownerNative: v.ownerNative, registeredAt: v.registeredAt };
  }));
}
