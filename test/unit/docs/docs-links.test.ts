import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The README and docs/ stand alone: every relative link resolves to a file of the repository. */
const root = resolve(__dirname, '../../..');
const files = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('documentation links', () => {
  it.each(files)('%s links only to files inside the repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = resolve(root, dirname(file), target.split('#')[0]);
      if (!path.startsWith(root + '/') || !existsSync(path)) broken.push(target);
    }
    expect(broken).toEqual([]);
    expect(text).not.toMatch(/\.\.\/shared\//);
  });
});
