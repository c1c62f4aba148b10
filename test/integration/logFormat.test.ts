import { spawnOwned } from '../helpers/processes';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, tempDir } from '../helpers/testNode';

/**
 * `cairn node` as a person and a machine see it: pino JSON lines when stdout is a pipe (tests,
 * CI, systemd, containers), readable single lines when stdout is a terminal (run here under a
 * pseudo-terminal with util-linux `script`).
 */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/**
 * Starts `cairn node` (through `wrap` if given), waits until it answers, stops it with SIGTERM; resolves with what it
 * wrote to stdout.
 */
async function runNode(wrap?: (cmd: string[]) => string[], extra: string[] = []): Promise<string> {
  const dataDir = await tempDir();
  dirs.push(dataDir);
  const port = await freePort();
  const cmd = [
    process.execPath,
    '--import',
    'tsx',
    'src/cli/main.ts',
    'node',
    '--data-dir',
    dataDir,
    '--http-port',
    String(port),
    '--rpc-port',
    String(await freePort()),
    '--log-level',
    'info',
    '--dev-accounts',
    '0',
    ...extra,
  ];
  const argv = wrap ? wrap(cmd) : cmd;
  const env = { ...process.env };
  delete env.LOG_FORMAT; // the default (auto) unless the test passes --log-format
  const proc = spawnOwned(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = ''; // the CLI's own messages to the operator (e.g. "SIGTERM: stopping"), not logs
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`node exited early:\n${out}${err}`);
    const up = await fetch(`http://127.0.0.1:${port}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (up && out.includes('node started')) break;
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`node did not start:\n${out}${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGTERM');
  await exited;
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI colour code starts with ESC (0x1b)
const ANSI = /\x1b\[[0-9;]*m/g;
const hasScript = process.platform === 'linux' && ['/usr/bin/script', '/bin/script'].some((p) => existsSync(p));

describe('log format of a running node', () => {
  it('stdout not a terminal (auto): every stdout line is a pino JSON object', async () => {
    const out = await runNode();
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.find((r) => r.msg === 'node started')).toMatchObject({ level: 30, node: 'cairn', height: 0 });
  }, 60_000);

  it.skipIf(!hasScript)(
    'stdout a terminal (auto): readable single lines, one per record, not JSON',
    async () => {
      // script -q -e -c "<command>" /dev/null: the command runs with a pseudo-terminal as stdout.
      const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const out = (await runNode((cmd) => ['script', '-qec', cmd.map(quote).join(' '), '/dev/null'])).replace(ANSI, '');
      const started = out.split(/\r?\n/).find((l) => l.includes('node started'));
      expect(started, out).toBeDefined();
      expect(started).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO/);
      expect(started).toMatch(/"height":0/);
      expect(() => JSON.parse(started!)).toThrow();
    },
    60_000,
  );

  it.skipIf(!hasScript)(
    '--log-format json on a terminal: JSON lines all the same',
    async () => {
      const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const out = await runNode(
        (cmd) => ['script', '-qec', cmd.map(quote).join(' '), '/dev/null'],
        ['--log-format', 'json'],
      );
      const started = out.split(/\r?\n/).find((l) => l.includes('node started'));
      expect(JSON.parse(started!)).toMatchObject({ level: 30, msg: 'node started' });
    },
    60_000,
  );
});
