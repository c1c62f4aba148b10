import type { Server } from 'hyper-express';
import { machineDefinitions } from '../../api/ports';
import type { HttpDeps, RouteWrap } from '../route';
import type { MachineDueView, MachinesView } from '../../views';
import { notFound } from '../httpError';
import { pageSize, sized } from '../params';

/** GET /machines: the node's state machines as data (what a lifecycle fuzzer generates from). */
export function registerMachineRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.get('/machines', r(async (): Promise<MachinesView> => ({ machines: machineDefinitions() })));

  // What moves by itself next: each open instance's next deadline, soonest first (its machine's view actor).
  app.get('/machines/:name/due', r(async (req): Promise<MachineDueView> => {
    const name = req.path_parameters.name;
    const size = pageSize(req.query_parameters);
    const out = await d.machineViews?.due(name, size.limit);
    if (!out) throw notFound(`no on-chain machine ${name} (GET /machines lists them: ${onChainNames().join(', ')})`);
    return sized(size, { machine: name, height: out.height, due: out.due.map(({ id, status, at }) => ({ id, status, at })) });
  }));
}

const onChainNames = () => machineDefinitions().filter((m) => m.onChain).map((m) => m.name);
