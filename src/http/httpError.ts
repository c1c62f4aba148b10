import { CairnError } from '../errors/CairnError';

/** An error that carries its HTTP status; the message becomes `{error}`. Only http/ maps statuses. */
export class HttpError extends CairnError<'HTTP'> {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('HTTP', message, { status });
  }
}

export const badRequest = (m: string) => new HttpError(400, m);
export const notFound = (m: string) => new HttpError(404, m);
