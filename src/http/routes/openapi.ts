import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonText } from '../../api/headMemo';
import { HttpError } from '../../web/httpError';
import type { RouteHandlers } from './bind';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** The committed document (`npm run docs:openapi` writes it from src/views and its route table). */
export const OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/**
 * Read once: the text, or why it could not be (answered as a 500 on every request rather than failing the node's
 * start).
 */
function load(file: string): JsonText | string {
  try {
    const text = readFileSync(file, 'utf8');
    JSON.parse(text); // a truncated or hand-broken file is as unusable as a missing one
    return new JsonText(text);
  } catch (e) {
    // Named relative to the repository: the node's filesystem layout is not the client's business.
    const code = (e as NodeJS.ErrnoException).code ?? 'not valid JSON';
    return (
      `the OpenAPI document ${relative(REPO, file)} could not be read (${code}): regenerate it with npm run ` +
      `docs:openapi`
    );
  }
}

/** GET /openapi.json: the OpenAPI 3.1 description of this API, served as committed. */
export function openApiHandler(file = OPENAPI_FILE): RouteHandlers<'openapi'> {
  const doc = load(file);
  return {
    openapi: () => {
      if (typeof doc === 'string') throw new HttpError(500, doc);
      return doc;
    },
  };
}
