import type { Server } from 'hyper-express';
import { addressParam, intParam, LONG_PAGE, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';
import type { InternalList, LogList } from '../../views';

export function registerVmRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  // Node-local index of value moved by VM execution. `from` is a starting height.
  app.get('/internal', r(async (req): Promise<InternalList> => {
    const q = req.query_parameters;
    const address = q.address === undefined || q.address === '' ? undefined : addressParam(q.address);
    const from = intParam(q, 'from', { def: 0 })!;
    const size = pageSize(q);
    return sized(size, { internal: await d.reader.internal(address, from, size.limit) });
  }));

  // Recent VM events, newest first (node-local).
  app.get('/logs', r(async (req): Promise<LogList> => {
    const size = pageSize(req.query_parameters, LONG_PAGE);
    return sized(size, { logs: await d.reader.recentLogs(size.limit) });
  }));
}
