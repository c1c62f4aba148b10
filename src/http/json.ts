import { badRequest } from './httpError';

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
