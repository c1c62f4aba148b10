import type { Server } from 'hyper-express';
import { machineDefinitions } from '../../api/ports';
import type { HttpDeps, RouteWrap } from '../route';
import type { MachinesView } from '../../views';

/** GET /machines: the node's state machines as data (what a lifecycle fuzzer generates from). */
export function registerMachineRoutes(app: Server, r: RouteWrap, _d: HttpDeps): void {
  app.get('/machines', r(async (): Promise<MachinesView> => ({ machines: machineDefinitions() })));
}
