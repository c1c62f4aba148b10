import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config';
import { createLogger } from '../../../src/node/logger';

const sink = () => {
  const lines: string[] = [];
  const w = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
  return { w, lines };
};

describe('logs', () => {
  it('auto: JSON lines when stdout is not a terminal, readable single lines when it is', () => {
    const a = sink();
    createLogger('info', 'auto', false, a.w).info({ height: 7 }, 'block committed');
    expect(JSON.parse(a.lines.join(''))).toMatchObject({ level: 30, height: 7, msg: 'block committed', node: 'cairn' });
    const b = sink();
    createLogger('info', 'auto', true, b.w).info({ height: 7 }, 'block committed');
    const line = b.lines.join('');
    expect(line).toMatch(/INFO/);
    expect(line).toMatch(/block committed/);
    expect(line).toMatch(/height.*7/);
    expect(line.trim().split('\n')).toHaveLength(1);
    expect(() => JSON.parse(line)).toThrow();
  });

  it('pretty off a terminal (a file, journald): readable lines without colour codes; json on a terminal: JSON', () => {
    const a = sink();
    createLogger('info', 'pretty', false, a.w).warn({ peer: 'http://p:6070' }, 'peer unreachable');
    const line = a.lines.join('');
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: peer unreachable \{"peer":"http:\/\/p:6070"\}\n$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no ANSI colour code (ESC, 0x1b) in the line
    expect(line).not.toMatch(/\x1b\[/);
    const b = sink();
    createLogger('info', 'json', true, b.w).info({ height: 1 }, 'x');
    expect(JSON.parse(b.lines.join(''))).toMatchObject({ height: 1, msg: 'x' });
  });

  it('--log-format json|pretty|auto; anything else is refused', () => {
    expect(loadConfig([], {}).logFormat).toBe('auto');
    expect(loadConfig(['--log-format', 'json'], {}).logFormat).toBe('json');
    expect(() => loadConfig(['--log-format', 'xml'], {})).toThrow(/log-format must be one of auto, json, pretty/);
  });
});
