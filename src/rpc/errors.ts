import { CairnError } from '../errors/CairnError';

/**
 * JSON-RPC error codes, exactly as SPEC.md "Errors / JSON-RPC errors" lists them.
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
    return this.data === undefined ? { code: this.rpcCode, message: this.message } : { code: this.rpcCode, message: this.message, data: this.data };
  }
}

export const invalidRequest = (m: string) => new RpcError(RPC_CODES.INVALID_REQUEST, m);
export const methodNotFound = (method: string, hint?: string) =>
  new RpcError(RPC_CODES.METHOD_NOT_FOUND, `the method ${method} does not exist/is not available${hint ? ` (${hint})` : ''}`);
export const invalidParams = (m: string) => new RpcError(RPC_CODES.INVALID_PARAMS, m);
export const internalError = () => new RpcError(RPC_CODES.INTERNAL_ERROR, 'internal error');
export const parseError = (m: string) => new RpcError(RPC_CODES.PARSE_ERROR, m);
export const executionError = (m: string, data?: unknown) => new RpcError(RPC_CODES.EXECUTION_ERROR, m, data);
