import { machineDefinitions } from '../../api/machines';
import { notFound } from '../../web/httpError';
import { sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

const onChainNames = () =>
  machineDefinitions()
    .filter((m) => m.onChain)
    .map((m) => m.name);

/**
 * GET /machines: the node's state machines as data (what a lifecycle fuzzer generates from); GET /machines/:name/due.
 */
export const machineHandlers = (d: HttpDeps): RouteHandlers<'machines' | 'machineDue'> => ({
  machines: () => ({ machines: machineDefinitions() }),
  // What moves by itself next: each open instance's next deadline, soonest first (its machine's view actor).
  machineDue: async ({ params: { name }, query: q }) => {
    const out = await d.machineViews?.due(name, q.limit.limit);
    if (!out) throw notFound(`no on-chain machine ${name} (GET /machines lists them: ${onChainNames().join(', ')})`);
    return sized(q.limit, {
      machine: name,
      height: out.height,
      due: out.due.map(({ id, status, at }) => ({ id, status, at })),
    });
  },
});
