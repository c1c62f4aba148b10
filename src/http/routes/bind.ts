import type { Request, Response, Server } from 'hyper-express';
import type { JsonText } from '../../api/headMemo';
import type { MaybePromise } from '../../primitives/maybe';
import {
  ParamError,
  ROUTES,
  type Param,
  type Params,
  type RouteInput,
  type RouteName,
  type Routes,
  type ViewOf,
} from '../../views/routes';
import type { RouteWrap } from '../route';

/**
 * The server's half of a route: given the parameters as the route table reads them, it answers
 * the route's view (or its text, stored once: JsonText), or undefined when it sent the answer
 * itself (a page streamed as stored, the HTML index).
 */
export type RouteHandler<R> = (
  input: RouteInput<R>,
  req: Request,
  res: Response,
) => MaybePromise<ViewOf<R> | JsonText | undefined>;

/** A handler for each route of a group; the server's map over every route must be complete to compile. */
export type RouteHandlers<K extends RouteName = RouteName> = { [N in K]: RouteHandler<Routes[N]> };

/** Shared by the routes without parameters: nothing to read, nothing allocated per request. */
const NO_INPUT = Object.freeze({ params: Object.freeze({}), query: Object.freeze({}) });

/** `?k=a&k=b` parses as an array: refused, unless the parameter takes the first. */
function once(p: Param, v: unknown, name: string): string | undefined {
  if (!Array.isArray(v)) return v as string | undefined;
  if (p.repeated === 'first') return v[0] === undefined ? undefined : String(v[0]);
  throw new ParamError(`${name} must be given once`);
}

/**
 * Registers every route of the table with its handler, reading its parameters as the table declares them (a bad one:
 * 400).
 */
export function serveRoutes(app: Server, r: RouteWrap, handlers: RouteHandlers): void {
  for (const name of Object.keys(ROUTES) as RouteName[]) {
    const def = ROUTES[name];
    const handle = handlers[name] as RouteHandler<unknown>;
    const params = Object.entries((def.params ?? {}) as Params);
    const query = Object.entries((def.query ?? {}) as Params);
    const h =
      params.length === 0 && query.length === 0
        ? (req: Request, res: Response) => handle(NO_INPUT as RouteInput<unknown>, req, res)
        : (req: Request, res: Response) => {
            const input = { params: {} as Record<string, unknown>, query: {} as Record<string, unknown> };
            for (const [k, p] of params) input.params[k] = p.read(req.path_parameters[k], k);
            const q = req.query_parameters as Record<string, unknown>;
            for (const [k, p] of query) input.query[k] = p.read(once(p, q[k], k), k);
            return handle(input as RouteInput<unknown>, req, res);
          };
    if (def.method === 'GET') app.get(def.path, r(h));
    else app.post(def.path, r(h));
  }
}
