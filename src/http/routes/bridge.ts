import { notFound } from '../../web/httpError';
import { sinceAtHead, sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

/** GET /bridge, /bridge/transfers, /bridge/transfers/:id. */
export const bridgeHandlers = (d: HttpDeps): RouteHandlers<'bridge' | 'bridgeTransfers' | 'bridgeTransfer'> => ({
  bridge: () => d.reader.bridge.bridge(),
  bridgeTransfers: async ({ query: q }) => {
    const since = sinceAtHead(q.since, d.reader.head.height);
    return sized(
      q.limit,
      await d.reader.bridge.transfers({
        direction: q.direction,
        status: q.status,
        since,
        final: q.final,
        limit: q.limit.limit,
      }),
    );
  },
  bridgeTransfer: async ({ params, query }) => {
    const t = await d.reader.bridge.transfer(params.id, query.for);
    if (!t) throw notFound(`transfer not found: ${params.id}`);
    return t;
  },
});
