import { closeSync, openSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnNode } from '../helpers/childNode';
import { runOwned, spawnOwned } from '../helpers/processes';
import { HONEST, requestFrom } from './lib';

/**
 * Rows 3–5 of issue 49: what a stranger with an account on a validator's machine finds.
 * - Row 3: the admin token on the command line (docs told operators to put it there), where `ps` shows it to every
 *   user; and any non-empty token was accepted. Now `--admin-token` is refused, the token comes from an owner-only
 *   file (or the environment), and one under 32 characters is refused.
 * - Row 4: a key file at mode 0644 (`cairn keygen > v1.json` under umask 022) used without a word. Now a key file
 *   other users can read stops the node unless --allow-insecure-key-file says otherwise, and keygen writes 0600.
 * - Row 5: an empty or non-JSON signing-guard.json stopped the start with a raw SyntaxError. Now it is "damaged",
 *   with the remedy.
 * Every node here is a real `cairn node` process.
 */
const TOKEN = 'operator-secrets-admin-token-0123456789abcdef';
const SECRET = '5'.repeat(64);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-secrets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts `cairn node` in a fresh data dir; the refusal's text when it exits before serving instead. */
async function start(name: string, args: string[], prepare?: (dataDir: string) => Promise<void>) {
  const dataDir = join(dir, name);
  await rm(dataDir, { recursive: true, force: true });
  if (prepare) {
    await mkdir(dataDir, { recursive: true });
    await prepare(dataDir);
  }
  try {
    return { node: await spawnNode(dataDir, args), refused: undefined };
  } catch (e) {
    return { node: undefined, refused: (e as Error).message };
  }
}

/** A file holding `text`, created with `mode` whatever the umask. */
async function fileWith(name: string, text: string, mode: number): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  await chmod(p, mode);
  return p;
}

describe('row 3: the admin token stays off the command line', () => {
  it('--admin-token on the command line is refused, naming the file and the environment', async () => {
    const r = await start('flag', ['--admin-token', TOKEN]);
    await r.node?.kill('SIGKILL');
    expect(r.refused).toMatch(
      /--admin-token puts the secret on the command line.*--admin-token-file <file>.*\$ADMIN_TOKEN/s,
    );
  });

  it('a token under 32 characters is refused', async () => {
    const file = await fileWith('short-token', `${'x'.repeat(31)}\n`, 0o600);
    const r = await start('short', ['--admin-token-file', file]);
    await r.node?.kill('SIGKILL');
    expect(r.refused).toMatch(/must be at least 32 characters, got 31/);
  });

  it('a token file other users can read is refused', async () => {
    const file = await fileWith('open-token', TOKEN, 0o644);
    const r = await start('token-open', ['--admin-token-file', file]);
    await r.node?.kill('SIGKILL');
    expect(r.refused).toMatch(/can be read by other users of this machine \(mode 0644\).*chmod 600/s);
  });

  it('--admin-token-file: the admin endpoints take the token, and the process table never shows it', async () => {
    const file = await fileWith('token', `${TOKEN}\n`, 0o600);
    const { node, refused } = await start('file', ['--admin-token-file', file]);
    expect(refused).toBeUndefined();
    try {
      const cmdline = await readFile(`/proc/${node!.proc.pid}/cmdline`, 'utf8');
      expect(cmdline).toContain('--admin-token-file');
      expect(cmdline).not.toContain(TOKEN);
      expect((await requestFrom(HONEST, `${node!.url}/peers`, { headers: { 'x-admin-token': TOKEN } })).status).toBe(
        200,
      );
      expect((await requestFrom(HONEST, `${node!.url}/peers`, { headers: { 'x-admin-token': 'nope' } })).status).toBe(
        403,
      );
    } finally {
      await node!.kill('SIGKILL');
    }
  });
});

describe('row 4: key files other users can read', () => {
  it('a --validator-key file at mode 0644 stops the start; --allow-insecure-key-file lets it run, with a warning', async () => {
    const key = await fileWith('key-0644.json', JSON.stringify({ secret: SECRET }), 0o644);
    const r = await start('key-open', ['--validator-key', key]);
    await r.node?.kill('SIGKILL');
    expect(r.refused).toMatch(
      /--validator-key .*key-0644\.json can be read by other users of this machine \(mode 0644\)/,
    );
    expect(r.refused).toMatch(/--allow-insecure-key-file/);

    const allowed = await start('key-allowed', ['--validator-key', key, '--allow-insecure-key-file']);
    expect(allowed.refused).toBeUndefined();
    try {
      expect(allowed.node!.output()).toMatch(/--allow-insecure-key-file: key and token files are used/);
    } finally {
      await allowed.node!.kill('SIGKILL');
    }
  });

  it('a key file at 0600 starts the node', async () => {
    const key = await fileWith('key-0600.json', JSON.stringify({ secret: SECRET }), 0o600);
    const { node, refused } = await start('key-private', ['--validator-key', key]);
    expect(refused).toBeUndefined();
    await node!.kill('SIGKILL');
  });

  it('cairn keygen > file leaves the file 0600 under umask 022; --out writes 0600 and never overwrites', async () => {
    // The shell's redirection: the file exists (0644 under umask 022) before keygen runs, as its standard output.
    const redirected = join(dir, 'wallet.json');
    const fd = openSync(redirected, 'w', 0o644);
    try {
      const proc = spawnOwned(process.execPath, [...CLI, 'keygen'], { stdio: ['ignore', fd, 'pipe'] });
      const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
      expect(code).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect((await stat(redirected)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(redirected, 'utf8')).secret).toMatch(/^[0-9a-f]{64}$/);

    const out = join(dir, 'v1.json');
    const printed = JSON.parse((await runOwned(process.execPath, [...CLI, 'keygen', '--out', out])).stdout);
    expect(printed).toEqual({ address: expect.stringMatching(/^0x/), native: expect.any(String), file: out });
    expect(printed).not.toHaveProperty('secret');
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const again = await runOwned(process.execPath, [...CLI, 'keygen', '--out', out]).catch((e) => e);
    expect(again.stderr).toMatch(/exists: keygen never overwrites a key/);
  });
});

describe('row 5: a damaged signing guard', () => {
  for (const [what, text] of [
    ['empty', ''],
    ['not JSON', '{"height": 12, "slo'],
    ['JSON but not an object', 'null'],
  ] as const) {
    it(`${what}: the start stops with "damaged" and the remedy, not a SyntaxError`, async () => {
      const r = await start(`guard-${what.replace(/\W/g, '')}`, [], (d) =>
        writeFile(join(d, 'signing-guard.json'), text),
      );
      await r.node?.kill('SIGKILL');
      expect(r.refused).toMatch(
        /signing-guard\.json is damaged: remove it only if this validator key signs nowhere else/,
      );
      expect(r.refused).toMatch(/restore it from a backup/);
      expect(r.refused).not.toMatch(/SyntaxError|TypeError/);
    });
  }
});
