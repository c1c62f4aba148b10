import HyperExpress, { type Request, type Response } from 'hyper-express';
import type { Logger } from 'pino';
import type { ChainReader } from '../actors/chainReader';
import type { Admission } from '../actors/admission';
import { HttpError } from './httpError';
import { registerChainRoutes } from './routes/chain';
import { registerAccountRoutes } from './routes/accounts';
import { registerTxRoutes } from './routes/txs';
import { registerIndexRoute } from './routes/index';
import { registerVmRoutes } from './routes/vm';
import { registerContractRoutes } from './routes/contract';
import type { SolcCompiler } from '../contracts/compiler';
import type { ContractMetadata } from '../contracts/verify';

export interface HttpDeps {
  reader: ChainReader;
  compiler: SolcCompiler;
  saveContract(addr: string, m: ContractMetadata): Promise<void>;
  admission: Admission;
  log: Logger;
  now: () => number;
}

/** Largest accepted request body: a full envelope with a 64 KiB data field fits with room to spare. */
export const MAX_BODY_BYTES = 512 * 1024;
/** Contract verification carries Solidity sources (up to 1,000,000 characters). */
export const CONTRACT_BODY_BYTES = 2 * 1024 * 1024;
export const bodyLimitFor = (path: string): number => (path.startsWith('/contract/') ? CONTRACT_BODY_BYTES : MAX_BODY_BYTES);
const BACKSTOP_BODY_BYTES = 16 * 1024 * 1024;

export type Handler = (req: Request, res: Response) => Promise<unknown>;

/** Wraps a handler so that every failure leaves as `{error}` with its status. */
export function route(log: Logger, h: (req: Request, res: Response) => Promise<unknown>): Handler {
  return async (req, res) => {
    try {
      const body = await h(req, res);
      if (!res.completed && body !== undefined) res.json(body);
    } catch (e) {
      if (res.completed) return;
      if (e instanceof HttpError) return void res.status(e.status).json({ error: e.message });
      log.error({ err: e, path: req.path }, 'request failed');
      res.status(500).json({ error: 'internal error' });
    }
  };
}

export function createHttpServer(d: HttpDeps) {
  // hyper-express answers its own limit with an empty 413 before any handler runs, so its
  // limit is only a backstop (bodies without Content-Length); ours answers with {error}.
  const app = new HyperExpress.Server({ max_body_length: BACKSTOP_BODY_BYTES, fast_abort: false });
  // Refuse a body larger than any valid request before reading it, with the spec's {error}
  // (hyper-express's own limit stays as the backstop for bodies without Content-Length).
  app.use((req, res, next) => {
    const len = Number(req.headers['content-length'] ?? 0);
    const limit = bodyLimitFor(req.path);
    if (len > limit) return void res.status(413).json({ error: `request body exceeds ${limit} bytes` });
    next();
  });
  app.set_error_handler((req, res, err) => {
    d.log.error({ err, path: req.path }, 'unhandled request error');
    if (!res.completed) res.status(500).json({ error: 'internal error' });
  });
  app.set_not_found_handler((req, res) => res.status(404).json({ error: `not found: ${req.method} ${req.path}` }));
  const r = (h: Parameters<typeof route>[1]) => route(d.log, h);
  registerIndexRoute(app, r);
  registerChainRoutes(app, r, d);
  registerAccountRoutes(app, r, d);
  registerTxRoutes(app, r, d);
  registerVmRoutes(app, r, d);
  registerContractRoutes(app, r, d);
  return {
    app,
    async listen(host: string, port: number): Promise<void> {
      await app.listen(port, host);
    },
    async close(): Promise<void> {
      app.close();
    },
  };
}

export type RouteWrap = (h: Parameters<typeof route>[1]) => Handler;
