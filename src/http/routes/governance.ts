import type { Server } from 'hyper-express';
import { PROPOSAL_STATES } from '../../api/ports';
import type { GovernanceView, ProposalsPage, ProposalStatus, ProposalView, TreasuryView, ValidatorsView } from '../../views';
import { badRequest, notFound } from '../httpError';
import { addressParam, intParam, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';

const STATUSES: readonly string[] = PROPOSAL_STATES;

/** GET /validators, /governance, /governance/proposals[/:id], /treasury. */
export function registerGovernanceRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  const g = () => d.reader.governance;

  app.get('/validators', r(async (): Promise<ValidatorsView> => g().validators()));

  app.get('/governance', r(async (): Promise<GovernanceView> => g().governance()));

  app.get('/governance/proposals', r(async (req): Promise<ProposalsPage> => {
    const q = req.query_parameters;
    const status = q.status === undefined || q.status === '' ? undefined : q.status.toUpperCase();
    if (status !== undefined && !STATUSES.includes(status)) throw badRequest(`status must be one of ${STATUSES.join(', ')}`);
    const since = intParam(q, 'since');
    const head = d.reader.head.height;
    // An empty list for a height not yet processed would read as "nothing happened": say so instead.
    if (since !== undefined && since > head) throw badRequest(`since (${since}) is above this node's head (${head}): it has not processed that height yet`);
    const size = pageSize(q);
    return sized(size, await g().proposals({ status: status as ProposalStatus | undefined, since, limit: size.limit }));
  }));

  app.get('/governance/proposals/:id', r(async (req): Promise<ProposalView> => {
    const id = req.path_parameters.id.toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw badRequest('invalid proposal id: expected 0x followed by 64 hex digits (the GOV_PROPOSE transaction id)');
    const forAddress = req.query_parameters.for ? addressParam(req.query_parameters.for) : undefined;
    const p = await g().proposal(id, forAddress);
    if (!p) throw notFound(`proposal not found: ${id}`);
    return p;
  }));

  app.get('/treasury', r(async (): Promise<TreasuryView> => g().treasury()));
}
