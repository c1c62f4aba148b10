import type { Server } from 'hyper-express';
import { TASK_MODES, TASK_STATES } from '../../api/ports';
import type { OraclesView, TaskMode, TasksPage, TaskStatus, TaskView } from '../../views';
import { badRequest, notFound } from '../httpError';
import { addressParam, feedParams, oneOfParam, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';

/** GET /ai/tasks, /ai/tasks/:id, /ai/oracles. */
export function registerAiRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.get('/ai/tasks', r(async (req): Promise<TasksPage> => {
    const q = req.query_parameters;
    const status = oneOfParam<TaskStatus>(q, 'status', TASK_STATES, true);
    const mode = oneOfParam<TaskMode>(q, 'mode', TASK_MODES, false);
    const oracle = q.oracle ? addressParam(q.oracle) : undefined;
    const size = pageSize(q);
    return sized(size, await d.reader.ai.tasks({ status, mode, oracle, ...feedParams(q, d.reader.head.height), limit: size.limit }));
  }));

  app.get('/ai/tasks/:id', r(async (req): Promise<TaskView> => {
    const id = req.path_parameters.id.toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw badRequest('invalid task id: expected 0x followed by 64 hex digits (the AI_TASK transaction id)');
    const forAddress = req.query_parameters.for ? addressParam(req.query_parameters.for) : undefined;
    const t = await d.reader.ai.task(id, forAddress);
    if (!t) throw notFound(`task not found: ${id}`);
    return t;
  }));

  app.get('/ai/oracles', r(async (): Promise<OraclesView> => d.reader.ai.oracles()));
}
