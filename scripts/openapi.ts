/**
 * `npm run docs:openapi`: writes docs/openapi.json, the OpenAPI 3.1 document of the native
 * HTTP API, from the route table (src/views/routes) and JSON Schemas generated
 * from the view types (src/views) — the types the server builds and the SDK reads, so the
 * document is not a second, hand-written copy of the shapes. test/integration/openapi-doc.test.ts
 * regenerates it and compares with the committed file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createGenerator } from 'ts-json-schema-generator';
import { buildDocument, documentText } from '../src/http/openapi/document';
import type { JsonSchema } from '../src/http/openapi/document';

const root = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
export const OPENAPI_PATH = root('docs/openapi.json');

/** Every view type exported by src/views/index.ts as a draft-07 definition. */
export function viewSchemas(): Record<string, JsonSchema> {
  const generator = createGenerator({
    path: root('src/views/index.ts'),
    tsconfig: root('tsconfig.json'),
    type: '*',
    expose: 'export',
    jsDoc: 'extended',
    // Objects are closed: a field the server sends but the view does not declare fails the conformance test.
    additionalProperties: false,
    // tsc checks the types (npm run typecheck); checking them again here only costs time.
    skipTypeCheck: true,
  });
  return (generator.createSchema('*').definitions ?? {}) as Record<string, JsonSchema>;
}

/** The document as committed. */
export function openApiText(): string {
  const { version } = JSON.parse(readFileSync(root('package.json'), 'utf8')) as { version: string };
  return documentText(buildDocument({ version, definitions: viewSchemas() }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = openApiText();
  let before = '';
  try {
    before = readFileSync(OPENAPI_PATH, 'utf8');
  } catch {
    /* first run */
  }
  writeFileSync(OPENAPI_PATH, text);
  console.log(text === before ? 'docs/openapi.json: up to date' : 'docs/openapi.json: rewritten');
}
