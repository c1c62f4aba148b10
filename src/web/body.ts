import type { Request } from 'hyper-express';
import { markOffence } from './guard';
import { badRequest, HttpError } from './httpError';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON.parse that refuses prototype-pollution keys anywhere in the document. The reviver
 * (slow: a call per value) only runs when the text contains one of the names at all.
 */
const SUSPECT = /__proto__|constructor|prototype/;
export function parseJsonBody(text: string): unknown {
  let v: unknown;
  try {
    v = SUSPECT.test(text)
      ? JSON.parse(text, (k, val) => {
          if (FORBIDDEN.has(k)) throw new SyntaxError(`forbidden key "${k}"`);
          return val;
        })
      : JSON.parse(text);
  } catch (e) {
    throw badRequest(`malformed JSON body: ${(e as Error).message}`);
  }
  return v;
}

/** Reads a request body as text, refusing more than `limit` bytes (413 {error}). */
export async function readBody(req: Request, limit: number): Promise<string> {
  const text = await req.text();
  if (Buffer.byteLength(text) > limit) throw new HttpError(413, `request body exceeds ${limit} bytes`);
  return text;
}

/** readBody + parseJsonBody; a body that is not acceptable JSON counts as a guard offence (malformed_body). */
export async function readJsonBody(req: Request, limit: number): Promise<unknown> {
  const text = await readBody(req, limit);
  try {
    return parseJsonBody(text);
  } catch (e) {
    markOffence(req, 'malformed_body');
    throw e;
  }
}
