import type { Server } from 'hyper-express';
import { TASK_MODES, TASK_STATES } from '../../api/ports';
import type { TaskMode, TaskStatus } from '../../views';
import { badRequest, notFound } from '../httpError';
import { addressParam, intParam, limitParam } from '../params';
import type { HttpDeps, RouteWrap } from '../route';

const oneOf = <T extends string>(q: Record<string, string>, name: string, all: readonly T[], upper: boolean): T | undefined => {
  const raw = q[name];
  if (raw === undefined || raw === '') return undefined;
  const v = upper ? raw.toUpperCase() : raw.toLowerCase();
  if (!all.includes(v as T)) throw badRequest(`${name} must be one of ${all.join(', ')}`);
  return v as T;
};

/** GET /ai/tasks, /ai/tasks/:id, /ai/oracles. */
export function registerAiRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.get('/ai/tasks', r(async (req) => {
    const q = req.query_parameters;
    const status = oneOf<TaskStatus>(q, 'status', TASK_STATES, true);
    const mode = oneOf<TaskMode>(q, 'mode', TASK_MODES, false);
    const oracle = q.oracle ? addressParam(q.oracle) : undefined;
    const final = q.final === undefined || q.final === '' ? false : q.final === 'true' || q.final === '1' ? true : q.final === 'false' || q.final === '0' ? false : undefined;
    if (final === undefined) throw badRequest('final must be true or false');
    const since = intParam(q, 'since');
    const head = d.reader.head.height;
    // An empty list for a height not yet processed would read as "nothing happened": say so instead.
    if (since !== undefined && since > head) throw badRequest(`since (${since}) is above this node's head (${head}): it has not processed that height yet`);
    return d.reader.ai.tasks({ status, mode, oracle, since, final, limit: limitParam(q) });
  }));

  app.get('/ai/tasks/:id', r(async (req) => {
    const id = req.path_parameters.id.toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw badRequest('invalid task id: expected 0x followed by 64 hex digits (the AI_TASK transaction id)');
    const t = await d.reader.ai.task(id);
    if (!t) throw notFound(`task not found: ${id}`);
    return t;
  }));

  app.get('/ai/oracles', r(async () => d.reader.ai.oracles()));
}
