import { cors } from '../web/cors';
import HyperExpress, { type Request, type Response } from 'hyper-express';
import type { Logger } from 'pino';
import type { RpcBackend } from '../api/ports';
import { createDispatcher, errorResponse, parseRpcBody, type Dispatch } from './dispatcher';
import { invalidRequest, RpcError, internalError, limitExceeded, RPC_CODES } from './errors';
import { RPC_MAX_BODY_BYTES, rpcWeight } from './limits';
import { jsonAnswerUnits } from '../web/rateLimit';

/**
 * The VM JSON-RPC HTTP server (docs/PROTOCOL.md "JSON-RPC (port 7070)"): POST on `/` only, JSON-RPC 2.0,
 * no WebSocket, no auth.
 *
 * - Every JSON-RPC answer (success or error) is HTTP 200 with content-type application/json.
 * - A body that is not JSON: -32700 with id null.
 * - Another HTTP method on `/`: 405 (header `Allow: POST, OPTIONS`) with a JSON-RPC -32600 body;
 *   any other path: 404 `{error}`.
 * - A body above `maxBodyBytes` (default 1 MiB): 413 with an empty body, from the HTTP layer
 *   before the handler runs (`fast_abort` is off so the client gets a status, not a reset).
 * - CORS (`--cors-origins`, default `*`; web/cors.ts) and an OPTIONS preflight, so browser
 *   dapps using ethers/viem can reach the surface (it is open and keyless by spec).
 * - With a `gate` (the node passes the HTTP API's: web/ingress.ts createClientGate), every
 *   request but a preflight counts against the client's rate limit and guard, exactly as on
 *   the HTTP API (same settings, exemptions and counters): a refused one is HTTP 429 with
 *   Retry-After and a JSON-RPC error (-32000) saying why. A request is admitted with one unit
 *   before its body is read, then weighed by its calls (limits.ts rpcWeight: a batch of 50
 *   counts at least 50) before any runs, and its answer's length is charged once sent
 *   (web/rateLimit.ts COST). A body that is not JSON or is over the size limit is an offence
 *   for the guard.
 */

/** Who may be served, under which client key (its fair share of VM calls), and the guard's scoring of bad requests. */
export interface RpcClientGate {
  enter(
    socketIp: string,
    forwardedFor: string | undefined,
  ): { refused: Refusal } | { malformed: string } | { client: string; exempt: boolean };
  /** Counts `units` more for an admitted request before it is served: the refusal, if any. */
  weigh(client: string, units: number): Refusal | undefined;
  /** Charges `units` a served request weighed beyond what it was admitted with. */
  charge(client: string, units: number): void;
  offence(client: string, kind: 'malformed_body'): void;
}

interface Refusal {
  retryAfterS: number;
  error: string;
}

interface Caller {
  client: string;
  exempt: boolean;
}

export interface RpcServerOptions {
  log: Logger;
  maxBodyBytes?: number;
  /** Origins whose pages may call it (web/cors.ts); default ["*"]. */
  corsOrigins?: readonly string[];
  /** Per-client rate limit and guard; none: every client is served. */
  gate?: RpcClientGate;
}

export interface RpcServer {
  listen(host: string, port: number): Promise<void>;
  close(): Promise<void>;
}

/** Sends `body` as JSON; the length of the text sent (0 when the client had gone). */
function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): number {
  if (res.completed) return 0;
  res.status(status);
  for (const k in headers) res.header(k, headers[k], true);
  res.header('content-type', 'application/json', true);
  const text = JSON.stringify(body);
  res.send(text);
  return text.length;
}

export function createRpcServer(backend: RpcBackend, opts: RpcServerOptions): RpcServer {
  const { log } = opts;
  const dispatch = createDispatcher(backend, { log });
  const policy = cors(opts.corsOrigins ?? ['*']);
  const send = (req: Request, res: Response, status: number, body: unknown, headers: Record<string, string> = {}) =>
    sendJson(res, status, body, { ...policy.headers(req.headers.origin), ...headers });
  const maxBody = opts.maxBodyBytes ?? RPC_MAX_BODY_BYTES;
  const app = new HyperExpress.Server({ max_body_length: maxBody, fast_abort: false });
  const gate = opts.gate;

  /** The caller, or undefined when the request was refused here. */
  const admit = (req: Request, res: Response): Caller | undefined => {
    if (!gate) return { client: req.ip, exempt: true };
    const r = gate.enter(req.ip, req.headers['x-forwarded-for']);
    if ('client' in r) return r;
    if ('malformed' in r) {
      send(req, res, 400, errorResponse(null, invalidRequest(r.malformed)));
      return undefined;
    }
    tooMany(req, res, r.refused);
    return undefined;
  };
  const tooMany = (req: Request, res: Response, r: Refusal) =>
    send(req, res, 429, errorResponse(null, limitExceeded(r.error)), { 'retry-after': String(r.retryAfterS) });

  app.set_error_handler((req: Request, res: Response, err: Error) => {
    log.error({ err, path: req.path }, 'unhandled JSON-RPC request error');
    send(req, res, 200, errorResponse(null, internalError()));
  });

  app.set_not_found_handler((req: Request, res: Response) => {
    if (admit(req, res) === undefined) return;
    if (req.path === '/') {
      res.header('allow', 'POST, OPTIONS', true);
      return send(
        req,
        res,
        405,
        errorResponse(
          null,
          invalidRequest(`HTTP method ${req.method} is not allowed: JSON-RPC is served by POST only`),
        ),
      );
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
  const offence = (c: Caller) => !c.exempt && gate?.offence(c.client, 'malformed_body');
  // The answer's length, charged to a client that is not exempt once it is sent (its request was admitted with one
  // unit and weighed by its calls).
  const sent = (caller: Caller, length: number) => {
    if (gate && !caller.exempt) gate.charge(caller.client, jsonAnswerUnits(length));
  };
  const answer = (req: Request, res: Response, text: string, caller: Caller): void | Promise<void> => {
    let out: ReturnType<Dispatch>;
    try {
      const body = parseRpcBody(text);
      const refused = gate && !caller.exempt ? gate.weigh(caller.client, rpcWeight(body) - 1) : undefined;
      if (refused) return void tooMany(req, res, refused);
      out = dispatch(body, caller.client);
    } catch (e) {
      if (e instanceof RpcError) {
        if (e.rpcCode === RPC_CODES.PARSE_ERROR) offence(caller);
        return void send(req, res, 200, errorResponse(null, e));
      }
      log.error({ err: e }, 'JSON-RPC request failed');
      return void send(req, res, 200, errorResponse(null, internalError()));
    }
    if (!(out instanceof Promise)) return sent(caller, send(req, res, 200, out));
    return out.then(
      (o) => sent(caller, send(req, res, 200, o)),
      (err) => {
        log.error({ err }, 'JSON-RPC request failed');
        send(req, res, 200, errorResponse(null, internalError()));
      },
    );
  };
  app.post('/', (req: Request, res: Response) => {
    const caller = admit(req, res);
    if (caller === undefined) return;
    // The same 413 hyper-express gives (empty body), decided here so the guard counts it.
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      offence(caller);
      return void res.status(413).send();
    }
    return req.text().then((text) => answer(req, res, text, caller));
  });

  return {
    async listen(host: string, port: number): Promise<void> {
      await app.listen(port, host);
    },
    async close(): Promise<void> {
      app.close();
    },
  };
}
