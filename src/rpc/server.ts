import { cors } from '../api/cors';
import HyperExpress, { type Request, type Response } from 'hyper-express';
import type { Logger } from 'pino';
import type { RpcBackend } from '../api/ports';
import { createDispatcher, errorResponse, parseRpcBody, type Dispatch } from './dispatcher';
import { invalidRequest, RpcError, internalError } from './errors';
import { RPC_MAX_BODY_BYTES } from './limits';

/**
 * The VM JSON-RPC HTTP server (SPEC.md "VM JSON-RPC"): POST on `/` only, JSON-RPC 2.0,
 * no WebSocket, no auth.
 *
 * - Every JSON-RPC answer (success or error) is HTTP 200 with content-type application/json.
 * - A body that is not JSON: -32700 with id null.
 * - Another HTTP method on `/`: 405 (header `Allow: POST, OPTIONS`) with a JSON-RPC -32600 body;
 *   any other path: 404 `{error}`.
 * - A body above `maxBodyBytes` (default 1 MiB): 413 with an empty body, from the HTTP layer
 *   before the handler runs (`fast_abort` is off so the client gets a status, not a reset).
 * - CORS (`--cors-origins`, default `*`; api/cors.ts) and an OPTIONS preflight, so browser
 *   dapps using ethers/viem can reach the surface (it is open and keyless by spec).
 */

export interface RpcServerOptions {
  log: Logger;
  maxBodyBytes?: number;
  /** Origins whose pages may call it (api/cors.ts); default ["*"]. */
  corsOrigins?: readonly string[];
}

export interface RpcServer {
  listen(host: string, port: number): Promise<void>;
  close(): Promise<void>;
}

function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.completed) return;
  res.status(status);
  for (const k in headers) res.header(k, headers[k], true);
  res.header('content-type', 'application/json', true);
  res.send(JSON.stringify(body));
}

export function createRpcServer(backend: RpcBackend, opts: RpcServerOptions): RpcServer {
  const { log } = opts;
  const dispatch = createDispatcher(backend, { log });
  const policy = cors(opts.corsOrigins ?? ['*']);
  const send = (req: Request, res: Response, status: number, body: unknown) => sendJson(res, status, body, policy.headers(req.headers.origin));
  const app = new HyperExpress.Server({ max_body_length: opts.maxBodyBytes ?? RPC_MAX_BODY_BYTES, fast_abort: false });

  app.set_error_handler((req: Request, res: Response, err: Error) => {
    log.error({ err, path: req.path }, 'unhandled JSON-RPC request error');
    send(req, res, 200, errorResponse(null, internalError()));
  });

  app.set_not_found_handler((req: Request, res: Response) => {
    if (req.path === '/') {
      res.header('allow', 'POST, OPTIONS', true);
      return send(req, res, 405, errorResponse(null, invalidRequest(`HTTP method ${req.method} is not allowed: JSON-RPC is served by POST only`)));
    }
    send(req, res, 404, { error: `not found: ${req.method} ${req.path} (JSON-RPC is served by POST on /)` });
  });

  app.options('/', (req: Request, res: Response) => {
    res.status(204);
    for (const [k, v] of Object.entries(policy.preflight(req.headers.origin, 'POST, OPTIONS'))) res.header(k, v, true);
    res.send();
  });

  // Not an async function: an answer at hand (dispatch returns no promise) is sent in the same
  // turn as the body arrives, with no further microtask (bench/hardhat.ts).
  const answer = (req: Request, res: Response, text: string): void | Promise<void> => {
    let out: ReturnType<Dispatch>;
    try {
      out = dispatch(parseRpcBody(text));
    } catch (e) {
      if (e instanceof RpcError) return send(req, res, 200, errorResponse(null, e));
      log.error({ err: e }, 'JSON-RPC request failed');
      return send(req, res, 200, errorResponse(null, internalError()));
    }
    if (!(out instanceof Promise)) return send(req, res, 200, out);
    return out.then(
      (o) => send(req, res, 200, o),
      (err) => {
        log.error({ err }, 'JSON-RPC request failed');
        send(req, res, 200, errorResponse(null, internalError()));
      },
    );
  };
  app.post('/', (req: Request, res: Response) => req.text().then((text) => answer(req, res, text)));

  return {
    async listen(host: string, port: number): Promise<void> {
      await app.listen(port, host);
    },
    async close(): Promise<void> {
      app.close();
    },
  };
}
