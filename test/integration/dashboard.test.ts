import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../helpers/testNode';

/** docs/grafana-dashboard.json queries only metrics a running node exports on /metrics. */
let t: TestNode;
beforeAll(async () => {
  t = await startTestNode({});
}, 60_000);
afterAll(async () => t?.cleanup());

describe('the Grafana dashboard', () => {
  it('every metric its panels query is on /metrics', async () => {
    const dash = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const exported = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
      ),
    );
    const used = new Set(
      dash.panels.flatMap((p) => p.targets.flatMap((x) => [...x.expr.matchAll(/\b(cairn_[a-z_]+)/g)].map((m) => m[1]))),
    );
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((m) => !exported.has(m))).toEqual([]);
  });
});
