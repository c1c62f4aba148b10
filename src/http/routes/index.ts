import type { Server } from 'hyper-express';
import type { Logger } from 'pino';
import type { ChainQueries } from '../../api/ports';
import type { IndexView } from '../../views';
import { endpointLine, ROUTES, type RouteSpec } from '../../views/routes';
import { explorerAssets } from '../explorer';
import type { RouteWrap } from '../route';
import type { RouteHandlers } from './bind';

/** The `/` index's list: every route of the table but the index itself, with its summary. */
export const indexEndpoints = (): IndexView['endpoints'] =>
  Object.values(ROUTES as Record<string, RouteSpec>)
    .filter((r) => r.path !== '/')
    .map((r) => ({ path: endpointLine(r), description: r.summary }));

/**
 * GET / is the block explorer for a browser and the JSON index of the routes for a program
 * (Accept: application/json); the explorer's script and style are under /explorer/ (not API routes).
 */
export function indexHandler(
  app: Server,
  r: RouteWrap,
  log: Logger,
  reader: () => Pick<ChainQueries, 'status'>,
): RouteHandlers<'index'> {
  const assets = explorerAssets(log);
  const endpoints = indexEndpoints();
  app.get(
    '/explorer/app.js',
    r(async (_req, res) => {
      res
        .type('application/javascript')
        .header('cache-control', 'no-cache')
        .send((await assets()).js);
      return undefined;
    }),
  );
  app.get(
    '/explorer/app.css',
    r(async (_req, res) => {
      res
        .type('text/css')
        .header('cache-control', 'no-cache')
        .send((await assets()).css);
      return undefined;
    }),
  );
  return {
    index: async (_in, req, res) => {
      if ((req.headers.accept ?? '').includes('application/json')) {
        return {
          name: 'cairn',
          chainId: (await reader().status()).chainId,
          explorer: '/',
          openapi: '/openapi.json',
          endpoints,
        };
      }
      res.type('html').send((await assets()).html);
      return undefined;
    },
  };
}
