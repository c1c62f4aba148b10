import type { Server } from 'hyper-express';
import { machineDefinitions } from '../../api/ports';
import type { HttpDeps, RouteWrap } from '../route';

/** GET /machines: the node's state machines as data (what a lifecycle fuzzer generates from). */
export function registerMachineRoutes(app: Server, r: RouteWrap, _d: HttpDeps): void {
  app.get('/machines', r(async () => ({ machines: machineDefinitions() })));
}
