import { HeadMemo, memoJson } from '../../api/headMemo';
import { CHAIN_PAGE_MEDIA } from '../../protocol/peers';
import type { Hex } from '../../primitives/hex';
import type { BlockLifecycleView } from '../../views';
import { notFound } from '../../web/httpError';
import { chainPageUnits } from '../../web/rateLimit';
import { chargeAnswer } from '../../web/request';
import { sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

/** GET /status, /blocks…, /chain, /stats, /search. */
export function chainHandlers(
  d: HttpDeps,
): RouteHandlers<'status' | 'latestBlock' | 'blocks' | 'block' | 'chain' | 'stats' | 'search'> {
  // The most polled reads: built once per head (and finalized height), sent as stored text.
  const memo = new HeadMemo(() => d.reader.head, 8);
  return {
    status: () => memoJson(memo, 'status', () => d.reader.status()),
    latestBlock: () => memoJson(memo, 'latest', () => d.reader.blockView(d.reader.head.height)),
    blocks: async ({ query: q }) =>
      sized(q.limit, { blocks: await d.reader.blocks(q.from ?? d.reader.head.height, q.limit.limit) }),
    block: async ({ params: { ref } }) => {
      const h = await d.reader.resolveRef(ref);
      const b = h === undefined ? undefined : await d.reader.blockView(h);
      if (b) return b;
      const pruned = h === undefined ? undefined : d.reader.historyNote(h);
      if (pruned) throw notFound(`block ${ref} is pruned: ${pruned}`);
      // A block this node met but does not hold (rejected, undone, orphaned): say what became of it.
      const life = /^0x[0-9a-fA-F]{64}$/.test(ref)
        ? await d.reader.blockLifecycle(ref.toLowerCase() as Hex)
        : undefined;
      throw notFound(`block not found: ${ref}${life ? ` (${fateOf(life)})` : ''}`);
    },
    // Full blocks for sync; capped at MAX_CHAIN_PAGE blocks and in bytes (16 MiB binary, 2 MiB JSON), `next` says
    // where to go on. A page weighs its blocks and bytes against the client's rate limit (web/rateLimit.ts COST).
    chain: async ({ query: q }, req, res) => {
      const pruned = d.reader.historyNote(q.from);
      if (pruned) throw notFound(`blocks from ${q.from} are pruned: ${pruned}`);
      // A peer that asks for it gets the page in binary: the blocks as stored, a third of the JSON, built with no
      // decoding (chain/chainPage.ts). Everyone else gets the JSON page (shape: ChainPage).
      if ((req.headers.accept ?? '').includes(CHAIN_PAGE_MEDIA)) {
        const { bytes, blocks } = await d.reader.chainBinary(q.from, q.limit.limit);
        chargeAnswer(req, chainPageUnits(blocks, bytes.byteLength, true));
        res.type(CHAIN_PAGE_MEDIA).send(bytes);
        return undefined;
      }
      const { text, blocks } = await d.reader.chainJson(q.from, q.limit.limit, q.limit.capped);
      chargeAnswer(req, chainPageUnits(blocks, text.length, false));
      res.type('application/json').send(text);
      return undefined;
    },
    stats: () => d.reader.stats(d.now()),
    search: async ({ query }) => {
      const q = (query.q ?? '').slice(0, 200);
      return { q, results: q.trim() ? await d.reader.search(q) : [] };
    },
  };
}

/** What became of a block met here that the chain does not hold. */
function fateOf(l: BlockLifecycleView): string {
  if (l.state === 'rejected') return `rejected at height ${l.height}: ${l.reason ?? 'no reason recorded'}`;
  if (l.state === 'undone') return `undone at height ${l.height} by a reorganization`;
  if (l.state === 'orphaned') return `its parent at height ${l.height - 1} is unknown here`;
  return `${l.state} at height ${l.height}`;
}
