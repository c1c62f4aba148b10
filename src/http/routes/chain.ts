import type { Server } from 'hyper-express';
import { HeadMemo, memoJson } from '../../api/headMemo';
import { notFound } from '../httpError';
import { CHAIN_PAGE, intParam, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';
import type { BlockLifecycleView, BlockList, BlockView, SearchView, StatsView, StatusView } from '../../views';
import type { Hex } from '../../primitives/hex';

export function registerChainRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  // The most polled reads: built once per head (and finalized height), sent as stored text.
  const memo = new HeadMemo(() => d.reader.head, 8);
  app.get('/status', r(() => memoJson(memo, 'status', (): Promise<StatusView> => d.reader.status())));

  app.get('/blocks/latest', r(() => memoJson(memo, 'latest', (): Promise<BlockView | undefined> => d.reader.blockView(d.reader.head.height))));

  app.get('/blocks', r(async (req): Promise<BlockList> => {
    const q = req.query_parameters;
    const size = pageSize(q);
    const from = intParam(q, 'from', { def: d.reader.head.height })!;
    return sized(size, { blocks: await d.reader.blocks(from, size.limit) });
  }));

  app.get('/blocks/:ref', r(async (req): Promise<BlockView> => {
    const ref = req.path_parameters.ref;
    const h = await d.reader.resolveRef(ref);
    const b = h === undefined ? undefined : await d.reader.blockView(h);
    if (b) return b;
    // A block this node met but does not hold (rejected, undone, orphaned): say what became of it.
    const life = /^0x[0-9a-fA-F]{64}$/.test(ref) ? await d.reader.blockLifecycle(ref.toLowerCase() as Hex) : undefined;
    throw notFound(`block not found: ${ref}${life ? ` (${fateOf(life)})` : ''}`);
  }));

  // Full blocks for sync; capped at MAX_CHAIN_PAGE blocks and 16 MiB, `next` says where to go on.
  app.get('/chain', r(async (req, res) => {
    const q = req.query_parameters;
    const from = intParam(q, 'from', { def: 0 })!;
    // Above MAX_CHAIN_PAGE the page is capped, and the answer says so (docs/API.md "Pagination": the page is capped, not refused).
    const { limit, capped } = pageSize(q, CHAIN_PAGE);
    // The stored block lines are sent as they are (shape: ChainPage): parsing and re-encoding 16 MiB pages would cost the serving node more than the page.
    res.type('application/json').send(await d.reader.chainJson(from, limit, capped));
    return undefined;
  }));

  app.get('/stats', r(async (): Promise<StatsView> => d.reader.stats(d.now())));

  app.get('/search', r(async (req): Promise<SearchView> => {
    const raw: unknown = req.query_parameters.q; // ?q=a&q=b parses as an array: use the first
    const q = (Array.isArray(raw) ? String(raw[0] ?? '') : typeof raw === 'string' ? raw : '').slice(0, 200);
    return { q, results: q.trim() ? await d.reader.search(q) : [] };
  }));
}

/** What became of a block met here that the chain does not hold. */
function fateOf(l: BlockLifecycleView): string {
  if (l.state === 'rejected') return `rejected at height ${l.height}: ${l.reason ?? 'no reason recorded'}`;
  if (l.state === 'undone') return `undone at height ${l.height} by a reorganization`;
  if (l.state === 'orphaned') return `its parent at height ${l.height - 1} is unknown here`;
  return `${l.state} at height ${l.height}`;
}
