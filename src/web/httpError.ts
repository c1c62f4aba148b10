import { CairnError } from '../errors/CairnError';

/**
 * An error that carries its HTTP status; the message becomes `{error}`, and a protocol refusal's
 * code (protocol/refusal.ts) `{error, code}`. Only http/ maps statuses.
 */
export class HttpError extends CairnError<'HTTP'> {
  constructor(
    readonly status: number,
    message: string,
    readonly refusalCode?: string,
  ) {
    super('HTTP', message, { status });
  }
}

export const badRequest = (m: string, code?: string) => new HttpError(400, m, code);
export const notFound = (m: string) => new HttpError(404, m);
