import { decodeSegment } from '../../views/routes/define';
import { decodeCursor, type Feed, type HeightStart } from '../../api/cursors';
import type { AssetRef } from '../../api/ports';
import { NAME_RE } from '../../protocol/params';
import type { Hex } from '../../primitives/hex';
import { badRequest, notFound } from '../../web/httpError';
import { sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

/** A path segment decoded; a malformed %-escape is a malformed parameter (''), not a server error. */
const segment = (s: string): string => decodeSegment(s) ?? '';

/**
 * `before` on holders and a collection's items: a cursor this feed returned as `nextBefore`; absent or empty = from the
 * first.
 */
function cursorOf(
  raw: string | undefined,
  feed: Feed,
  invalid = 'invalid cursor: before must be a nextBefore value returned by this feed',
): Uint8Array | undefined {
  if (raw === undefined || raw === '') return undefined;
  const p = decodeCursor(feed, raw);
  if (!p) throw badRequest(invalid);
  return p;
}

/**
 * `before` on the feeds ordered by height (tokens, transfers, collections, names): a block
 * height, the page holding what is strictly below it (the height of the last item seen, as on
 * /address/:end/txs; `nextBefore` is one); absent or empty = from the newest. A cursor these
 * feeds returned before they paged by height (never all digits) is still honoured.
 */
function heightOf(raw: string | undefined, feed: Feed): HeightStart | undefined {
  if (raw !== undefined && /^\d+$/.test(raw)) {
    if (raw.length > 15) throw badRequest('before must be a non-negative integer');
    return Number(raw);
  }
  return cursorOf(raw, feed, 'invalid before: expected a block height (the nextBefore of the previous page)');
}

const shown = (ref: AssetRef) => ('id' in ref ? ref.id : ref.symbol);

/** GET /tokens…, /nfts…, /names, /name/:name. */
export function assetHandlers(
  d: HttpDeps,
): RouteHandlers<'tokens' | 'token' | 'tokenHolders' | 'tokenTransfers' | 'nfts' | 'nft' | 'names' | 'resolveName'> {
  const assets = () => d.reader.assets; // the reader exists only once the node has started
  const tokenIdOf = async (ref: AssetRef): Promise<Hex> => {
    const id = await assets().tokenId(ref);
    if (!id) throw notFound(`token not found: ${shown(ref)}`);
    return id;
  };
  return {
    tokens: async ({ query: q }) => sized(q.limit, await assets().tokens(q.limit.limit, heightOf(q.before, 'tokens'))),
    token: async ({ params: { id: ref } }) => {
      const t = await assets().token(ref);
      if (!t) throw notFound(`token not found: ${shown(ref)}`);
      return t;
    },
    tokenHolders: async ({ params, query: q }) => {
      const before = cursorOf(q.before, 'holders');
      const token = await tokenIdOf(params.id);
      return sized(q.limit, { token, ...(await assets().holders(token, q.limit.limit, before)) });
    },
    tokenTransfers: async ({ params, query: q }) => {
      const before = heightOf(q.before, 'transfers');
      const token = await tokenIdOf(params.id);
      return sized(q.limit, { token, ...(await assets().transfers(token, q.limit.limit, before)) });
    },
    nfts: async ({ query: q }) =>
      sized(q.limit, await assets().collections(q.limit.limit, heightOf(q.before, 'collections'))),
    // `<collection>:<item>` → the item; `<collection>` → the collection with a page of its items.
    nft: async ({
      params: {
        id: { ref, item },
      },
      query: q,
    }) => {
      if (item !== undefined) {
        const v = await assets().item(ref, item);
        if (!v) throw notFound(`NFT not found: ${shown(ref)}:${item}`);
        return v;
      }
      const c = await assets().collection(ref, q.limit.limit, cursorOf(q.before, 'items'));
      if (!c) throw notFound(`collection not found: ${shown(ref)}`);
      return sized(q.limit, c);
    },
    names: async ({ query: q }) => sized(q.limit, await assets().names(q.limit.limit, heightOf(q.before, 'names'))),
    resolveName: async ({ params }) => {
      const raw = params.name;
      const name = segment(raw).toLowerCase();
      // The read resolves the name or answers 404: a string that cannot be a name (a malformed %-escape included) is
      // not registered either.
      if (!NAME_RE.test(name))
        throw notFound(
          `name not registered: ${(name || raw).slice(0, 100)} ` +
            `(names are 3–32 characters of a–z, 0–9 and '-', not starting or ending with '-')`,
        );
      const v = await assets().name(name);
      if (!v) throw notFound(`name not registered: ${name}`);
      return {
        name: v.name,
        address: v.target,
        native: v.targetNative,
        owner: v.owner,
        ownerNative: v.ownerNative,
        registeredAt: v.registeredAt,
      };
    },
  };
}
