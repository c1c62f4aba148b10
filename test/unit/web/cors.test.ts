import { describe, expect, it } from 'vitest';
import { cors } from '../../../src/web/cors';
import { loadConfig } from '../../../src/config/config';

describe('CORS (web/cors.ts)', () => {
  it('"*": any origin may read; preflights allow the methods and content-type, never x-admin-token', () => {
    const c = cors(['*'], ['retry-after']);
    expect(c.headers('https://a.example')).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'retry-after',
    });
    expect(c.headers(undefined)['access-control-allow-origin']).toBe('*');
    const p = c.preflight('https://a.example', 'GET, HEAD, POST, OPTIONS');
    expect(p).toMatchObject({
      'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-headers': 'content-type',
    });
    expect(p['access-control-allow-headers']).not.toMatch(/admin/);
  });

  it(
    'a list: only those origins, named; ' +
      'every answer varies on Origin (a shared cache keeps them apart); an empty list: no headers',
    () => {
      const c = cors(['https://wallet.example']);
      expect(c.headers('https://wallet.example')).toEqual({
        'access-control-allow-origin': 'https://wallet.example',
        vary: 'Origin',
      });
      expect(c.headers('https://evil.example')).toEqual({ vary: 'Origin' });
      expect(c.headers(undefined)).toEqual({ vary: 'Origin' });
      expect(c.preflight('https://evil.example', 'GET')).toEqual({ vary: 'Origin' });
      expect(cors([]).headers('https://wallet.example')).toEqual({});
      expect(cors([]).preflight('https://wallet.example', 'GET')).toEqual({});
      expect(cors(['*']).headers('https://a.example')).not.toHaveProperty('vary');
    },
  );

  it('--cors-origins: "*" by default, a list of origins, empty to turn it off; anything else refused', () => {
    expect(loadConfig([], {}).corsOrigins).toEqual(['*']);
    expect(loadConfig(['--cors-origins', 'https://wallet.example,http://localhost:3000'], {}).corsOrigins).toEqual([
      'https://wallet.example',
      'http://localhost:3000',
    ]);
    expect(loadConfig(['--cors-origins', ''], {}).corsOrigins).toEqual([]);
    expect(() => loadConfig(['--cors-origins', 'wallet.example/path'], {})).toThrow(
      /is not an origin like https:\/\/wallet.example/,
    );
  });
});
