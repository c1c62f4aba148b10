import type { Request, Server } from 'hyper-express';
import { DevRefusal } from '../../api/ports';
import { ADMIN_HEADER, type AdminAuth } from '../admin';
import { markOffence } from '../guard';
import { badRequest, HttpError } from '../httpError';
import { parseJsonBody, readBody } from '../json';
import { MAX_BODY_BYTES, type HttpDeps, type RouteWrap } from '../route';
import type { DevMined, DevRevertedView, DevSnapshotsView, DevSnapshotView } from '../../views';

/** Most blocks one POST /dev/mine produces. */
export const DEV_MINE_MAX = 1_000;

/** POST /dev/mine, /dev/snapshot, /dev/revert and GET /dev/snapshots: a --dev node's controls (admin token). */
export function registerDevRoutes(app: Server, r: RouteWrap, d: HttpDeps, admin: AdminAuth): void {
  const controls = (req: Request) => {
    if (!d.dev) throw new HttpError(404, `not found: ${req.method} ${req.path} (development controls need a node started with --dev on the development network)`);
    const v = admin.check(req.headers[ADMIN_HEADER]);
    if (!v.ok) {
      if (v.wrongToken) markOffence(req, 'admin_auth_failed');
      throw new HttpError(v.status, v.error);
    }
    return d.dev;
  };
  /** The body: empty, or a JSON object (read like every other body: size limit, pollution guard). */
  const body = async (req: Request): Promise<Record<string, unknown>> => {
    const text = await readBody(req, MAX_BODY_BYTES);
    const v = text.trim() === '' ? {} : parseJsonBody(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the body must be a JSON object');
    return v as Record<string, unknown>;
  };
  const refusals = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if (e instanceof DevRefusal) throw new HttpError(e.status, e.message);
      throw e;
    }
  };

  app.post('/dev/mine', r(async (req): Promise<DevMined> => {
    const dev = controls(req);
    const { blocks = 1 } = await body(req);
    if (!Number.isSafeInteger(blocks) || (blocks as number) < 1 || (blocks as number) > DEV_MINE_MAX) throw badRequest(`blocks must be an integer from 1 to ${DEV_MINE_MAX}`);
    const mined = await dev.mine(blocks as number);
    // The head may not run ahead of the clock: a conflict with the clock (retry later or mine fewer).
    if ('refused' in mined) throw new HttpError(409, mined.refused);
    return mined;
  }));

  app.post('/dev/snapshot', r(async (req): Promise<DevSnapshotView> => controls(req).snapshot()));

  app.get('/dev/snapshots', r(async (req): Promise<DevSnapshotsView> => ({ snapshots: controls(req).list() })));

  app.post('/dev/revert', r(async (req): Promise<DevRevertedView> => {
    const dev = controls(req);
    const { id } = await body(req);
    if (!Number.isSafeInteger(id)) throw badRequest('id must be a snapshot id (an integer from POST /dev/snapshot)');
    return refusals(() => dev.revert(id as number));
  }));
}
