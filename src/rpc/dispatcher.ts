import type { Logger } from 'pino';
import type { RpcBackend } from '../api/ports';
import {
  internalError,
  invalidParams,
  invalidRequest,
  methodNotFound,
  parseError,
  RpcError,
  type RpcErrorObject,
} from './errors';
import { MAX_RPC_BATCH } from './limits';
import { createMethods, UNIMPLEMENTED_METHODS } from './methods';
import { isPlainObject } from './params';
import type { MaybePromise } from '../primitives/maybe';

/**
 * JSON-RPC 2.0 request handling, independent of HTTP.
 *
 * - A single request object gets a single response object.
 * - An array (batch) of 1..MAX_RPC_BATCH (50) elements gets an array of responses in the same
 *   order; the calls run concurrently (each asynchronous one starting a turn of the event loop
 *   after the previous) and each element is validated on its own. An empty
 *   array or one with more than 50 elements gets a single -32600 error object.
 * - Envelope rules follow the interface (docs/PROTOCOL.md "JSON-RPC (port 7070)"): `jsonrpc` must be "2.0", `method` a
 *   string and `id` present
 *   and a string, a number or null. A request without `id` (a JSON-RPC notification) is
 *   answered -32600, as the spec says ("jsonrpc, method or id missing").
 * - `params` may be omitted or null (= []) and must otherwise be an array (by-name params: -32602).
 * - Any exception that is not an RpcError is logged and answered -32603 "internal error",
 *   with no message or stack from the node.
 */

export type JsonRpcId = string | number | null;

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: RpcErrorObject };

/**
 * Answers at hand are returned as they are (no promise), so a cheap call costs no microtask.
 * `caller`: the client's key (its address), for the VM calls' fair share (RpcBackend.call).
 */
export type Dispatch = (body: unknown, caller?: string) => MaybePromise<JsonRpcResponse | JsonRpcResponse[]>;

export interface DispatcherOptions {
  log?: Logger;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON.parse for request bodies: malformed text or prototype-pollution keys → -32700. A body
 * that cannot hold such a key (none of the words, and no escape that could spell one) is
 * parsed without the reviver, which would otherwise be called for every value.
 */
export function parseRpcBody(text: string): unknown {
  const suspect =
    text.includes('\\') || text.includes('__proto__') || text.includes('constructor') || text.includes('prototype');
  try {
    return suspect
      ? JSON.parse(text, (k, v) => {
          if (FORBIDDEN_KEYS.has(k)) throw new SyntaxError(`forbidden key "${k}"`);
          return v;
        })
      : JSON.parse(text);
  } catch (e) {
    throw parseError(`parse error: ${(e as Error).message}`);
  }
}

export const errorResponse = (id: JsonRpcId, e: RpcError): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: e.toJSON(),
});

const isValidId = (v: unknown): v is JsonRpcId =>
  v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

export function createDispatcher(backend: RpcBackend, opts: DispatcherOptions = {}): Dispatch {
  const methods = createMethods(backend);

  function one(req: unknown, caller: string | undefined): MaybePromise<JsonRpcResponse> {
    if (!isPlainObject(req))
      return errorResponse(null, invalidRequest('invalid request: expected a JSON-RPC 2.0 request object'));
    const hasId = Object.hasOwn(req, 'id');
    const id: JsonRpcId = hasId && isValidId(req.id) ? req.id : null;
    if (req.jsonrpc !== '2.0') return errorResponse(id, invalidRequest('invalid request: "jsonrpc" must be "2.0"'));
    if (typeof req.method !== 'string')
      return errorResponse(id, invalidRequest('invalid request: "method" must be a string'));
    if (!hasId)
      return errorResponse(null, invalidRequest('invalid request: "id" is missing (notifications are not supported)'));
    if (!isValidId(req.id))
      return errorResponse(null, invalidRequest('invalid request: "id" must be a string, a number or null'));

    const method = req.method;
    const handler = methods.get(method);
    if (!handler) return errorResponse(id, methodNotFound(method, UNIMPLEMENTED_METHODS.get(method)));
    const params = req.params === undefined || req.params === null ? [] : req.params;
    if (!Array.isArray(params)) return errorResponse(id, invalidParams('invalid params: "params" must be an array'));

    const ok = (result: unknown): JsonRpcResponse => ({
      jsonrpc: '2.0',
      id,
      result: result === undefined ? null : result,
    });
    const failed = (e: unknown): JsonRpcResponse => {
      if (e instanceof RpcError) return errorResponse(id, e);
      opts.log?.error({ err: e, method }, 'JSON-RPC method failed');
      return errorResponse(id, internalError());
    };
    try {
      const result = handler(params, caller);
      return result instanceof Promise ? result.then(ok, failed) : ok(result);
    } catch (e) {
      return failed(e);
    }
  }

  return (body, caller) => {
    if (!Array.isArray(body)) return one(body, caller);
    if (body.length === 0) return errorResponse(null, invalidRequest('invalid request: empty batch'));
    if (body.length > MAX_RPC_BATCH) {
      return errorResponse(
        null,
        invalidRequest(
          `invalid request: batch of ${body.length} calls exceeds the batch limit of ${MAX_RPC_BATCH} (MAX_RPC_BATCH)`,
        ),
      );
    }
    // Calls answered at hand run in one go; once one goes asynchronous (a block, a state, a worker), each next call
    // starts a turn of the event loop later: they still run together, but 50 full blocks are no longer formatted in
    // one stretch of the thread that serves everyone (~160 ms; bench/attack.ts --only reads).
    const answers: MaybePromise<JsonRpcResponse>[] = [];
    let i = 0;
    while (i < body.length && !(answers[answers.length - 1] instanceof Promise)) answers.push(one(body[i++], caller));
    if (i === body.length && !answers.some((a) => a instanceof Promise)) return answers as JsonRpcResponse[];
    return (async () => {
      for (; i < body.length; i++) {
        await nextTurn();
        answers.push(one(body[i], caller));
      }
      return Promise.all(answers);
    })();
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
