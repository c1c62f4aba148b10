import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Comments point at the repository's own documents, never at files outside it, and a
 * reference to a section (`docs/API.md "Pagination"`) names a heading that exists.
 */
const ROOT = join(import.meta.dirname, '..', '..', '..');
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|md)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
const FILES = [...sources('src'), ...sources('docs'), 'README.md'];
/** A document's section names: its headings, and the bold leads of its paragraphs (`- **Block gas.** …`). */
const headings = (doc: string) => {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const heads = text
    .split('\n')
    .filter((l) => /^#{2,4} /.test(l))
    .map((l) => l.replace(/^#+ /, '').replaceAll('`', ''));
  const leads = [...text.matchAll(/\*\*([^*\n]+?)\.?\*\*/g)].map((m) => m[1]);
  return [...heads, ...leads];
};

describe('references in comments and docs', () => {
  it('point at nothing outside the repository', () => {
    const outside = FILES.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (/\b(SPEC|DESIGN)\.md\b|\.\.\/shared\//.test(l) ? [`${f}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(outside).toEqual([]);
  });

  it('name sections that exist', () => {
    const known = new Map<string, string[]>();
    const missing: string[] = [];
    for (const f of FILES) {
      // A reference may run over a comment's line break.
      const text = readFileSync(join(ROOT, f), 'utf8').replace(/\n\s*(\*|\/\/)?\s*/g, ' ');
      for (const m of text.matchAll(/docs\/([A-Z]+\.md) "([^"]+)"/g)) {
        const doc = `docs/${m[1]}`;
        if (!known.has(doc)) known.set(doc, headings(doc));
        if (!known.get(doc)!.some((h) => h === m[2] || h.startsWith(`${m[2]} `) || h.startsWith(m[2])))
          missing.push(`${f}: ${doc} "${m[2]}"`);
      }
    }
    expect(missing).toEqual([]);
  });
});
