import type { Request } from 'hyper-express';
import { DevRefusal } from '../../api/devControls';
import { DEV_MINE_MAX } from '../../views/routes';
import type { AdminAuth } from '../admin';
import { badRequest, HttpError } from '../../web/httpError';
import { parseJsonBody, readBody } from '../../web/body';
import { MAX_BODY_BYTES, type HttpDeps } from '../route';
import type { RouteHandlers } from './bind';
import { authorize } from './ops';

/** POST /dev/mine, /dev/snapshot, /dev/revert and GET /dev/snapshots: a --dev node's controls (admin token). */
export function devHandlers(
  d: HttpDeps,
  admin: AdminAuth,
): RouteHandlers<'devMine' | 'devSnapshot' | 'devRevert' | 'devSnapshots'> {
  const controls = (req: Request) => {
    if (!d.dev)
      throw new HttpError(
        404,
        `not found: ${req.method} ${req.path} ` +
          `(development controls need a node started with --dev on the development network)`,
      );
    authorize(admin, req);
    return d.dev;
  };
  /** The body: empty, or a JSON object (read like every other body: size limit, pollution guard). */
  const body = async (req: Request): Promise<Record<string, unknown>> => {
    const text = await readBody(req, MAX_BODY_BYTES);
    const v = text.trim() === '' ? {} : parseJsonBody(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the body must be a JSON object');
    return v as Record<string, unknown>;
  };
  return {
    devMine: async (_in, req) => {
      const dev = controls(req);
      const { blocks = 1 } = await body(req);
      if (!Number.isSafeInteger(blocks) || (blocks as number) < 1 || (blocks as number) > DEV_MINE_MAX)
        throw badRequest(`blocks must be an integer from 1 to ${DEV_MINE_MAX}`);
      const mined = await dev.mine(blocks as number);
      // The head may not run ahead of the clock: a conflict with the clock (retry later or mine fewer).
      if ('refused' in mined) throw new HttpError(409, mined.refused);
      return mined;
    },
    devSnapshot: (_in, req) => controls(req).snapshot(),
    devSnapshots: (_in, req) => ({ snapshots: controls(req).list() }),
    devRevert: async (_in, req) => {
      const dev = controls(req);
      const { id } = await body(req);
      if (!Number.isSafeInteger(id)) throw badRequest('id must be a snapshot id (an integer from POST /dev/snapshot)');
      try {
        return await dev.revert(id as number);
      } catch (e) {
        if (e instanceof DevRefusal) throw new HttpError(e.status, e.message);
        throw e;
      }
    },
  };
}
