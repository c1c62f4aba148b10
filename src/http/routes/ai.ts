import { notFound } from '../../web/httpError';
import { sinceAtHead, sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

/** GET /ai/tasks, /ai/tasks/:id, /ai/oracles. */
export const aiHandlers = (d: HttpDeps): RouteHandlers<'tasks' | 'task' | 'oracles'> => ({
  tasks: async ({ query: q }) => {
    const since = sinceAtHead(q.since, d.reader.head.height);
    return sized(
      q.limit,
      await d.reader.ai.tasks({
        status: q.status,
        mode: q.mode,
        oracle: q.oracle,
        since,
        final: q.final,
        limit: q.limit.limit,
      }),
    );
  },
  task: async ({ params, query }) => {
    const t = await d.reader.ai.task(params.id, query.for);
    if (!t) throw notFound(`task not found: ${params.id}`);
    return t;
  },
  oracles: () => d.reader.ai.oracles(),
});
