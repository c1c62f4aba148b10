import { CairnError } from '../errors/CairnError';

/**
 * JSON-RPC error codes, exactly as the interface lists them (docs/API.md "Errors").
 * Body of an error answer: `{jsonrpc: "2.0", id, error: {code, message, data?}}`.
 */
export const RPC_CODES = {
  /** Envelope not valid JSON-RPC 2.0: jsonrpc, method or id missing or of the wrong type. */
  INVALID_REQUEST: -32600,
  /** Method not implemented; the message names the method. */
  METHOD_NOT_FOUND: -32601,
  /** Params have the wrong type or arity; the message says which. */
  INVALID_PARAMS: -32602,
  /** Internal node failure (no detail leaks). */
  INTERNAL_ERROR: -32603,
  /** Body is not JSON. */
  PARSE_ERROR: -32700,
  /** Execution error: revert (data = revert bytes), out of gas, insufficient balance, submission refusals. */
  EXECUTION_ERROR: -32000,
} as const;

export type RpcCode = (typeof RPC_CODES)[keyof typeof RPC_CODES];

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error that leaves the RPC layer as a JSON-RPC error object (code, message, optional data). */
export class RpcError extends CairnError<'RPC'> {
  constructor(
    readonly rpcCode: RpcCode,
    message: string,
    readonly data?: unknown,
  ) {
    super('RPC', message, { rpcCode });
    this.name = 'RpcError';
  }

  toJSON(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data };
  }
}

export const invalidRequest = (m: string) => new RpcError(RPC_CODES.INVALID_REQUEST, m);
/** Most characters of a caller's method name an error quotes (a 100,000-character name is not echoed back). */
export const MAX_QUOTED_METHOD_CHARS = 64;

/** `method` as an error quotes it: whole up to MAX_QUOTED_METHOD_CHARS, else its start, an ellipsis and its length. */
export function quoteMethod(method: string): string {
  if (method.length <= MAX_QUOTED_METHOD_CHARS) return method;
  let head = method.slice(0, MAX_QUOTED_METHOD_CHARS);
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1); // never half a surrogate pair
  return `${head}… (${method.length} characters)`;
}

export const methodNotFound = (method: string, hint?: string) =>
  new RpcError(
    RPC_CODES.METHOD_NOT_FOUND,
    `the method ${quoteMethod(method)} does not exist/is not available${hint ? ` (${hint})` : ''}`,
  );
export const invalidParams = (m: string) => new RpcError(RPC_CODES.INVALID_PARAMS, m);
export const internalError = () => new RpcError(RPC_CODES.INTERNAL_ERROR, 'internal error');
export const parseError = (m: string) => new RpcError(RPC_CODES.PARSE_ERROR, m);
export const executionError = (m: string, data?: unknown) => new RpcError(RPC_CODES.EXECUTION_ERROR, m, data);
/**
 * A request refused by the per-client rate limit or the guard (HTTP 429): -32000, since the spec's table has no code of
 * its own for it.
 */
export const limitExceeded = (m: string) => new RpcError(RPC_CODES.EXECUTION_ERROR, m);
