/**
 * Errors are codes (issue 25): every refusal of the protocol comes from a catalog (code, words,
 * metadata), no code is declared twice, docs/API.md lists them all, and no reader or edge of
 * the node decides anything by comparing the words.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refusalsSection, withRefusalsSection } from '../../../src/modules/docs';
import { REFUSAL_CATALOGS } from '../../../src/modules/refusals';
import { TxFailure } from '../../../src/protocol/handler';
import { refusals, wrapRefusal } from '../../../src/protocol/refusal';

const SRC = new URL('../../../src/', import.meta.url).pathname;
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
const offending = (pattern: RegExp): string[] =>
  sources(SRC).flatMap((p) =>
    readFileSync(p, 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${p.slice(SRC.length)}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('refusal codes', () => {
  it('a catalog renders the words from code and metadata, and a failure carries all three', () => {
    const T = refusals('test', { TEST_LATE: (m: { at: number }) => `closed at height ${m.at}`, TEST_NO: () => 'no' });
    const f = new TxFailure(T.TEST_LATE({ at: 7 }));
    expect([f.code, f.reason, f.meta, f.message]).toEqual([
      'TEST_LATE',
      'closed at height 7',
      { at: 7 },
      'closed at height 7',
    ]);
    expect(wrapRefusal(T.TEST_NO(), 'outer: ')).toEqual({ code: 'TEST_NO', reason: 'outer: no', meta: {} });
    expect(() => refusals('test', { late: () => 'x' })).toThrow(/UPPER_SNAKE_CASE/);
    expect(T.catalog.template('TEST_LATE')).toBe('closed at height <at>');
  });

  it('no code is declared by two catalogs', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const c of REFUSAL_CATALOGS)
      for (const code of c.codes) {
        if (seen.has(code)) twice.push(`${code} (${seen.get(code)} and ${c.module})`);
        seen.set(code, c.module);
      }
    expect(twice).toEqual([]);
    expect(seen.size).toBeGreaterThan(150);
  });

  it('docs/API.md lists every code with its words (run `npm run docs:types` after changing a catalog)', () => {
    const doc = readFileSync(new URL('../../../docs/API.md', import.meta.url), 'utf8');
    expect(withRefusalsSection(doc, refusalsSection(REFUSAL_CATALOGS))).toBe(doc);
  });

  it('every TxFailure is built from a catalog, never from words', () => {
    expect(offending(/new TxFailure\(\s*['"`]/)).toEqual([]);
  });

  it('no reader or edge compares the words of a refusal or an error (they switch on codes)', () => {
    // `.reason === '…'`, `.error !== "…"`, `.message.includes(…)`, `/…/.test(x.reason)`: deciding by prose.
    const prose = new RegExp(
      [
        /\.(reason|error|message)\s*[!=]==?\s*['"`]/,
        /\.(reason|error|message)\??\.(includes|startsWith|endsWith|match)\(/,
        /\.test\([^)]*\.(reason|error|message)\b/,
      ]
        .map((r) => r.source)
        .join('|'),
    );
    // jailed.reason is an enum ('downtime' | 'double-sign'), not words.
    expect(offending(prose).filter((l) => !/jailed\?\.reason/.test(l))).toEqual([]);
  });
});
