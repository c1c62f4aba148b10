import type { Request } from 'hyper-express';
import { badRequest, HttpError } from './httpError';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** JSON.parse that refuses prototype-pollution keys anywhere in the document. */
export function parseJsonBody(text: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text, (k, val) => {
      if (FORBIDDEN.has(k)) throw new SyntaxError(`forbidden key "${k}"`);
      return val;
    });
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
