import { notFound } from '../../web/httpError';
import { sinceAtHead, sized } from '../params';
import type { HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

/** GET /validators, /governance, /governance/proposals[/:id], /treasury. */
export const governanceHandlers = (
  d: HttpDeps,
): RouteHandlers<'validators' | 'governance' | 'proposals' | 'proposal' | 'treasury'> => {
  const g = () => d.reader.governance;
  return {
    validators: () => g().validators(),
    governance: () => g().governance(),
    proposals: async ({ query: q }) => {
      const since = sinceAtHead(q.since, d.reader.head.height);
      return sized(q.limit, await g().proposals({ status: q.status, since, limit: q.limit.limit }));
    },
    proposal: async ({ params, query }) => {
      const p = await g().proposal(params.id, query.for);
      if (!p) throw notFound(`proposal not found: ${params.id}`);
      return p;
    },
    treasury: () => g().treasury(),
  };
};
