/**
 * The one base error class: a typed code, metadata, and an optional cause.
 * HTTP statuses and JSON-RPC codes are chosen at the edge (http/, rpc/), never here.
 */
export class CairnError<C extends string = string> extends Error {
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
