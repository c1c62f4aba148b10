import type { ErrorCode } from './codes';

export type { ErrorCode } from './codes';

/**
 * The one base error class: a typed code (one of ErrorCode), metadata, and an optional cause.
 * HTTP statuses and JSON-RPC codes are chosen at the edge (http/, rpc/), never here.
 */
export class CairnError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly code: C,
    message: string,
    readonly meta: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CairnError';
  }
}

export const isCairnError = (e: unknown): e is CairnError => e instanceof CairnError;
