import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'hyper-express';
import type { Logger } from 'pino';
import { routeLabel } from './gateway';

/** What every request of both servers (the HTTP API and JSON-RPC) shares: its id, its log, the gate around it. */

/** Retry-After (s) of a 503 while the node starts or a dependency is briefly unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 1;

/**
 * What runs around every route (web/ingress.ts): `enter` admits a request, or answers it
 * itself (a preflight, a refusal) and returns undefined; `leave` accounts for it once the
 * route is done.
 */
export interface Gate<V = unknown> {
  enter(req: Request, res: Response): V | undefined;
  leave(req: Request, res: Response, visit: V): void;
}

/** Short, process-unique request ids: a random per-process prefix and a counter. */
const ID_PREFIX = randomBytes(3).toString('hex');
let idSeq = 0;
export const nextRequestId = () => `${ID_PREFIX}-${(++idSeq).toString(36)}`;
/** An x-request-id a trusted proxy may pass on (anything else is replaced by our own). */
export const FORWARDED_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Units the request weighs beyond the one it was admitted with, known from its answer (a page's
 * blocks and bytes: web/rateLimit.ts COST); the gate charges them to the client as it leaves.
 */
export function chargeAnswer(req: Request, units: number): void {
  if (units > 0) req.locals.extraUnits = ((req.locals.extraUnits as number | undefined) ?? 0) + units;
}

/** What chargeAnswer noted for the request (0: nothing beyond its first unit). */
export const extraUnitsOf = (req: Request): number => (req.locals.extraUnits as number | undefined) ?? 0;

export const requestIdOf = (req: Request): string | undefined => req.locals.requestId as string | undefined;

/** The logger for a failed request: the server's, with the request id and route. */
export const requestLog = (log: Logger, req: Request): Logger =>
  log.child({ reqId: requestIdOf(req), route: routeLabel(req), client: req.locals.clientIp as string | undefined });
