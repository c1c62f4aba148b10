import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMPOOL_CAP_DEFAULT, MEMPOOL_MAX } from '../../../src/protocol/params';
import { ADMIN_TOKEN_MIN_LENGTH, configHelp, defaultNodeConfig, loadConfig } from '../../../src/config/config';
import { CairnError } from '../../../src/errors/CairnError';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = path.join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

const TOKEN = 'a'.repeat(ADMIN_TOKEN_MIN_LENGTH);

/** The CairnError thrown by fn (fails the test if none). */
function configError(fn: () => unknown): CairnError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CairnError);
    expect((e as CairnError).code).toBe('CONFIG');
    return e as CairnError;
  }
  throw new Error('expected a CONFIG error');
}

describe('loadConfig', () => {
  it('returns the defaults with no flags, env or file', () => {
    const c = loadConfig([], {});
    expect(c).toEqual(defaultNodeConfig);
    expect(c).toMatchObject({
      dataDir: './data',
      host: '127.0.0.1',
      httpPort: 6070,
      rpcPort: 7070,
      adminToken: null,
      slotMs: 500,
      idleBlockMs: 5000,
      mempoolCap: MEMPOOL_CAP_DEFAULT,
      logLevel: 'info',
      devAccounts: 10,
      configFile: null,
    });
    expect(c.verifyWorkers).toBe(os.availableParallelism());
  });

  it('applies flags > env > config file > defaults', () => {
    const cfg = file('prec.json', {
      httpPort: 1111,
      rpcPort: 2222,
      slotMs: 300,
      dataDir: '/from/file',
      logLevel: 'warn',
    });
    const c = loadConfig(['--config', cfg, '--http-port', '3333', '--data-dir=/from/flag'], {
      HTTP_PORT: '4444',
      RPC_PORT: '5555',
      DATA_DIR: '/from/env',
    });
    expect(c.httpPort).toBe(3333); // flag over env and file
    expect(c.dataDir).toBe('/from/flag');
    expect(c.rpcPort).toBe(5555); // env over file
    expect(c.slotMs).toBe(300); // file over default
    expect(c.logLevel).toBe('warn');
    expect(c.host).toBe('127.0.0.1'); // default
    expect(c.configFile).toBe(cfg);
  });

  it('reads every environment variable and treats an empty one as unset', () => {
    const c = loadConfig([], {
      CAIRN_HOST: '0.0.0.0',
      ADMIN_TOKEN: TOKEN,
      SLOT_MS: '50',
      IDLE_BLOCK_MS: '60',
      MEMPOOL_CAP: String(MEMPOOL_MAX),
      VERIFY_WORKERS: '3',
      LOG_LEVEL: 'debug',
      DEV_ACCOUNTS: '0',
      HTTP_PORT: '',
    });
    expect(c).toMatchObject({
      host: '0.0.0.0',
      adminToken: TOKEN,
      slotMs: 50,
      idleBlockMs: 60,
      mempoolCap: MEMPOOL_MAX,
      verifyWorkers: 3,
      logLevel: 'debug',
      devAccounts: 0,
      httpPort: 6070,
    });
  });

  it('refuses a mempool cap above MEMPOOL_MAX, naming the option', () => {
    expect(configError(() => loadConfig(['--mempool-cap', '50001'], {})).message).toMatch(
      /--mempool-cap must be between 1 and 50000/,
    );
    expect(configError(() => loadConfig([], { MEMPOOL_CAP: '60000' })).message).toMatch(/\$MEMPOOL_CAP/);
    expect(configError(() => loadConfig(['--config', file('cap.json', { mempoolCap: 50_001 })], {})).message).toMatch(
      /"mempoolCap" in the config file/,
    );
    expect(loadConfig(['--mempool-cap', '50000'], {}).mempoolCap).toBe(50_000);
  });

  it(
    'bounds the per-sender mempool options: ' + 'gapped under the 64-nonce gap, gapped lifetime under the 6 h lifetime',
    () => {
      expect(
        loadConfig(
          ['--mempool-sender-gapped', '4', '--mempool-sender-pending', '20', '--mempool-gapped-lifetime-ms', '2000'],
          {},
        ),
      ).toMatchObject({ mempoolSenderGapped: 4, mempoolSenderPending: 20, mempoolGappedLifetimeMs: 2000 });
      expect(configError(() => loadConfig(['--mempool-sender-gapped', '65'], {})).message).toMatch(
        /--mempool-sender-gapped must be between 0 and 64/,
      );
      expect(configError(() => loadConfig([], { MEMPOOL_GAPPED_LIFETIME_MS: '21600001' })).message).toMatch(
        /\$MEMPOOL_GAPPED_LIFETIME_MS must be between 1000 and 21600000/,
      );
      expect(configError(() => loadConfig(['--mempool-sender-pending', '0'], {})).message).toMatch(
        /--mempool-sender-pending must be between 1 and 50000/,
      );
    },
  );

  it('validates ranges, types and names the option', () => {
    expect(configError(() => loadConfig(['--slot-ms', '49'], {})).message).toMatch(
      /--slot-ms must be between 50 and 1000/,
    );
    expect(configError(() => loadConfig(['--slot-ms', '1001'], {})).message).toMatch(/--slot-ms/);
    expect(configError(() => loadConfig([], { HTTP_PORT: 'abc' })).message).toMatch(/\$HTTP_PORT must be an integer/);
    expect(configError(() => loadConfig(['--rpc-port', '70000'], {})).message).toMatch(/--rpc-port/);
    expect(configError(() => loadConfig(['--http-port', '-1'], {})).message).toMatch(/--http-port|option/);
    expect(configError(() => loadConfig(['--verify-workers', '0'], {})).message).toMatch(/--verify-workers/);
    expect(configError(() => loadConfig(['--log-level', 'loud'], {})).message).toMatch(/--log-level must be one of/);
    expect(configError(() => loadConfig(['--data-dir', ''], {})).message).toMatch(
      /--data-dir must be a non-empty string/,
    );
    expect(configError(() => loadConfig(['--config', file('t.json', { httpPort: '6070' })], {})).message).toMatch(
      /"httpPort" in the config file must be an integer/,
    );
  });

  it('checks values against each other', () => {
    expect(configError(() => loadConfig(['--http-port', '8000', '--rpc-port', '8000'], {})).message).toMatch(
      /must differ/,
    );
    expect(loadConfig(['--http-port', '0', '--rpc-port', '0'], {}).httpPort).toBe(0);
    expect(configError(() => loadConfig(['--slot-ms', '500', '--idle-block-ms', '400'], {})).message).toMatch(
      /idle-block-ms/,
    );
  });

  it('refuses unknown flags, positionals and bad config files', () => {
    expect(configError(() => loadConfig(['--http-prot', '1'], {})).message).toMatch(/http-prot/);
    expect(configError(() => loadConfig(['extra'], {})).message).toMatch(/extra/);
    expect(configError(() => loadConfig(['--config', path.join(dir, 'missing.json')], {})).message).toMatch(
      /cannot read/,
    );
    expect(configError(() => loadConfig(['--config', file('bad.json', '{nope')], {})).message).toMatch(
      /not valid JSON/,
    );
    expect(configError(() => loadConfig(['--config', file('arr.json', [1])], {})).message).toMatch(/JSON object/);
    expect(configError(() => loadConfig(['--config', file('typo.json', { slotMS: 100 })], {})).message).toMatch(
      /unknown key "slotMS"/,
    );
    expect(loadConfig(['--config', file('null.json', { adminToken: null })], {}).adminToken).toBeNull();
  });
});

