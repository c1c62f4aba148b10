import { readFileSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { READ_COMMANDS, READ_HELP } from '../../../src/cli/commands/read';
import { openApiPath } from '../../../src/http/openapi/document';
import { indexEndpoints } from '../../../src/http/routes/index';
import { createHttpServer, type HttpDeps } from '../../../src/http/server';
import { CairnClient } from '../../../src/sdk/client';
import { endpointLine, ROUTES, type RouteSpec } from '../../../src/views/routes';

/**
 * A route is declared once (src/views/routes): the server registers it, the OpenAPI document
 * describes it, the SDK has its method, the CLI its read command and `/` lists it — all the
 * same set, derived from the one table.
 */
const table = Object.entries(ROUTES as Record<string, RouteSpec>);
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const expected = table.map(([, r]) => key(r.method, r.path)).sort();

describe('the route table', () => {
  it('is what the server registers: every route, each once, and nothing else but the explorer assets', async () => {
    const deps = { log: pino({ level: 'silent' }), now: Date.now } as unknown as HttpDeps;
    const server = createHttpServer(deps);
    const records = (server.app as unknown as { routes: Record<string, Record<string, unknown>> }).routes;
    const registered = Object.entries(records)
      .filter(([m]) => m === 'get' || m === 'post')
      .flatMap(([m, byPath]) => Object.keys(byPath).map((p) => key(m, p)))
      .filter((k) => !k.startsWith('GET /explorer/'))
      .sort();
    expect(registered).toEqual(expected);
    // Every GET also answers HEAD.
    expect(Object.keys(records.head ?? {}).sort()).toEqual(Object.keys(records.get).sort());
    await server.close();
  });

  it('is what docs/openapi.json describes', () => {
    const doc = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const described = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(described).toEqual(table.map(([, r]) => key(r.method, openApiPath(r.path))).sort());
  });

  it('gives the SDK one method per route, which asks for that route with its arguments', async () => {
    const seen: string[] = [];
    const fetch = (async (url: string, init: RequestInit) => {
      seen.push(`${init.method} ${url.replace('http://node', '')}${init.body ? ` ${String(init.body)}` : ''}`);
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof globalThis.fetch;
    const client = new CairnClient('http://node', { fetch, adminToken: 't' });
    const methods = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const [name, r] of table) {
      expect(typeof methods[name], name).toBe('function');
      const params = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => `${m[1]}-value`);
      seen.length = 0;
      await methods[name](...params, ...(r.query ? [{}] : []), ...(r.body ? [{ x: 1 }] : []));
      const path = params.reduce((p, v) => p.replace(/:[A-Za-z]+/, v), r.path);
      expect(seen, name).toEqual([`${r.method} ${path}${r.body ? ' {"x":1}' : ''}`]);
    }
    // The query, by name; the admin token on admin routes only.
    seen.length = 0;
    await client.proposals({ status: 'VOTING', limit: 5 });
    expect(seen).toEqual(['GET /governance/proposals?status=VOTING&limit=5']);
  });

  it('gives the CLI a read command for each route that names one, with help derived from the route', () => {
    const withCli = table
      .filter(([, r]) => r.cli)
      .map(([, r]) => r.cli!.command)
      .sort();
    expect(withCli.length).toBeGreaterThanOrEqual(17);
    for (const c of withCli) {
      expect(READ_COMMANDS[c], c).toBeTypeOf('function');
      const r = table.find(([, x]) => x.cli?.command === c)![1];
      expect(r.method, c).toBe('GET');
      expect(READ_HELP[c], c).toContain(`Prints GET ${r.path}: ${r.summary}`);
      for (const q of Object.keys(r.query ?? {})) expect(READ_HELP[c], `${c} --${q}`).toContain(`--${q}`);
    }
  });

  it('is what / lists: every route but the index itself, with its summary', () => {
    const listed = indexEndpoints();
    expect(listed.map((e) => e.path)).toEqual(table.filter(([, r]) => r.path !== '/').map(([, r]) => endpointLine(r)));
    expect(listed.find((e) => e.path === 'GET /tokens/:id/holders?limit&before')?.description).toBe(
      'Token holders, largest balance first',
    );
  });
});
