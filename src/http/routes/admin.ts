import type { Request, Server } from 'hyper-express';
import type { AlertSource, PeerInfo } from '../../api/ports';
import { ADMIN_HEADER, type AdminAuth } from '../admin';
import { markOffence } from '../guard';
import { HttpError } from '../httpError';
import { pageSize, sized, type PageRule } from '../params';
import type { RouteWrap } from '../route';
import type { AlertsView, PeersView } from '../../views';

/** Default and maximum number of alerts per GET /security/alerts. */
/** GET /security/alerts: the newest 50 by default, 500 at most (a larger limit is capped). */
export const ALERTS_PAGE: PageRule = { def: 50, max: 500, items: 'alerts' };

/** Admin endpoints (x-admin-token): GET /peers, GET /security/alerts. */
export function registerAdminRoutes(app: Server, r: RouteWrap, o: { admin: AdminAuth; peers: () => PeerInfo[]; alerts?: AlertSource }): void {
  const authorize = (req: Request) => {
    const v = o.admin.check(req.headers[ADMIN_HEADER]);
    if (v.ok) return;
    if (v.wrongToken) markOffence(req, 'admin_auth_failed'); // guessing tokens is abuse
    throw new HttpError(v.status, v.error);
  };

  app.get('/peers', r(async (req): Promise<PeersView> => {
    authorize(req);
    return { peers: o.peers() };
  }));

  app.get('/security/alerts', r(async (req): Promise<AlertsView> => {
    authorize(req);
    const size = pageSize(req.query_parameters, ALERTS_PAGE);
    return sized(size, { alerts: o.alerts ? o.alerts.recent(size.limit).slice(0, size.limit) : [] });
  }));
}