describe('configHelp', () => {
  it('lists every option with its env var and default', () => {
    const h = configHelp();
    for (const [flag, env, def] of [
      ['--data-dir', '$DATA_DIR', './data'],
      ['--host', '$CAIRN_HOST', '127.0.0.1'],
      ['--http-port', '$HTTP_PORT', '6070'],
      ['--rpc-port', '$RPC_PORT', '7070'],
      ['(no flag)', '$ADMIN_TOKEN', '(unset)'],
      ['--admin-token-file', '$ADMIN_TOKEN_FILE', '(unset)'],
      ['--slot-ms', '$SLOT_MS', '500'],
      ['--idle-block-ms', '$IDLE_BLOCK_MS', '5000'],
      ['--mempool-cap', '$MEMPOOL_CAP', '5000'],
      ['--mempool-sender-pending', '$MEMPOOL_SENDER_PENDING', '500'],
      ['--mempool-sender-gapped', '$MEMPOOL_SENDER_GAPPED', '16'],
      ['--mempool-gapped-lifetime-ms', '$MEMPOOL_GAPPED_LIFETIME_MS', '600000'],
      ['--verify-workers', '$VERIFY_WORKERS', String(os.availableParallelism())],
      ['--log-level', '$LOG_LEVEL', 'info'],
      ['--dev-accounts', '$DEV_ACCOUNTS', '10'],
    ]) {
      const line = h.split('\n').find((l) => l.trimStart().startsWith(flag + ' '));
      expect(line, flag).toBeDefined();
      expect(line).toContain(env);
      expect(line).toContain(` ${def} `);
    }
    expect(h).toContain('--config <file.json>');
  });
});

describe('address lists (rate-limit exemptions, trusted proxies)', () => {
  it('reads comma-separated lists from flags and env, arrays from the file, and refuses non-addresses', () => {
    expect(loadConfig(['--rate-limit-exempt', '127.0.0.0/8, ::1'], {}).rateLimitExempt).toEqual(['127.0.0.0/8', '::1']);
    expect(loadConfig([], { TRUSTED_PROXIES: '10.0.0.1' }).trustedProxies).toEqual(['10.0.0.1']);
    expect(
      loadConfig(['--config', file('lists.json', { rateLimitExempt: ['192.168.0.0/16'] })], {}).rateLimitExempt,
    ).toEqual(['192.168.0.0/16']);
    expect(loadConfig([], {}).rateLimitExempt).toEqual([]);
    expect(configError(() => loadConfig(['--rate-limit-exempt', 'localhost'], {})).message).toMatch(
      /"localhost" is not an IP address or CIDR block/,
    );
    expect(
      configError(() => loadConfig(['--config', file('bad-list.json', { trustedProxies: [1] })], {})).message,
    ).toMatch(/comma-separated list/);
  });
});
